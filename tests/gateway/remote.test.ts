import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { request } from 'undici';
import { Gateway, isOriginError } from 'rest-service-origin';
import { ListAuthenticator, basic } from './test-authenticator';

const SECRET = 'registration-secret-5e1f';
const child = { process: undefined as ChildProcess | undefined, url: '' };
let gateway: Gateway;
let base: string;

beforeAll(async () => {
  const script = join(__dirname, 'remote-origin-process.ts');
  const started = spawn(process.execPath, ['--import', 'tsx', script, 'remote', SECRET], {
    cwd: join(__dirname, '..', '..'),
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  child.process = started;
  let out = '';
  while (!/listening at (\S+)/.test(out)) {
    if (started.exitCode !== null) throw new Error('the origin process exited');
    const [chunk] = (await once(started.stdout!, 'data')) as [Buffer];
    out += chunk.toString();
  }
  child.url = /listening at (\S+)/.exec(out)![1]!;
  gateway = new Gateway({
    port: 0,
    host: '127.0.0.1',
    authenticator: new ListAuthenticator([{ name: 'ada', password: 'pw', roles: ['admin'] }]),
  });
  base = await gateway.start();
}, 60_000);

afterAll(async () => {
  await gateway.close();
  child.process?.kill('SIGTERM');
  if (child.process && child.process.exitCode === null) await once(child.process, 'exit');
});

async function post(url: string, headers: Record<string, string>, body = '{"a":1}') {
  const res = await request(url, { method: 'POST', headers: { 'x-requested-by': 't', ...headers }, body });
  const text = await res.body.text();
  return {
    status: res.statusCode,
    headers: res.headers,
    body: JSON.parse(text) as { data: { attributes: Record<string, string> }[]; errorMessage: string | null },
  };
}

it('forwards to an origin in another process with the secret, the caller path and the authenticated user', async () => {
  const registration = gateway.registerRemote({
    name: 'remote',
    api: 'secure',
    pipeline: 'remote',
    url: child.url,
    secret: SECRET,
  });
  try {
    expect(registration.url).toBe(`${base}rest/v1/gateway/remote`);
    const answer = await post(`${registration.url}/eu?x=1`, {
      authorization: basic('ada', 'pw'),
      'x-gateway-secret': 'forged',
      'x-gateway-user': 'root',
      'x-custom': 'kept',
    });
    expect(answer.status).toBe(200);
    const attributes = answer.body.data[0]!.attributes;
    expect(attributes).toMatchObject({
      path: '/eu',
      queryString: 'x=1',
      authenticationMethod: 'gateway',
      authenticatedUser: 'ada',
      'x-custom': 'kept',
    });
    expect(JSON.stringify(attributes)).not.toContain(SECRET);
    expect(JSON.stringify(attributes)).not.toContain('x-gateway');
    expect((await post(registration.url, {})).status).toBe(401);
    // A body of several chunks streams through to the other process and back.
    const lines = Array.from({ length: 5_000 }, (_, n) => JSON.stringify({ n, pad: 'x'.repeat(80) }));
    const large = await post(registration.url, { authorization: basic('ada', 'pw') }, lines.join('\n'));
    expect(large.status).toBe(200);
    expect(large.body.data).toHaveLength(5_000);
  } finally {
    registration.unregister();
  }
  expect((await post(`${base}rest/v1/gateway/remote`, { authorization: basic('ada', 'pw') })).status).toBe(
    404,
  );
});

it('the origin refuses a request that does not carry the secret, and the gateway answers 502 when it is unreachable', async () => {
  const direct = await post(child.url, { 'x-gateway-secret': 'wrong', 'x-gateway-user': 'root' });
  expect(direct.status).toBe(403);
  expect(direct.body.errorMessage).toMatch(/^ORIGIN_GATEWAY_SECRET_INVALID - /);
  const registration = gateway.registerRemote({
    name: 'gone',
    api: 'public',
    pipeline: 'gone',
    url: 'http://127.0.0.1:1/',
    secret: SECRET,
  });
  try {
    const answer = await post(registration.url, {});
    expect(answer.status).toBe(502);
    expect(answer.body.errorMessage).toMatch(/^ORIGIN_GATEWAY_UPSTREAM_FAILED - /);
  } finally {
    registration.unregister();
  }
  const taken = (() => {
    const first = gateway.registerRemote({
      name: 'twice',
      api: 'public',
      pipeline: 'p',
      url: child.url,
      secret: SECRET,
    });
    try {
      gateway.registerRemote({ name: 'twice', api: 'public', pipeline: 'p', url: child.url, secret: SECRET });
      return undefined;
    } catch (error) {
      return error;
    } finally {
      first.unregister();
    }
  })();
  expect(isOriginError(taken, 'ORIGIN_GATEWAY_SERVICE_TAKEN')).toBe(true);
});

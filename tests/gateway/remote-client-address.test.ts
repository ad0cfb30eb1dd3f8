import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { Gateway } from 'rest-service-origin';

// A gateway forwarding to an origin in another process is a proxy: it appends the client's address to
// X-Forwarded-For, and the origin, trusting the gateway's address, sees the client.
const SECRET = 'registration-secret-77aa';
let origin: ChildProcess;
let originUrl = '';
let gateway: Gateway;
const fromSecondLoopback = new Agent({ localAddress: '127.0.0.2' });

beforeAll(async () => {
  origin = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      join(__dirname, 'remote-origin-process.ts'),
      'remote',
      SECRET,
      JSON.stringify({ http: { trustedProxies: ['127.0.0.1'] } }),
    ],
    { cwd: join(__dirname, '..', '..'), stdio: ['ignore', 'pipe', 'inherit'] },
  );
  let out = '';
  while (!/listening at (\S+)/.test(out)) {
    if (origin.exitCode !== null) throw new Error('the origin process exited');
    const [chunk] = (await once(origin.stdout!, 'data')) as [Buffer];
    out += chunk.toString();
  }
  originUrl = /listening at (\S+)/.exec(out)![1]!;
  gateway = new Gateway({ port: 0, host: '127.0.0.1' });
  await gateway.start();
}, 60_000);

afterAll(async () => {
  await gateway.close();
  await fromSecondLoopback.close();
  origin.kill('SIGTERM');
  if (origin.exitCode === null) await once(origin, 'exit');
});

it('gives a remote origin that trusts the gateway the client address through X-Forwarded-For', async () => {
  const registration = gateway.registerRemote({
    name: 'remote',
    api: 'public',
    pipeline: 'remote',
    url: originUrl,
    secret: SECRET,
  });
  try {
    const attributesOf = async (headers: Record<string, string>) => {
      const answer = await request(registration.url, {
        method: 'POST',
        headers: { 'x-requested-by': 't', ...headers },
        body: '{"a":1}',
        dispatcher: fromSecondLoopback,
      });
      const body = (await answer.body.json()) as { data: { attributes: Record<string, string> }[] };
      return body.data[0]!.attributes;
    };
    expect(await attributesOf({})).toMatchObject({ remoteHost: '127.0.0.2', 'x-forwarded-for': '127.0.0.2' });
    // A hop the client wrote itself stays at the left, where the origin does not look.
    expect(await attributesOf({ 'x-forwarded-for': '203.0.113.9' })).toMatchObject({
      remoteHost: '127.0.0.2',
      'x-forwarded-for': '203.0.113.9, 127.0.0.2',
    });
  } finally {
    registration.unregister();
  }
});

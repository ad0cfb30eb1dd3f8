import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { Gateway } from 'rest-service-origin';
import { curlHttps } from '../tls/https-client';
import { makeTlsMaterial, type TlsMaterial } from '../tls/tls-material';
import { ListAuthenticator } from './test-authenticator';

// Spec §2.4: the gateway's TLS secures client → gateway; the origin's own TLS options secure only gateway → origin.
const SECRET = 'tls-registration-secret';
let material: TlsMaterial;
let child: ChildProcess | undefined;
let originUrl = '';
let gateway: Gateway;

beforeAll(async () => {
  material = makeTlsMaterial();
  const tls = { useTls: true, keystoreType: 'pem', keystoreFile: material.files.pemKeystore };
  const extra = JSON.stringify({ tls, general: { resourcesDirectory: material.dir } });
  child = spawn(
    process.execPath,
    ['--import', 'tsx', join(__dirname, 'remote-origin-process.ts'), 'secure-orders', SECRET, extra],
    { cwd: join(__dirname, '..', '..'), stdio: ['ignore', 'pipe', 'inherit'] },
  );
  let out = '';
  while (!/listening at (\S+)/.test(out)) {
    if (child.exitCode !== null) throw new Error('the origin process exited');
    const [chunk] = (await once(child.stdout!, 'data')) as [Buffer];
    out += chunk.toString();
  }
  originUrl = /listening at (\S+)/.exec(out)![1]!;
  gateway = new Gateway({
    port: 0,
    host: '127.0.0.1',
    tls: { cert: material.serverCertPem, key: material.serverKeyPem },
    authenticator: new ListAuthenticator([{ name: 'ada', password: 'pw', roles: ['manager'] }]),
  });
  await gateway.start();
}, 60_000);

afterAll(async () => {
  await gateway?.close();
  child?.kill('SIGTERM');
  if (child && child.exitCode === null) await once(child, 'exit');
  material.remove();
});

it('serves HTTPS to the client and reaches an HTTPS origin with its own TLS only between gateway and origin', async () => {
  expect(originUrl).toMatch(/^https:/);
  const registration = gateway.registerRemote({
    name: 'secure-orders',
    api: 'secure',
    pipeline: 'secure-orders',
    url: originUrl,
    secret: SECRET,
    connect: { ca: material.caPem },
  });
  try {
    expect(registration.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+\/rest\/v1\/gateway\/secure-orders$/);
    const answer = await curlHttps(`${registration.url}/eu`, material, {
      body: '{"a":1}',
      extraArgs: ['-u', 'ada:pw', '-H', 'X-Requested-By: curl'],
    });
    const [text = '', status] = answer.stdout.split('\n');
    expect(status).toBe('200');
    const body = JSON.parse(text) as { data: { a: number; attributes: Record<string, string> }[] };
    expect(body.data[0]).toMatchObject({ a: 1, attributes: { path: '/eu', authenticatedUser: 'ada' } });
    // Plain HTTP to the origin's TLS port is refused by the origin's TLS, not served.
    const plain = await curlHttps(originUrl.replace('https:', 'http:'), material, { body: '{}' });
    expect(plain.stdout).not.toMatch(/\n200$/);
  } finally {
    registration.unregister();
  }
}, 60_000);

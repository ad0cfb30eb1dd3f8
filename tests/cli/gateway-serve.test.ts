import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { curlHttps } from '../tls/https-client';
import { makeTlsMaterial, type TlsMaterial } from '../tls/tls-material';

const root = join(__dirname, '..', '..');
const cli = join(root, 'src', 'cli', 'main.ts');
let dir: string;
let material: TlsMaterial;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'rest-origin-gateway-cli-'));
  material = makeTlsMaterial();
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
  material.remove();
});

function startCli(args: string[]) {
  const child = spawn(process.execPath, ['--import', 'tsx', cli, ...args], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return { child, output: () => ({ stdout, stderr }) };
}

function serviceConfig(name: string): string {
  return JSON.stringify({
    general: { name: `${name}-stage` },
    http: { useApiGateway: true, gatewayServiceName: name },
    dataFormat: { format: 'json' },
    pipeline: { runnerIdleTimeMs: 0 },
  });
}

it('serves two origins through one HTTPS gateway (JSON and YAML files) and closes all on SIGTERM', async () => {
  writeFileSync(join(dir, 'server.pem'), material.serverCertPem);
  writeFileSync(join(dir, 'server.key'), material.serverKeyPem);
  writeFileSync(
    join(dir, 'gateway.yaml'),
    'port: 0\nhost: 127.0.0.1\ntls:\n  certificateFile: server.pem\n  keyFile: server.key\nsecureApiRoles: managed\n',
  );
  writeFileSync(join(dir, 'orders.json'), serviceConfig('orders'));
  writeFileSync(
    join(dir, 'audit.yaml'),
    'http:\n  useApiGateway: true\n  gatewayServiceName: audit\ndataFormat:\n  format: json\npipeline:\n  runnerIdleTimeMs: 0\n',
  );
  const { child, output } = startCli([
    'serve',
    '--gateway',
    join(dir, 'gateway.yaml'),
    '--config',
    join(dir, 'orders.json'),
    '--config',
    join(dir, 'audit.yaml'),
  ]);
  while ((output().stdout.match(/listening at/g) ?? []).length < 3) {
    if (child.exitCode !== null) throw new Error(`CLI exited: ${output().stderr}`);
    await once(child.stdout, 'data');
  }
  const base = /gateway listening at (\S+)/.exec(output().stdout)![1]!;
  expect(base).toMatch(/^https:\/\/127\.0\.0\.1:\d+\/$/);
  expect(output().stdout).toContain(`'orders-stage' listening at ${base}public-rest/v1/gateway/orders\n`);
  for (const service of ['orders', 'audit']) {
    const answer = await curlHttps(`${base}public-rest/v1/gateway/${service}/x`, material, {
      body: '{"a":1}',
      extraArgs: ['-H', 'X-Requested-By: curl'],
    });
    expect(answer.stdout).toBe('{"httpStatusCode":200,"data":[{"a":1}],"error":[],"errorMessage":null}\n200');
  }
  const missing = await curlHttps(`${base}public-rest/v1/gateway/orders`, material, { body: '{}' });
  expect(missing.stdout).toMatch(/ORIGIN_GATEWAY_REQUESTED_BY_MISSING[^\n]*\n400$/);
  child.kill('SIGTERM');
  const [code] = await once(child, 'exit');
  expect(code).toBe(0);
}, 60_000);

it('reports every problem of a gateway file and exits 1 before anything listens', async () => {
  writeFileSync(
    join(dir, 'bad-gateway.json'),
    JSON.stringify({ port: 'x', authenticator: { kind: 'kerberos' }, secureApiRoles: 'boss', extra: 1 }),
  );
  writeFileSync(join(dir, 'one.json'), serviceConfig('one'));
  const { child, output } = startCli([
    'serve',
    '--gateway',
    join(dir, 'bad-gateway.json'),
    '--config',
    join(dir, 'one.json'),
  ]);
  const [code] = await once(child, 'exit');
  expect(code).toBe(1);
  const { stderr, stdout } = output();
  expect(stdout).not.toContain('listening');
  for (const path of ['/extra', '/port', '/authenticator/kind', '/secureApiRoles'])
    expect(stderr).toContain(`  ${path} `);
});

it('fails clearly when two config files take the same service name', async () => {
  writeFileSync(join(dir, 'plain-gateway.json'), JSON.stringify({ port: 0, host: '127.0.0.1' }));
  writeFileSync(join(dir, 'twin.json'), serviceConfig('twin'));
  const { child, output } = startCli([
    'serve',
    '--gateway',
    join(dir, 'plain-gateway.json'),
    '--config',
    join(dir, 'twin.json'),
    '--config',
    join(dir, 'twin.json'),
  ]);
  const [code] = await once(child, 'exit');
  expect(code).toBe(1);
  expect(output().stderr).toContain("Gateway service name 'twin' is already registered");
});

it('refuses several --config files without --gateway', async () => {
  const { child, output } = startCli(['serve', '--config', 'a.json', '--config', 'b.json']);
  const [code] = await once(child, 'exit');
  expect(code).toBe(2);
  expect(output().stderr).toContain('rest-origin serve --gateway <gateway-file>');
});

it('authenticates secure services with the file realm named in the gateway file', async () => {
  const { hashPassword } = await import('rest-service-origin');
  const hash = await hashPassword('cli-secret', { N: 1024, r: 8, p: 1 });
  writeFileSync(
    join(dir, 'secure-gateway.json'),
    JSON.stringify({
      port: 0,
      host: '127.0.0.1',
      authenticator: { kind: 'file', users: [{ user: 'ada', hash, roles: ['admin'] }] },
    }),
  );
  writeFileSync(
    join(dir, 'secure.json'),
    JSON.stringify({
      http: { useApiGateway: true, gatewayServiceName: 'secure', requireGatewayAuthentication: true },
      dataFormat: { format: 'json' },
      pipeline: { runnerIdleTimeMs: 0 },
    }),
  );
  const { child, output } = startCli([
    'serve',
    '--gateway',
    join(dir, 'secure-gateway.json'),
    '--config',
    join(dir, 'secure.json'),
  ]);
  while ((output().stdout.match(/listening at/g) ?? []).length < 2) {
    if (child.exitCode !== null) throw new Error(`CLI exited: ${output().stderr}`);
    await once(child.stdout, 'data');
  }
  const url = /listening at (\S+\/rest\/v1\/gateway\/secure)\n/.exec(output().stdout)![1]!;
  expect(url).toMatch(/\/rest\/v1\/gateway\/secure$/);
  const headers = { 'x-requested-by': 'cli' };
  const anonymous = await request(url, { method: 'POST', headers, body: '{}' });
  await anonymous.body.dump();
  expect(anonymous.statusCode).toBe(401);
  const authorization = `Basic ${Buffer.from('ada:cli-secret').toString('base64')}`;
  const good = await request(url, {
    method: 'POST',
    headers: { ...headers, authorization },
    body: '{"a":1}',
  });
  expect(await good.body.text()).toBe(
    '{"httpStatusCode":200,"data":[{"a":1}],"error":[],"errorMessage":null}',
  );
  // A wrong password and an unknown user meet the same 401 and challenge as no credentials at all.
  for (const credentials of ['ada:wrong-secret', 'nobody:cli-secret']) {
    const refused = await request(url, {
      method: 'POST',
      headers: { ...headers, authorization: `Basic ${Buffer.from(credentials).toString('base64')}` },
      body: '{}',
    });
    await refused.body.dump();
    expect(refused.statusCode).toBe(401);
    expect(refused.headers['www-authenticate']).toMatch(/^Basic realm=/);
  }
  child.kill('SIGTERM');
  const [code] = await once(child, 'exit');
  expect(code).toBe(0);
}, 60_000);

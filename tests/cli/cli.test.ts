import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';

const root = join(__dirname, '..', '..');
const cli = join(root, 'src', 'cli', 'main.ts');
let dir: string;
beforeAll(() => (dir = mkdtempSync(join(tmpdir(), 'rest-origin-cli-'))));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

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

it('serves a config file with the echo pipeline and closes gracefully on SIGTERM', async () => {
  const config = join(dir, 'config.json');
  writeFileSync(
    config,
    JSON.stringify({
      http: { host: '127.0.0.1' },
      dataFormat: { format: 'json' },
      pipeline: { runnerIdleTimeMs: 0 },
    }),
  );
  const { child, output } = startCli(['serve', '--config', config, '--port', '0']);
  while (!/listening at (\S+)/.test(output().stdout)) {
    if (child.exitCode !== null) throw new Error(`CLI exited: ${output().stderr}`);
    await once(child.stdout, 'data');
  }
  const url = /listening at (\S+)/.exec(output().stdout)![1]!;
  const answer = await request(new URL('orders', url), { method: 'POST', body: '{"a":1}' });
  expect(await answer.body.text()).toBe(
    '{"httpStatusCode":200,"data":[{"a":1}],"error":[],"errorMessage":null}',
  );
  child.kill('SIGTERM');
  const [code] = await once(child, 'exit');
  expect(code).toBe(0);
  expect(output().stdout).toContain(
    'rest-origin: TLS off, mutual TLS off, authentication none, application IDs none\n',
  );
  expect(output().stdout).toContain('SIGTERM received, closing');
});

async function exitOf(args: string[]) {
  const { child, output } = startCli(args);
  const [code] = await once(child, 'exit');
  return { code: code as number, ...output() };
}

it('serves a YAML config file', async () => {
  const config = join(dir, 'config.yaml');
  writeFileSync(
    config,
    [
      '# the echo origin',
      'http:',
      '  host: 127.0.0.1',
      'dataFormat:',
      '  format: json',
      'pipeline:',
      '  runnerIdleTimeMs: 0',
      '',
    ].join('\n'),
  );
  const { child, output } = startCli(['serve', '--config', config, '--port', '0']);
  while (!/listening at (\S+)/.test(output().stdout)) {
    if (child.exitCode !== null) throw new Error(`CLI exited: ${output().stderr}`);
    await once(child.stdout, 'data');
  }
  const url = /listening at (\S+)/.exec(output().stdout)![1]!;
  const answer = await request(new URL('orders', url), { method: 'POST', body: '{"a":1}' });
  expect(answer.statusCode).toBe(200);
  await answer.body.text();
  child.kill('SIGTERM');
  await once(child, 'exit');
});

describe('rest-origin validate', () => {
  it('prints every problem with its path and exits 1', async () => {
    const config = join(dir, 'broken.json');
    writeFileSync(
      config,
      JSON.stringify({
        $schema: './node_modules/rest-service-origin/config.schema.json',
        http: { port: 70000, maxConcurrentRequests: 0 },
        dataFormat: { format: 'jsonn' },
        pipeline: { runnerIdleTimeMs: 'soon' },
      }),
    );
    const { code, stdout, stderr } = await exitOf(['validate', '--config', config]);
    expect(code).toBe(1);
    expect(stdout).toBe('');
    expect(stderr).toContain(`${config} has 4 problems:`);
    expect(stderr).toContain('  /pipeline/runnerIdleTimeMs must be integer');
    expect(stderr).toContain('  /http/port must be <= 65535');
    expect(stderr).toContain('  /dataFormat/format must be one of');
  });

  it('lists the origin config problems of a file whose pipeline part is right', async () => {
    const config = join(dir, 'broken-origin.yml');
    writeFileSync(config, 'http:\n  port: 70000\n  maxConcurrentRequests: 0\ndataFormat:\n  format: jsonn\n');
    const { code, stderr } = await exitOf(['validate', '--config', config]);
    expect(code).toBe(1);
    expect(stderr).toContain(`${config} has 3 problems:`);
    expect(stderr).toContain('  /http/port must be <= 65535');
    expect(stderr).toContain('  /http/maxConcurrentRequests must be >= 1');
    expect(stderr).toContain('  /dataFormat/format must be one of');
  });

  it('says where a file is not valid YAML or JSON', async () => {
    const yaml = join(dir, 'bad-syntax.yaml');
    writeFileSync(yaml, 'http:\n  port: [8000\n');
    const fromYaml = await exitOf(['validate', '--config', yaml]);
    expect(fromYaml.code).toBe(1);
    expect(fromYaml.stderr).toMatch(/the config file is not valid YAML at line \d+, column \d+/);
    const json = join(dir, 'bad-syntax.json');
    writeFileSync(json, '{"http": {"port": 8000,}}');
    const fromJson = await exitOf(['validate', '--config', json]);
    expect(fromJson.code).toBe(1);
    expect(fromJson.stderr).toContain('the config file is not valid JSON');
  });

  it('accepts a valid file, $schema included, and says what it serves', async () => {
    const config = join(dir, 'valid.json');
    writeFileSync(
      config,
      JSON.stringify({
        $schema: './node_modules/rest-service-origin/config.schema.json',
        general: { name: 'orders' },
        http: { port: 9100 },
        dataFormat: { format: 'delimited' },
      }),
    );
    const { code, stdout } = await exitOf(['validate', '--config', config]);
    expect(code).toBe(0);
    expect(stdout).toContain("valid ('orders', delimited on every address:9100)");
  });
});

describe('rest-origin describe', () => {
  it('says in plain words how a config serves, without its secrets', async () => {
    const config = join(dir, 'describe.yaml');
    writeFileSync(
      config,
      [
        'general: { name: orders }',
        'http: { port: 8443, applicationIds: [shop, billing], maxRecordsPerRequest: 5000 }',
        'tls:',
        '  useTls: true',
        '  keystoreFile: server.pem',
        '  basicAuthenticationUsers: [{ user: alice, password: hunter2-secret }]',
        'dataFormat: { format: delimited }',
        '',
      ].join('\n'),
    );
    const { code, stdout, stderr } = await exitOf(['describe', '--config', config]);
    expect(code).toBe(0);
    expect(stdout).toMatch(/endpoint: +https:\/\/0\.0\.0\.0:8443\/ \(every address\)/);
    expect(stdout).toMatch(/authentication: +HTTP Basic over TLS \(1 user, realm 'orders'\)/);
    expect(stdout).toMatch(/application IDs: +2 IDs, in the X-ENGINE-APPLICATION-ID header/);
    expect(stdout).toContain('5,000 records per request');
    expect(stdout).toMatch(/format: +delimited/);
    expect(stdout + stderr).not.toContain('hunter2-secret');
  });

  it('names the options a config sets but the precedence ignores', async () => {
    const config = join(dir, 'describe-ignored.json');
    writeFileSync(
      config,
      JSON.stringify({
        tls: { basicAuthenticationUsers: [{ user: 'bob', password: 'pw' }] },
        dataFormat: { format: 'json' },
      }),
    );
    const { code, stdout } = await exitOf(['describe', '--config', config]);
    expect(code).toBe(0);
    expect(stdout).toMatch(/authentication: +none/);
    expect(stdout).toMatch(/ignored: +.*basicAuthenticationUsers/);
  });
});

it('explains a bad config and exits non-zero', async () => {
  const config = join(dir, 'bad.json');
  writeFileSync(config, JSON.stringify({ http: { port: 70000 } }));
  const { child, output } = startCli(['serve', '--config', config]);
  const [code] = await once(child, 'exit');
  expect(code).toBe(1);
  expect(output().stderr).toContain('/http/port');
  expect(output().stderr).toContain('/dataFormat');
});

it('prints its usage for a wrong command line', async () => {
  const { child, output } = startCli(['bogus']);
  const [code] = await once(child, 'exit');
  expect(code).toBe(2);
  expect(output().stderr).toContain('rest-origin serve --config <file>');
});

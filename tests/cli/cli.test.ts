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
  expect(output().stderr).toContain('Usage: rest-origin serve');
});

import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeTlsMaterial, type TlsMaterial } from '../tls/tls-material';

// examples/https-basic-auth/config.json, served by the rest-origin command as the example's README does, with a
// certificate made here, an ephemeral port, and the example's users and application ID as written.
const root = join(__dirname, '..', '..');
const example = join(root, 'examples', 'https-basic-auth', 'config.json');
let material: TlsMaterial;

beforeAll(() => {
  material = makeTlsMaterial();
  copyFileSync(material.path(material.files.pemKeystore), material.path('server-keystore.pem'));
});
afterAll(() => material.remove());

function curl(url: string, args: readonly string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      'curl',
      ['--silent', '--show-error', '--cacert', material.path('ca.pem'), '-w', '\n%{http_code}', ...args, url],
      (error, stdout, stderr) => (error ? reject(new Error(stderr)) : resolve(stdout)),
    );
  });
}

it('serves HTTPS to the configured users only, then checks the application ID', async () => {
  const config = JSON.parse(readFileSync(example, 'utf8')) as {
    general: Record<string, unknown>;
    http: Record<string, unknown>;
  };
  config.general.resourcesDirectory = material.dir;
  config.http.host = '127.0.0.1';
  const file = material.path('config.json');
  writeFileSync(file, JSON.stringify(config));
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', join(root, 'src', 'cli', 'main.ts'), 'serve', '--config', file, '--port', '0'],
    {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stdout = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  try {
    while (!/application IDs/.test(stdout)) {
      if (child.exitCode !== null) throw new Error('the example did not start');
      await once(child.stdout, 'data');
    }
    expect(stdout).toContain(
      'rest-origin: TLS on, mutual TLS off, authentication basic, application IDs in the header',
    );
    const port = /listening at https:\/\/[^:]+:(\d+)\//.exec(stdout)![1]!;
    const url = `https://localhost:${port}/`;
    const appId = ['-H', 'X-ENGINE-APPLICATION-ID: orders-app'];
    expect(await curl(url, ['-u', 'shop:change-me-shop', ...appId, '-d', '{"hello":"basic"}'])).toBe(
      '{"httpStatusCode":200,"data":[{"hello":"basic"}],"error":[],"errorMessage":null}\n200',
    );
    expect(
      (await curl(url, ['-u', 'warehouse:change-me-warehouse', ...appId, '-d', '{}'])).endsWith('\n200'),
    ).toBe(true);
    expect((await curl(url, ['-u', 'shop:wrong', ...appId, '-d', '{}'])).endsWith('\n401')).toBe(true);
    expect((await curl(url, [...appId, '-d', '{}'])).endsWith('\n401')).toBe(true);
    expect((await curl(url, ['-u', 'shop:change-me-shop', '-d', '{}'])).endsWith('\n403')).toBe(true);
  } finally {
    child.kill('SIGTERM');
    await once(child, 'exit');
  }
});

import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { FileRealmAuthenticator } from 'rest-service-origin';

const root = join(__dirname, '..', '..');
const cli = join(root, 'src', 'cli', 'main.ts');
const PASSWORD = 'correct horse:battery-ä-5d1e';

/** Runs `rest-origin hash-password …` with `input` on its standard input. */
async function hashPassword(args: string[], input: string) {
  const child = spawn(process.execPath, ['--import', 'tsx', cli, 'hash-password', ...args], {
    cwd: root,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdin.end(input);
  const [code] = (await once(child, 'exit')) as [number];
  return { code, stdout, stderr };
}

function basic(user: string, password: string): string {
  return `Basic ${Buffer.from(`${user}:${password}`, 'utf8').toString('base64')}`;
}

it('prints a users-file entry whose hash the file realm accepts, and never the password', async () => {
  const { code, stdout, stderr } = await hashPassword(
    ['--user', 'alice', '--role', 'admin', '--role', 'manager'],
    `${PASSWORD}\nignored second line\n`,
  );
  expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
  const entry = JSON.parse(stdout) as { user: string; hash: string; roles: string[] };
  expect(entry).toEqual({
    user: 'alice',
    hash: expect.stringMatching(/^scrypt\$32768\$8\$1\$/),
    roles: ['admin', 'manager'],
  });
  expect(stdout).not.toContain(PASSWORD);
  const realm = await FileRealmAuthenticator.load({ users: [entry] });
  expect(await realm.authenticate({ headers: { authorization: basic('alice', PASSWORD) } })).toEqual({
    ok: true,
    user: { name: 'alice', roles: ['admin', 'manager'] },
  });
  expect(
    await realm.authenticate({ headers: { authorization: basic('alice', 'ignored second line') } }),
  ).toMatchObject({
    ok: false,
    reason: 'invalid',
  });
});

it('reads a password without a final newline, with CRLF, and defaults to no roles', async () => {
  for (const input of ['s3cret', 's3cret\r\n']) {
    const { code, stdout } = await hashPassword(['--user', 'bob'], input);
    expect(code).toBe(0);
    const entry = JSON.parse(stdout) as { user: string; hash: string; roles: string[] };
    expect(entry.roles).toEqual([]);
    const realm = await FileRealmAuthenticator.load({ users: [entry] });
    expect((await realm.authenticate({ headers: { authorization: basic('bob', 's3cret') } })).ok).toBe(true);
  }
});

it.each([
  [['--user', 'alice', '--password', PASSWORD], 'never from argv'],
  [['--user', 'alice', `--password=${PASSWORD}`], 'never from argv'],
  [['--user', 'alice', '-p', PASSWORD], 'never from argv'],
  [[], '--user <name> is required'],
  [['--user', 'a:b'], '--user <name> is required'],
  [['--user', 'alice', '--colour', 'red'], "Unknown option '--colour'"],
])('refuses %j with exit code 2 and prints no hash', async (args, message) => {
  const { code, stdout, stderr } = await hashPassword(args, `${PASSWORD}\n`);
  expect(code).toBe(2);
  expect(stdout).toBe('');
  expect(stderr).toContain(message);
  expect(stderr).not.toContain(PASSWORD);
});

it('refuses an empty password', async () => {
  const { code, stdout, stderr } = await hashPassword(['--user', 'alice'], '\n');
  expect({ code, stdout }).toEqual({ code: 2, stdout: '' });
  expect(stderr).toContain('no password given');
});

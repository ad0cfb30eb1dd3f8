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

/** Runs the command at a pseudo-terminal (util-linux `script`), typing each answer once its prompt shows. */
async function hashPasswordAtTerminal(answers: string[]) {
  const command = `'${process.execPath}' --import tsx '${cli}' hash-password --user carol`;
  const child = spawn('script', ['-qefc', command, '/dev/null'], {
    cwd: root,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = once(child, 'exit');
  for (const [index, prompt] of ['Password: ', 'Repeat password: '].entries()) {
    while (!output.includes(prompt)) {
      if (child.exitCode !== null) throw new Error(`hash-password exited: ${output}`);
      await once(child.stdout, 'data');
    }
    child.stdin.write(`${answers[index]}\r`);
  }
  const [code] = (await exited) as [number];
  return { code, output };
}

it('asks twice without echo at a terminal', async () => {
  const { code, output } = await hashPasswordAtTerminal([PASSWORD, PASSWORD]);
  expect(code).toBe(0);
  expect(output).not.toContain(PASSWORD);
  const entry = JSON.parse(/\{.*\}/.exec(output)![0]) as { user: string; hash: string; roles: string[] };
  const realm = await FileRealmAuthenticator.load({ users: [entry] });
  expect((await realm.authenticate({ headers: { authorization: basic('carol', PASSWORD) } })).ok).toBe(true);
});

it('refuses two different answers at a terminal', async () => {
  const { code, output } = await hashPasswordAtTerminal([PASSWORD, 'something else']);
  expect(code).toBe(2);
  expect(output).toContain('the two entries differ');
  expect(output).not.toContain('scrypt$');
});

import { createInterface } from 'node:readline';
import { Writable } from 'node:stream';
import { parseArgs } from 'node:util';
import { hashPassword } from '../gateway/file-realm-authenticator';

/** The command's line in the usage. */
export const HASH_PASSWORD_SYNOPSIS = '  rest-origin hash-password --user <name> [--role <role> …]';

/** The command's paragraph in the usage. */
export const HASH_PASSWORD_HELP = `hash-password
          Prints one entry of a gateway users file (docs/gateway-authentication.md) with a salted scrypt hash of
          a password read from standard input (its first line) or, at a terminal, asked twice without echo. The
          password is never taken from the command line, where other users of the machine could see it.`;

/** `rest-origin hash-password`: 0 and a users-file entry on stdout, or 2 and a message on stderr. */
export async function hashPasswordCommand(argv: readonly string[]): Promise<number> {
  if (argv.some((arg) => /^--?p(assword)?(=|$)/.test(arg))) {
    console.error('rest-origin hash-password: the password is read from stdin or a prompt, never from argv.');
    return 2;
  }
  let values: { user?: string; role?: string[] };
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: { user: { type: 'string' }, role: { type: 'string', multiple: true } },
    }));
  } catch (error) {
    console.error(
      `rest-origin hash-password: ${(error as Error).message}\nUsage:\n${HASH_PASSWORD_SYNOPSIS}`,
    );
    return 2;
  }
  const { user, role: roles = [] } = values;
  if (user === undefined || user === '' || user.includes(':')) {
    console.error('rest-origin hash-password: --user <name> is required (non-empty, without ":").');
    return 2;
  }
  const password = process.stdin.isTTY ? await promptTwice() : await firstLine(process.stdin);
  if (password === undefined || password === '') {
    console.error('rest-origin hash-password: no password given (or the two entries differ).');
    return 2;
  }
  console.log(JSON.stringify({ user, hash: await hashPassword(password), roles }));
  return 0;
}

/** The first line of a stream, without its line ending; the whole stream when it has no newline. */
async function firstLine(input: NodeJS.ReadableStream): Promise<string> {
  let text = '';
  for await (const chunk of input) {
    text += chunk.toString();
    if (text.includes('\n')) break;
  }
  return text.split(/\r?\n/)[0]!;
}

/** Asks for the password twice at the terminal with echo off; undefined when the two differ. */
async function promptTwice(): Promise<string | undefined> {
  const first = await prompt('Password: ');
  const second = await prompt('Repeat password: ');
  return first === second ? first : undefined;
}

function prompt(question: string): Promise<string> {
  let muted = false;
  const output = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      if (!muted) process.stderr.write(chunk);
      callback();
    },
  });
  const rl = createInterface({ input: process.stdin, output, terminal: true });
  return new Promise((resolve) => {
    rl.question(question, (answer) => {
      rl.close();
      process.stderr.write('\n');
      resolve(answer);
    });
    // Mute after the question is written, so the typed characters are not echoed.
    muted = true;
  });
}

// Packs the package as npm would publish it and checks the tarball with publint and are-the-types-wrong.
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';

const out = join(process.cwd(), '.tmp', 'pack');
rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
const run = (command, args) => execFileSync(command, args, { stdio: 'inherit' });

run('npm', ['run', 'build']);
const [packed] = JSON.parse(
  execFileSync('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', out], {
    encoding: 'utf8',
  }),
);
const tarball = join(out, packed.filename);
run('npx', ['publint', '--strict', tarball]);
// The CLI entry has no types on purpose (it is a bin, not an import); attw checks the library entry.
run('npx', ['attw', tarball, '--profile', 'node16']);
console.log(`package check passed: ${packed.filename}`);

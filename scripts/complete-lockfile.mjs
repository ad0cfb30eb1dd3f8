// Adds lockfile entries for optional platform packages (rollup, unrs-resolver bindings…) that the registry
// mirror of this workplace does not serve, so `npm install` leaves them out and `npm ci` then refuses the
// lockfile as out of sync. Each added entry carries the os/cpu/libc its name states, so npm skips it on every
// other platform exactly as it would with a complete lockfile. Run after `npm install` changes the lockfile:
//   node scripts/complete-lockfile.mjs
import { readFileSync, writeFileSync } from 'node:fs';

const OS = [
  'android',
  'darwin',
  'freebsd',
  'linux',
  'openbsd',
  'openharmony',
  'win32',
  'netbsd',
  'sunos',
  'aix',
];
const CPU = {
  arm: 'arm',
  arm64: 'arm64',
  x64: 'x64',
  ia32: 'ia32',
  loong64: 'loong64',
  ppc64: 'ppc64',
  riscv64: 'riscv64',
  s390x: 's390x',
};

function platformOf(name) {
  const tokens = name.split('/').pop().split('-');
  const os = tokens.find((t) => OS.includes(t));
  const cpu = tokens.map((t) => CPU[t]).find(Boolean);
  const libc =
    os === 'linux'
      ? tokens.some((t) => t.startsWith('musl'))
        ? 'musl'
        : tokens.some((t) => t.startsWith('gnu'))
          ? 'glibc'
          : undefined
      : undefined;
  return { os, cpu, libc };
}

const lock = JSON.parse(readFileSync('package-lock.json', 'utf8'));
let added = 0;
for (const [path, entry] of Object.entries(lock.packages)) {
  for (const [name, version] of Object.entries(entry.optionalDependencies ?? {})) {
    const where = `node_modules/${name}`;
    if (lock.packages[where] || lock.packages[`${path}/${where}`]) continue;
    const { os, cpu, libc } = platformOf(name);
    lock.packages[where] = {
      version,
      ...(cpu ? { cpu: [cpu] } : {}),
      ...(entry.dev ? { dev: true } : {}),
      ...(libc ? { libc: [libc] } : {}),
      optional: true,
      ...(os ? { os: [os] } : {}),
    };
    added++;
  }
}
lock.packages = Object.fromEntries(
  Object.entries(lock.packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a.localeCompare(b))),
);
writeFileSync('package-lock.json', `${JSON.stringify(lock, null, 2)}\n`);
console.log(`complete-lockfile: added ${added} optional platform entries`);

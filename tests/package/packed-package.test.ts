import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

// Packs the package as npm publishes it (prepack builds it) and imports it from an ESM and a CJS consumer. The
// consumer lives under the repository so that the package's own dependencies resolve from its node_modules.
const root = join(__dirname, '..', '..');
const scratch = join(root, '.tmp');
let consumer: string;

beforeAll(() => {
  mkdirSync(scratch, { recursive: true });
  consumer = mkdtempSync(join(scratch, 'consumer-'));
  execFileSync('npm', ['run', 'build'], { cwd: root, stdio: 'pipe' });
  const [packed] = JSON.parse(
    execFileSync('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', consumer], {
      cwd: root,
      encoding: 'utf8',
    }),
  ) as { filename: string }[];
  const installed = join(consumer, 'node_modules', 'rest-service-origin');
  mkdirSync(installed, { recursive: true });
  execFileSync('tar', ['-xzf', join(consumer, packed!.filename), '-C', installed, '--strip-components=1']);
}, 180_000);

afterAll(() => rmSync(consumer, { recursive: true, force: true }));

const program = (load: string): string => `${load}
const result = parseWhole(defaultRegistry.get('json'), { jsonContent: 'arrayOfObjects' }, Buffer.from('[{"a":1},{"b":[true,null]}]'));
const record = new DataRecord(result.records[0].value);
console.log(JSON.stringify({ values: result.records.map((r) => r.value), a: record.get('/a'), type: record.field('/a').type }));
`;

const expected = { values: [{ a: 1 }, { b: [true, null] }], a: 1, type: 'INTEGER' };

it('imports DataRecord, defaultRegistry and parseWhole from an ESM consumer of the packed tarball', () => {
  writeFileSync(
    join(consumer, 'esm.mjs'),
    program("import { DataRecord, defaultRegistry, parseWhole } from 'rest-service-origin';"),
  );
  const out = execFileSync(process.execPath, ['esm.mjs'], { cwd: consumer, encoding: 'utf8' });
  expect(JSON.parse(out)).toEqual(expected);
});

it('requires DataRecord, defaultRegistry and parseWhole from a CJS consumer of the packed tarball', () => {
  writeFileSync(
    join(consumer, 'cjs.cjs'),
    program("const { DataRecord, defaultRegistry, parseWhole } = require('rest-service-origin');"),
  );
  const out = execFileSync(process.execPath, ['cjs.cjs'], { cwd: consumer, encoding: 'utf8' });
  expect(JSON.parse(out)).toEqual(expected);
});

it('installs the rest-origin command', () => {
  const out = execFileSync(
    process.execPath,
    [join(consumer, 'node_modules', 'rest-service-origin', 'dist', 'cli.js'), '--help'],
    {
      encoding: 'utf8',
    },
  );
  expect(out).toContain('Usage: rest-origin serve --config <file.json>');
});

import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
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
  expect(out).toContain('rest-origin serve --config <file> [--port <port>]');
});

// `rest-service-origin/formats`: the formats without the origin. Both entries share one copy of the code (chunk
// files), so the registry a host fills through one is the registry the other sees.
const formatsProgram = (load: string): string => `${load}
const result = formats.parseWhole(formats.jsonFormat, { jsonContent: 'arrayOfObjects' }, Buffer.from('[{"a":1},{"b":2}]'));
console.log(JSON.stringify({
  values: result.records.map((r) => r.value),
  builtIns: formats.BUILT_IN_FORMATS.map((f) => f.name).sort(),
  registryIsShared: formats.defaultRegistry === root.defaultRegistry && formats.FormatRegistry === root.FormatRegistry,
  rootHasEveryFormatsExport: Object.keys(formats).every((name) => root[name] === formats[name]),
}));
`;

const formatsExpected = {
  values: [{ a: 1 }, { b: 2 }],
  builtIns: ['avro', 'binary', 'datagram', 'delimited', 'engineRecord', 'json', 'protobuf', 'xml'],
  registryIsShared: true,
  rootHasEveryFormatsExport: true,
};

it("imports rest-service-origin/formats from an ESM consumer, sharing the root entry point's registry", () => {
  writeFileSync(
    join(consumer, 'formats-esm.mjs'),
    formatsProgram(
      "import * as formats from 'rest-service-origin/formats';\nimport * as root from 'rest-service-origin';",
    ),
  );
  const out = execFileSync(process.execPath, ['formats-esm.mjs'], { cwd: consumer, encoding: 'utf8' });
  expect(JSON.parse(out)).toEqual(formatsExpected);
});

it("requires rest-service-origin/formats from a CJS consumer, sharing the root entry point's registry", () => {
  writeFileSync(
    join(consumer, 'formats-cjs.cjs'),
    formatsProgram(
      "const formats = require('rest-service-origin/formats');\nconst root = require('rest-service-origin');",
    ),
  );
  const out = execFileSync(process.execPath, ['formats-cjs.cjs'], { cwd: consumer, encoding: 'utf8' });
  expect(JSON.parse(out)).toEqual(formatsExpected);
});

// `rest-service-origin/testing`: an origin served in memory, from both module formats of the packed package.
const testingProgram = (load: string): string => `${load}
const test = createTestOrigin({ dataFormat: { format: 'json' } }, echoPipeline);
test.inject({ path: '/orders', body: '{"id":1}' }).then(async (answer) => {
  console.log(JSON.stringify({ status: answer.status, body: answer.json(), batches: answer.batches.length }));
  await test.close();
});
`;
const testingExpected = {
  status: 200,
  body: { httpStatusCode: 200, data: [{ id: 1 }], error: [], errorMessage: null },
  batches: 1,
};

it.each([
  [
    'an ESM',
    'testing-esm.mjs',
    "import { createTestOrigin } from 'rest-service-origin/testing';\nimport { echoPipeline } from 'rest-service-origin';",
  ],
  [
    'a CJS',
    'testing-cjs.cjs',
    "const { createTestOrigin } = require('rest-service-origin/testing');\nconst { echoPipeline } = require('rest-service-origin');",
  ],
])('injects a request through rest-service-origin/testing from %s consumer', (_kind, file, load) => {
  writeFileSync(join(consumer, file), testingProgram(load));
  const out = execFileSync(process.execPath, [file], { cwd: consumer, encoding: 'utf8' });
  expect(JSON.parse(out)).toEqual(testingExpected);
});

// TypedField and list-maps are branded with registered symbols, so that each build reads the other's records.
it('reads typed fields and list-maps made by the other module format', () => {
  writeFileSync(
    join(consumer, 'both-builds-records.mjs'),
    `import { createRequire } from 'node:module';
import * as esm from 'rest-service-origin';
const cjs = createRequire(import.meta.url)('rest-service-origin');
const fromCjs = cjs.listMapOf([['b', cjs.field('SHORT', 1)], ['10', 'x']]);
const fromEsm = esm.listMapOf([['z', 1], ['2', esm.field('DECIMAL', '1.50')]]);
console.log(JSON.stringify({
  typedField: esm.isTypedField(cjs.field('SHORT', 1)) && cjs.isTypedField(esm.field('SHORT', 1)),
  listMap: esm.isListMap(fromCjs) && cjs.isListMap(fromEsm),
  types: [esm.fieldTypeOf(fromCjs), cjs.fieldTypeOf(fromEsm)],
  keys: esm.listMapKeys(fromCjs),
  json: [esm.fieldValueToJson(fromCjs), cjs.fieldValueToJson(fromEsm)],
  path: new esm.DataRecord(fromCjs).get('[1]'),
}));
`,
  );
  const out = execFileSync(process.execPath, ['both-builds-records.mjs'], {
    cwd: consumer,
    encoding: 'utf8',
  });
  expect(JSON.parse(out)).toEqual({
    typedField: true,
    listMap: true,
    types: ['LIST_MAP', 'LIST_MAP'],
    keys: ['b', '10'],
    json: ['{"b":1,"10":"x"}', '{"z":1,"2":1.50}'],
    path: 'x',
  });
});

// A process can load both builds (an ESM host with a CJS plugin): each has its own OriginError class, and
// isOriginError of either recognises an error made by the other.
it('recognises an OriginError made by the other module format (dist/index.js and dist/index.cjs)', () => {
  writeFileSync(
    join(consumer, 'both-builds.mjs'),
    `import { createRequire } from 'node:module';
import * as esm from 'rest-service-origin';
const cjs = createRequire(import.meta.url)('rest-service-origin');
const fromEsm = new esm.ConfigError([{ path: '/http/port', message: 'must be <= 65535' }]);
const fromCjs = new cjs.OriginError('ORIGIN_APP_ID_MISSING');
console.log(JSON.stringify({
  twoClasses: esm.OriginError !== cjs.OriginError && !(fromCjs instanceof esm.OriginError),
  esmSeesCjs: esm.isOriginError(fromCjs),
  esmSeesCjsCode: esm.isOriginError(fromCjs, 'ORIGIN_APP_ID_MISSING'),
  esmRejectsOtherCode: esm.isOriginError(fromCjs, 'ORIGIN_CONFIG_INVALID'),
  cjsSeesEsm: cjs.isOriginError(fromEsm, 'ORIGIN_CONFIG_INVALID'),
  plainErrorIsNot: esm.isOriginError(new Error('x')) || cjs.isOriginError({ code: 'ORIGIN_APP_ID_MISSING' }),
}));
`,
  );
  const out = execFileSync(process.execPath, ['both-builds.mjs'], { cwd: consumer, encoding: 'utf8' });
  expect(JSON.parse(out)).toEqual({
    twoClasses: true,
    esmSeesCjs: true,
    esmSeesCjsCode: true,
    esmRejectsOtherCode: false,
    cjsSeesEsm: true,
    plainErrorIsNot: false,
  });
});

/** The package name of a bare import specifier (`ajv/dist/2020.js` → `ajv`, `@scope/pkg/x` → `@scope/pkg`). */
function packageOf(specifier: string): string {
  const parts = specifier.split('/');
  return (specifier.startsWith('@') ? parts.slice(0, 2) : parts.slice(0, 1)).join('/');
}

// `dependencies` (with `optionalDependencies`) is what an installation of the package downloads: exactly the packages its built code imports
// (statically, dynamically or by require), so nothing is missing and no test or build tool rides along.
it('declares as dependencies exactly the packages the built code imports', () => {
  const dist = join(consumer, 'node_modules', 'rest-service-origin', 'dist');
  const specifier = /(?:\bfrom\s*|\bimport\s*\(?\s*|\brequire\s*\(\s*)["']([^"'./][^"']*)["']/g;
  const imported = new Set<string>();
  for (const file of readdirSync(dist).filter((name) => /\.(c?js)$/.test(name))) {
    for (const match of readFileSync(join(dist, file), 'utf8').matchAll(specifier)) {
      const name = packageOf(match[1]!.replace(/^node:/, ''));
      if (!builtinModules.includes(name)) imported.add(name);
    }
  }
  const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
    dependencies?: Record<string, string>;
    optionalDependencies?: Record<string, string>;
  };
  // An optional dependency (the `kerberos` addon, imported only when SPNEGO is on) counts as declared.
  const declared = { ...manifest.dependencies, ...manifest.optionalDependencies };
  expect([...imported].sort()).toEqual(Object.keys(declared).sort());
});

import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const CHILD = join(__dirname, 'parse-fixture-child.ts');
const FIXTURES = join(__dirname, '..', '..', 'fixtures', 'formats', 'protobuf');

interface ChildOutput {
  readonly codeGeneration: boolean;
  readonly records: unknown[];
  readonly failures: { readonly code: string; readonly message: string }[];
}

/** What parse-fixture-child.ts prints for `fixture`, in a Node started with `flags`. */
function parseInChild(fixture: string, flags: string[]): ChildOutput {
  // The timeout only stops a hung child so that the test fails instead of hanging.
  const child = spawnSync(process.execPath, [...flags, '--import', 'tsx', CHILD, fixture], {
    cwd: resolve(__dirname, '../../..'),
    encoding: 'utf8',
    timeout: 30_000,
  });
  expect(child.error).toBeUndefined();
  expect(child.stderr).toBe('');
  expect(child.status).toBe(0);
  return JSON.parse(child.stdout) as ChildOutput;
}

describe('protobuf decoder without code generation from strings', () => {
  it.each(['delimited-several', 'delimited-bad-message'])(
    'reads the %s fixture as where code generation is allowed: the same records and failures',
    (fixture) => {
      const normal = parseInChild(fixture, []);
      const refused = parseInChild(fixture, ['--disallow-code-generation-from-strings']);
      expect([normal.codeGeneration, refused.codeGeneration]).toEqual([true, false]);
      expect(refused.records).toEqual(normal.records);
      expect(refused.failures).toEqual(normal.failures);
      const expected = JSON.parse(readFileSync(join(FIXTURES, `${fixture}.expected.json`), 'utf8')) as {
        records: unknown[];
        failures: unknown[];
      };
      expect(refused.records).toEqual(expected.records);
      expect(refused.failures).toEqual(expected.failures);
    },
  );
});

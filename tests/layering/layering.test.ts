import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

// `npm run check:layers` runs dependency-cruiser with .dependency-cruiser.cjs. These tests run the same command on
// the real tree (which must pass) and on a copy of src with one forbidden import per rule injected (each must be
// reported), so a rule that silently matched nothing would fail here.
const root = join(__dirname, '..', '..');
const depcruise = join(root, 'node_modules', 'dependency-cruiser', 'bin', 'dependency-cruise.mjs');
const config = join(root, '.dependency-cruiser.cjs');

interface Violation {
  readonly from: string;
  readonly to: string;
  readonly rule: { readonly name: string; readonly severity: string };
}

/** Runs dependency-cruiser on `cwd`/src as `npm run check:layers` does, with extra command-line options. */
function depcruiseIn(cwd: string, ...options: string[]): { status: number | null; stdout: string } {
  const run = spawnSync(process.execPath, [depcruise, 'src', '--config', config, ...options], {
    cwd,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  if (run.error) throw run.error;
  return { status: run.status, stdout: run.stdout };
}

/** The violations dependency-cruiser reports for `cwd`/src (its JSON output, which always exits 0). */
function violationsIn(cwd: string): Violation[] {
  const output = JSON.parse(depcruiseIn(cwd, '--output-type', 'json').stdout) as {
    summary: { violations: Violation[] };
  };
  return output.summary.violations;
}

it('finds no violation in the source tree, and exits 0', () => {
  expect(violationsIn(root)).toEqual([]);
  expect(depcruiseIn(root).status).toBe(0);
}, 60_000);

describe('a copy of the source tree with forbidden imports', () => {
  let copy: string;
  let violations: Violation[];

  /** Prepends `line` to `file` (a path under src/) in the copy. */
  function inject(file: string, line: string): void {
    const path = join(copy, file);
    writeFileSync(path, `${line}\n${readFileSync(path, 'utf8')}`);
  }

  beforeAll(() => {
    // Under the repository, so that packages resolve from its node_modules as they do for the real tree.
    const scratch = join(root, '.tmp');
    mkdirSync(scratch, { recursive: true });
    copy = mkdtempSync(join(scratch, 'layering-'));
    cpSync(join(root, 'src'), join(copy, 'src'), { recursive: true });
    for (const file of ['package.json', 'tsconfig.json']) cpSync(join(root, file), join(copy, file));

    inject('src/formats/json/json-parser.ts', "import type { OriginConfig } from '../../origin/config';");
    inject('src/formats/failure.ts', "import type { Batch } from '../pipeline/batch';");
    inject('src/formats/text-input.ts', "import { consumeDecodedBody } from '../http/body-reader';");
    inject('src/formats/pending-bytes.ts', "import { responseStatus } from '../response/status-rule';");
    inject(
      'src/pipeline/batch.ts',
      "import { BufferedResponseSink } from '../response/buffered-response-sink';",
    );
    inject('src/pipeline/runner-pool.ts', "import type { OriginConfig } from '../origin/config';");
    inject('src/pipeline/in-process-runner-pool.ts', "import type { Parser } from '../formats/data-format';");
    inject('src/response/status-rule.ts', "import type { OriginConfig } from '../origin/config';");
    inject('src/errors/config-error.ts', "import type { DataRecord } from '../record/data-record';");
    inject('src/record/field-path.ts', "import type { Parser } from '../formats/data-format';");
    inject('src/http/request-attributes.ts', "import { Origin } from '../origin/origin';");
    inject('src/origin/methods.ts', "import { echoPipeline } from '../cli/echo-pipeline';");
    inject('src/origin/admission.ts', "import { Origin } from '../index';");
    inject('src/formats/built-in.ts', "import { parseWhole } from './index';");
    inject('src/http/content-encoding.ts', "import fc from 'fast-check';");
    inject('src/tls/pem-blocks.ts', "import type { OriginConfig } from '../origin/config';");
    inject('src/auth/identity-attributes.ts', "import type { OriginConfig } from '../origin/config';");
    inject('src/gateway/roles.ts', "import type { OriginConfig } from '../origin/config';");
    inject('src/origin/in-flight.ts', "import { Gateway } from '../gateway/gateway';");
    // A circle of two new files.
    writeFileSync(
      join(copy, 'src/formats/ping.ts'),
      "import { pong } from './pong';\nexport const ping = () => pong;\n",
    );
    writeFileSync(
      join(copy, 'src/formats/pong.ts'),
      "import { ping } from './ping';\nexport const pong = () => ping;\n",
    );

    violations = violationsIn(copy);
  }, 60_000);

  afterAll(() => rmSync(copy, { recursive: true, force: true }));

  it('makes the check exit non-zero, naming the violations', () => {
    const run = depcruiseIn(copy);
    expect(run.status).not.toBe(0);
    expect(run.stdout).toContain('error formats-not-to-request-path: src/formats/json/json-parser.ts');
  }, 60_000);

  it.each([
    ['formats-not-to-request-path', 'src/formats/json/json-parser.ts', 'src/origin/config.ts'],
    ['formats-not-to-request-path', 'src/formats/failure.ts', 'src/pipeline/batch.ts'],
    ['formats-not-to-request-path', 'src/formats/text-input.ts', 'src/http/body-reader.ts'],
    ['formats-not-to-request-path', 'src/formats/pending-bytes.ts', 'src/response/status-rule.ts'],
    [
      'pipeline-imports-only-record-errors',
      'src/pipeline/batch.ts',
      'src/response/buffered-response-sink.ts',
    ],
    ['pipeline-imports-only-record-errors', 'src/pipeline/runner-pool.ts', 'src/origin/config.ts'],
    [
      'pipeline-imports-only-record-errors',
      'src/pipeline/in-process-runner-pool.ts',
      'src/formats/data-format.ts',
    ],
    ['response-not-to-origin', 'src/response/status-rule.ts', 'src/origin/config.ts'],
    ['errors-import-nothing', 'src/errors/config-error.ts', 'src/record/data-record.ts'],
    ['record-imports-only-errors', 'src/record/field-path.ts', 'src/formats/data-format.ts'],
    ['http-not-to-origin-pipeline-response', 'src/http/request-attributes.ts', 'src/origin/origin.ts'],
    ['origin-not-to-cli', 'src/origin/methods.ts', 'src/cli/echo-pipeline.ts'],
    ['nothing-imports-an-entry-point', 'src/origin/admission.ts', 'src/index.ts'],
    ['nothing-imports-an-entry-point', 'src/formats/built-in.ts', 'src/formats/index.ts'],
    ['runtime-not-to-dev-dependency', 'src/http/content-encoding.ts', 'fast-check'],
    ['tls-imports-only-errors', 'src/tls/pem-blocks.ts', 'src/origin/config.ts'],
    ['auth-imports-only-errors', 'src/auth/identity-attributes.ts', 'src/origin/config.ts'],
    ['gateway-through-origin-contract', 'src/gateway/roles.ts', 'src/origin/config.ts'],
    ['only-hosts-import-gateway', 'src/origin/in-flight.ts', 'src/gateway/gateway.ts'],
    ['no-circular', 'src/formats/ping.ts', 'src/formats/pong.ts'],
  ])('reports %s for %s → %s', (rule, from, to) => {
    expect(violations).toContainEqual(
      expect.objectContaining({
        from,
        rule: { name: rule, severity: 'error' },
        to: expect.stringContaining(to),
      }),
    );
  });
});

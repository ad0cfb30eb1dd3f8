/**
 * `npm run fuzz`: the long fuzz run. The same properties as `tests/fuzz` (the parser contract for every parser, and
 * the HTTP rule for fuzzed requests to running origins), for minutes instead of seconds.
 *
 *   npm run fuzz -- [--minutes 5] [--seed <n>] [--target <name>[,<name>…]] [--path <fast-check path>] [--no-http]
 *
 * Env `FUZZ_MINUTES` and `FUZZ_SEED` work too. The time is shared out evenly over the targets (each parser, then
 * HTTP). Each target's seed is printed before it runs; a failure prints fast-check's report (seed and path) and the
 * line that replays it, and saves the shrunk input under `.tmp/fuzz-failures/` with its chunking, ready to become a
 * regression fixture (tests/fuzz/regressions). A parser that hangs (no new input for {@link HANG_MS}) is stopped
 * and the input it hung on is saved the same way. Exit status 1 when anything failed.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import fc from 'fast-check';
import {
  FUZZED_ORIGINS,
  checkAnswer,
  exchange,
  fuzzRequests,
  requestBytes,
  startFuzzedOrigin,
} from '../tests/fuzz/http-fuzz';
import { loadFuzzTargets } from '../tests/fuzz/fuzz-targets';
import type { WorkerInput, WorkerResult } from './fuzz-worker';

const ROOT = fileURLToPath(new URL('../tests/fixtures/formats', import.meta.url));
const OUT = fileURLToPath(new URL('../.tmp/fuzz-failures', import.meta.url));
/** No new input for this long means the parser is stuck on the current one. */
const HANG_MS = 60_000;
/** How long a worker may take to load before its first input. */
const STARTUP_MS = 300_000;
/** The shared memory starts with two Int32: the heartbeat (inputs started) and the current body's length. */
const SHARED_HEADER_BYTES = 8;
/** Largest body the hang report can show. */
const SHARED_BODY_BYTES = 4 << 20;

interface Options {
  minutes: number;
  seed: number;
  targets: string[] | undefined;
  path: string | undefined;
  http: boolean;
}

function options(argv: readonly string[]): Options {
  const value = (name: string): string | undefined => {
    const at = argv.indexOf(`--${name}`);
    return at === -1 ? undefined : argv[at + 1];
  };
  const minutes = Number(value('minutes') ?? process.env.FUZZ_MINUTES ?? 5);
  const seed = Number(value('seed') ?? process.env.FUZZ_SEED ?? (Date.now() ^ (Math.random() * 2 ** 31)) | 0);
  if (!(minutes > 0) || !Number.isInteger(seed))
    throw new Error('usage: --minutes <positive number> --seed <integer>');
  return {
    minutes,
    seed,
    targets: value('target')?.split(','),
    path: value('path'),
    http: !argv.includes('--no-http'),
  };
}

interface Outcome {
  readonly name: string;
  readonly runs: number;
  readonly failed: boolean;
  readonly detail: string;
}

/** Runs one parser target in a worker, watching its heartbeat. */
function fuzzParser(
  target: string,
  seed: number,
  path: string | undefined,
  ms: number,
): Promise<Outcome & { result?: WorkerResult }> {
  const shared = new SharedArrayBuffer(SHARED_HEADER_BYTES + SHARED_BODY_BYTES);
  const heartbeat = new Int32Array(shared, 0, 2);
  const data: WorkerInput = { root: ROOT, target, seed, path, ms, shared };
  const worker = new Worker(new URL('./fuzz-worker.mjs', import.meta.url), { workerData: data });
  return new Promise((resolve) => {
    let seen = -1;
    let still = 0;
    const watch = setInterval(() => {
      const beat = Atomics.load(heartbeat, 0);
      if (beat !== seen) {
        seen = beat;
        still = 0;
        return;
      }
      still += 1000;
      // Before the first input the worker is still loading (compiling TypeScript on a busy machine can be slow).
      if (still < (beat === 0 ? STARTUP_MS : HANG_MS)) return;
      clearInterval(watch);
      const length = Atomics.load(heartbeat, 1);
      const body = Buffer.from(new Uint8Array(shared, SHARED_HEADER_BYTES, length));
      void worker.terminate();
      const file = save(`${target}-hang-${seed}`, body, { target, hangAfterInputs: beat });
      resolve({ name: target, runs: beat, failed: true, detail: `HUNG on input #${beat}, saved as ${file}` });
    }, 1000);
    worker.once('message', (result: WorkerResult) => {
      clearInterval(watch);
      let detail = `max per input byte (inputs of 256 bytes or more): ${result.maxOutputsPerByte.toFixed(2)} records+failures, ${result.maxNodesPerByte.toFixed(1)} nodes, ${result.maxBytesPerByte.toFixed(1)} bytes held; ${(result.bytesTried / 1e6).toFixed(1)} MB tried`;
      if (result.failed) {
        const c = result.counterexample;
        const file = c
          ? save(`${target}-${seed}`, Buffer.from(c.body, 'base64'), {
              target,
              seed: c.seedName,
              cuts: c.cuts,
            })
          : '';
        detail = `${result.report}\nshrunk input saved as ${file}\nreplay: npm run fuzz -- --target ${target} --seed ${seed} --path <path above>`;
      }
      resolve({ name: target, runs: result.runs, failed: result.failed, detail, result });
    });
    worker.once('error', (error) => {
      clearInterval(watch);
      resolve({
        name: target,
        runs: Atomics.load(heartbeat, 0),
        failed: true,
        detail: `the worker died: ${error.stack ?? String(error)}`,
      });
    });
  });
}

/** Writes a failing input and how to replay it; returns the input's path. */
function save(name: string, body: Buffer, about: Record<string, unknown>): string {
  mkdirSync(OUT, { recursive: true });
  const file = join(OUT, `${name}.bin`);
  writeFileSync(file, body);
  writeFileSync(
    join(OUT, `${name}.json`),
    `${JSON.stringify({ input: `${name}.bin`, ...about }, null, 2)}\n`,
  );
  return file;
}

/** Fuzzes one origin over HTTP for `ms`. */
async function fuzzHttp(index: number, seed: number, path: string | undefined, ms: number): Promise<Outcome> {
  const fuzzed = FUZZED_ORIGINS[index];
  const target = loadFuzzTargets(ROOT).find((t) => t.name === fuzzed?.target);
  if (!fuzzed || !target) throw new Error(`no HTTP fuzz origin ${index}`);
  const running = await startFuzzedOrigin(fuzzed.config);
  const statuses = new Map<number, number>();
  try {
    const details = await fc.check(
      fc.asyncProperty(fuzzRequests(target), async (request) => {
        const answer = await exchange(running.port, requestBytes(target, request));
        statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
        checkAnswer(request.method, answer);
      }),
      {
        seed,
        path,
        numRuns: path === undefined ? Number.MAX_SAFE_INTEGER : 1,
        interruptAfterTimeLimit: ms,
        markInterruptAsFailure: false,
      },
    );
    const seen = [...statuses]
      .sort(([a], [b]) => a - b)
      .map(([s, n]) => `${s}×${n}`)
      .join(' ');
    const name = `http ${fuzzed.target}`;
    return {
      name,
      runs: details.numRuns,
      failed: details.failed,
      detail: details.failed
        ? `${fc.defaultReportMessage(details) ?? 'failed'}\nreplay: npm run fuzz -- --target "${name}" --seed ${seed} --path <path above>`
        : `statuses: ${seen}`,
    };
  } finally {
    await running.stop();
  }
}

async function main(): Promise<void> {
  const opts = options(process.argv.slice(2));
  const parserNames = loadFuzzTargets(ROOT).map((t) => t.name);
  const httpNames = opts.http ? FUZZED_ORIGINS.map((o) => `http ${o.target}`) : [];
  const all = [...parserNames, ...httpNames];
  const chosen = opts.targets ? all.filter((n) => opts.targets?.includes(n)) : all;
  if (chosen.length === 0) throw new Error(`no such target; targets: ${all.join(', ')}`);
  const ms = (opts.minutes * 60_000) / chosen.length;
  console.log(`fuzz: ${chosen.length} targets, ${(ms / 1000).toFixed(0)} s each, base seed ${opts.seed}`);
  const outcomes: Outcome[] = [];
  for (const [i, name] of chosen.entries()) {
    // One seed per target, from the base seed and the target's place in the full list, so that a filtered run
    // replays the same inputs as the full run did.
    const seed = (opts.seed + all.indexOf(name)) | 0;
    console.log(`[${i + 1}/${chosen.length}] ${name}: seed ${seed}`);
    const outcome = name.startsWith('http ')
      ? await fuzzHttp(httpNames.indexOf(name), seed, opts.path, ms)
      : await fuzzParser(name, seed, opts.path, ms);
    console.log(`  ${outcome.failed ? 'FAILED' : 'ok'} after ${outcome.runs} inputs; ${outcome.detail}`);
    outcomes.push(outcome);
  }
  const total = outcomes.reduce((n, o) => n + o.runs, 0);
  const failed = outcomes.filter((o) => o.failed);
  console.log(
    `fuzz: ${total} inputs over ${outcomes.length} targets, ${failed.length} failed${failed.length ? `: ${failed.map((o) => o.name).join(', ')}` : ''}`,
  );
  process.exitCode = failed.length > 0 ? 1 : 0;
}

await main();

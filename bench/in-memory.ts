// `npm run bench -- --in-memory`: the 1-record and 100-record echo of `npm run bench`, served over in-memory
// connections (bench/in-memory-echo.mjs) with no socket and no load generator, so that the CPU per request is the
// JavaScript of the request path alone: Node's HTTP code, the framework's and the origin's. Each server kind runs
// in a process of its own on core 0 (`taskset`), one after the other, rotated per round; the medians of the
// paired per-round ratios are printed with their spread.
//
// The socket bench's figure also holds the kernel's work, and the work of waking the load generator on each
// answer, which falls more on a slower server (docs/performance.md); this one does not, so a change to the
// request path shows here with far less noise. The targets of issue 11 are read from the socket bench.
//
// Environment: BENCH_ROUNDS (5), BENCH_BODIES (`1,100`), BENCH_REQUESTS (50000 for 1 record, a tenth for 100),
// BENCH_BEFORE_DIST (another build's dist/, run as the `before` kind beside the others).
import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';
import { median, pinLoadGenerator, serverCommand } from './bench-process';
import { echoBodyOf } from './echo-body';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const RECORD_COUNTS = (process.env.BENCH_BODIES ?? '1,100').split(',').map(Number);
const BEFORE_DIST = process.env.BENCH_BEFORE_DIST;
const KINDS = ['origin', 'node', 'fastify', ...(BEFORE_DIST ? ['before'] : [])];
const SCRIPT = new URL('./in-memory-echo.mjs', import.meta.url).pathname;

// Core 1 for this process, core 0 for the servers, as in the socket bench.
const pinned = pinLoadGenerator();

/** CPU µs per request of one run of `kind` on `records`-record bodies. */
function cpuPerRequest(kind: string, records: number): number {
  const requests = Number(process.env.BENCH_REQUESTS ?? (records >= 100 ? 5_000 : 50_000));
  const [command, args] = serverCommand([SCRIPT, kind, echoBodyOf(records), String(requests)], pinned);
  const env = BEFORE_DIST ? { ...process.env, BENCH_DIST: resolve(BEFORE_DIST) } : process.env;
  const out = execFileSync(command, args, { env, encoding: 'utf8' });
  return (JSON.parse(out.trim().split('\n').pop()!) as { cpuMicrosPerRequest: number }).cpuMicrosPerRequest;
}

function spread(values: readonly number[]): string {
  return `${Math.min(...values).toFixed(2)}–${Math.max(...values).toFixed(2)}`;
}

console.log(
  `\nin-memory echo (no sockets): ${ROUNDS} rounds, kinds rotated per round, ` +
    `${pinned ? 'each server on core 0' : 'not pinned'}\n`,
);
for (const records of RECORD_COUNTS) {
  const cpu = new Map<string, number[]>(KINDS.map((kind) => [kind, []]));
  for (let round = 0; round < ROUNDS; round++) {
    const order = KINDS.map((_, i) => KINDS[(i + round) % KINDS.length]!);
    for (const kind of order) cpu.get(kind)!.push(cpuPerRequest(kind, records));
  }
  console.log(`${records} record${records === 1 ? '' : 's'}`);
  for (const kind of KINDS) {
    const values = cpu.get(kind)!;
    console.log(
      `  ${kind.padEnd(8)} CPU µs/req ${median(values).toFixed(2).padStart(7)} (${spread(values)})`,
    );
  }
  const origin = cpu.get('origin')!;
  for (const kind of KINDS.filter((k) => k !== 'origin')) {
    const ratios = origin.map((value, i) => value / cpu.get(kind)![i]!);
    console.log(`  origin/${kind.padEnd(8)} ${median(ratios).toFixed(2)}x (${spread(ratios)})`);
  }
  console.log('');
}

// `npm run bench -- --http2`: the 1-record echo over HTTP/2 beside HTTP/1.1 keep-alive (issue 18), both loaded
// by h2load (Debian nghttp2-client), so that one load generator drives both protocols:
//   h1     — the origin with http.http2 off, h2load --h1: 50 keep-alive connections, one request at a time each;
//   h1on2  — the origin with http.http2 on (h2c told apart by the preface), the same HTTP/1.1 load: what serving
//            HTTP/2 beside it costs an HTTP/1.1 client (the first bytes of each connection are read once more);
//   h2     — that origin over HTTP/2 with prior knowledge: 5 connections × 10 streams, the same 50 at once.
// The method is bench/echo.ts's: each server in its own process (bench/echo-servers.mjs, the built package),
// rounds interleaved with the order rotated every round, servers pinned to core 0 and h2load to core 1 on a
// machine with two cores or more; the figure that counts is the server's own CPU time per request
// (process.cpuUsage() in the server, read over IPC before and after each measured load, divided by the requests
// h2load completed). Target: h2 at most 1.25x h1 (median of per-round ratios). Loopback only, bounded in time.
//
// Environment: BENCH_ROUNDS (7), BENCH_SECONDS (3), BENCH_H2_CONNECTIONS (5), BENCH_H2_STREAMS (10 per
// connection), BENCH_CONNECTIONS (50, HTTP/1.1), BENCH_BEFORE_DIST (a directory holding another build's index.js,
// inside the project: its origin with http.http2 on runs as a fourth server under the same two loads as `h2`'s,
// `h1on2was` and `h2was`, and the h2/h2was ratio is printed; for the before/after figure of a change to the HTTP/2
// path), BENCH_ORIGIN_FLAGS
// (extra node flags for the origins' processes, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`).
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  median,
  pinLoadGenerator,
  serverCommand,
  serverCpuMicros,
  startBenchServer,
  type BenchServer,
} from './bench-process';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
const H1_CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const H2_CONNECTIONS = Number(process.env.BENCH_H2_CONNECTIONS ?? 5);
const H2_STREAMS = Number(process.env.BENCH_H2_STREAMS ?? 10);
/** HTTP/2 costs at most this many times HTTP/1.1 keep-alive's server CPU per request (issue 18). */
const HTTP2_CPU_MAX = 1.25;

const BEFORE_DIST = process.env.BENCH_BEFORE_DIST;
const ORIGIN_FLAGS = (process.env.BENCH_ORIGIN_FLAGS ?? '').split(/\s+/).filter(Boolean);

type Kind = 'h1' | 'h1on2' | 'h2' | 'h1on2was' | 'h2was';
// The build before serves both loads too, as `h2`'s process does: what one protocol leaves in a process (its
// heap, its compiled code) can change what the other costs there (decision 0130).
const KINDS: readonly Kind[] =
  BEFORE_DIST === undefined ? ['h1', 'h1on2', 'h2'] : ['h1', 'h1on2', 'h2', 'h1on2was', 'h2was'];
type ServerName = 'origin' | 'h2' | 'h2was';

async function startServer(name: ServerName): Promise<BenchServer> {
  const script = fileURLToPath(new URL('./echo-servers.mjs', import.meta.url));
  const kind = name === 'h2was' ? 'h2' : name;
  const [command, args] = serverCommand([...ORIGIN_FLAGS, script, kind], pinned);
  const env = name === 'h2was' ? { ...process.env, BENCH_DIST: BEFORE_DIST } : process.env;
  return startBenchServer(name, command, args, env);
}

interface Measured {
  rps: number;
  meanMs: number;
  cpu: number;
  errors: number;
}

/** Runs h2load; resolves with its report. Rejects when h2load cannot run at all. */
function h2load(args: readonly string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile('h2load', args, { maxBuffer: 1 << 20 }, (error, stdout, stderr) => {
      if (error && !stdout) reject(new Error(`h2load failed: ${stderr || error.message}`));
      else resolve(stdout);
    });
  });
}

/** Requests done, succeeded (2xx), req/s and mean request time (ms) from h2load's report. */
function parseReport(report: string): { done: number; ok: number; rps: number; meanMs: number } {
  const requests = /requests: \d+ total, \d+ started, (\d+) done, (\d+) succeeded/.exec(report);
  const rps = /finished in [\d.]+m?s, ([\d.]+) req\/s/.exec(report);
  const time = /time for request:\s+\S+\s+\S+\s+(\S+)/.exec(report);
  if (!requests || !rps || !time) throw new Error(`unexpected h2load report:\n${report}`);
  const mean = time[1]!;
  const meanMs = mean.endsWith('us')
    ? parseFloat(mean) / 1000
    : mean.endsWith('ms')
      ? parseFloat(mean)
      : parseFloat(mean) * 1000;
  return { done: Number(requests[1]), ok: Number(requests[2]), rps: Number(rps[1]), meanMs };
}

async function load(kind: Kind, seconds = SECONDS): Promise<Measured> {
  const server =
    kind === 'h1' ? servers.origin : kind === 'h2was' || kind === 'h1on2was' ? servers.h2was : servers.h2;
  const shape =
    kind === 'h2' || kind === 'h2was'
      ? ['-c', String(H2_CONNECTIONS), '-m', String(H2_STREAMS)]
      : ['--h1', '-c', String(H1_CONNECTIONS), '-m', '1'];
  const cpuBefore = await serverCpuMicros(server);
  const report = await h2load([
    ...shape,
    '-D',
    String(seconds),
    '-d',
    bodyFile,
    '-H',
    'content-type: application/json',
    `http://127.0.0.1:${server.port}/bench`,
  ]);
  const cpuAfter = await serverCpuMicros(server);
  const { done, ok, rps, meanMs } = parseReport(report);
  return { rps, meanMs, cpu: (cpuAfter - cpuBefore) / Math.max(1, done), errors: done - ok };
}

const pinned = pinLoadGenerator();
// The 1-record body of bench/echo.ts.
const body = JSON.stringify([
  {
    id: 0,
    name: 'customer 0',
    email: 'c0@example.com',
    active: true,
    score: 0,
    tags: ['a', 'b'],
    address: { city: 'Lyon', zip: '69001' },
  },
]);
const dir = mkdtempSync(join(tmpdir(), 'bench-h2-'));
const bodyFile = join(dir, 'body.json');
writeFileSync(bodyFile, body);
const servers = {} as Record<ServerName, BenchServer>;
const rounds: Record<Kind, Measured[]> = { h1: [], h1on2: [], h2: [], h1on2was: [], h2was: [] };
try {
  servers.origin = await startServer('origin');
  servers.h2 = await startServer('h2');
  if (BEFORE_DIST !== undefined) servers.h2was = await startServer('h2was');
  for (const kind of KINDS) await load(kind, Math.min(2, SECONDS)); // warm-up
  for (let round = 0; round < ROUNDS; round++) {
    // Rotate the order every round, so that no load always runs first or right after another.
    const order = KINDS.map((_, i) => KINDS[(i + round) % KINDS.length]!);
    for (const kind of order) rounds[kind].push(await load(kind));
  }
} finally {
  for (const server of Object.values(servers)) server.child.kill('SIGTERM');
  rmSync(dir, { recursive: true, force: true });
}

const fixed = (value: number, digits: number, width: number): string => value.toFixed(digits).padStart(width);
console.log(
  `\necho origin, 1 record (${Buffer.byteLength(body)} B): HTTP/2 (h2c, ${H2_CONNECTIONS} connections × ${H2_STREAMS} streams) ` +
    `vs HTTP/1.1 keep-alive (${H1_CONNECTIONS} connections), h2load — ${ROUNDS} rounds of ${SECONDS}s, rotated, ` +
    `${pinned ? 'servers on core 0, h2load on core 1' : 'not pinned'}\n`,
);
console.log('  load     |    req/s | mean ms | CPU µs/req | errors');
for (const kind of KINDS) {
  const runs = rounds[kind];
  console.log(
    `  ${kind.padEnd(8)} | ${fixed(median(runs.map((r) => r.rps)), 0, 8)} | ${fixed(median(runs.map((r) => r.meanMs)), 2, 7)} | ` +
      `${fixed(median(runs.map((r) => r.cpu)), 1, 10)} | ${runs.reduce((sum, r) => sum + r.errors, 0)}`,
  );
}
const ratio = (kind: Kind): number[] => rounds[kind].map((run, i) => run.cpu / rounds.h1[i]!.cpu);
const range = (values: number[]): string =>
  `${median(values).toFixed(2)}x (${Math.min(...values).toFixed(2)}–${Math.max(...values).toFixed(2)})`;
const met =
  median(ratio('h2')) <= HTTP2_CPU_MAX && KINDS.every((kind) => rounds[kind].every((r) => r.errors === 0));
console.log(
  `\n  h2/h1    cpu ${range(ratio('h2'))}  target ≤ ${HTTP2_CPU_MAX.toFixed(2)}x ${met ? 'met' : 'NOT met'}`,
);
console.log(`  h1on2/h1 cpu ${range(ratio('h1on2'))}`);
if (BEFORE_DIST !== undefined) {
  const was = rounds.h2.map((run, i) => run.cpu / rounds.h2was[i]!.cpu);
  console.log(`  h2was/h1 cpu ${range(ratio('h2was'))}`);
  console.log(`  h2/h2was cpu ${range(was)}  (this build's HTTP/2 against ${BEFORE_DIST})`);
}
console.log('');
console.log(met ? 'all targets met' : 'targets NOT met');

// `npm run bench -- --fairness` (issue 16, item 3): while one client uploads a 50 MB body, the p99 latency of
// concurrent one-record requests stays under 3x its idle value. For each body kind (JSON multipleObjects, CSV) a
// fresh origin process (bench/large-body-server.mjs, the echo pipeline) is started; a few keep-alive connections
// send one-record requests back to back for BENCH_SECONDS with nothing else going on (idle), then for as long
// again while one other connection uploads the large body back to back (loaded). Latency is measured per request
// in this process with performance.now(). The server also reports the longest event-loop delay it saw in each
// window (perf_hooks.monitorEventLoopDelay), which says how long one synchronous step held the loop, and its
// garbage collection pauses in the loaded window (their share of the window, and the longest).
//
// Environment: BENCH_SECONDS (window per phase, 5), BENCH_FAIRNESS_MB (upload size, 50), BENCH_FAIRNESS_CONNECTIONS
// (one-record connections, 4), BENCH_FAIRNESS_KINDS (json,csv), BENCH_FAIRNESS_PIPELINE (echo or count).
import { Agent } from 'node:http';
import { availableParallelism } from 'node:os';
import {
  ask,
  largeBody,
  MB,
  post,
  smallBody,
  startLargeBodyServer,
  stopServer,
  type BodyKind,
  type LargeBodyServer,
} from './large-bodies';
import { printFairnessTrace, type RequestSpan, type ServerTrace } from './fairness-trace';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const UPLOAD_MB = Number(process.env.BENCH_FAIRNESS_MB ?? 50);
const CONNECTIONS = Number(process.env.BENCH_FAIRNESS_CONNECTIONS ?? 4);
const KINDS = (process.env.BENCH_FAIRNESS_KINDS ?? 'json,csv').split(',') as BodyKind[];
const PIPELINE = (process.env.BENCH_FAIRNESS_PIPELINE ?? 'echo') as 'echo' | 'count';
/** Extra node flags for the server's process, e.g. `--max-semi-space-size=1` (as bench/echo.ts takes them). */
const ORIGIN_FLAGS = (process.env.BENCH_ORIGIN_FLAGS ?? '').split(/\s+/).filter(Boolean);
/** BENCH_FAIRNESS_TRACE=1: the server traces its loop, and the loaded window's slow requests are split by cause. */
const TRACE = Boolean(process.env.BENCH_FAIRNESS_TRACE);
/** p99 of one-record requests during the upload, at most this many times the idle p99 (issue 16). */
const TARGET_RATIO = 3;

interface Window {
  p50: number;
  p99: number;
  requests: number;
  errors: number;
  /** The longest event-loop delay the server saw in the window, ms. */
  loopMaxMs: number;
  /** The server's garbage collection pauses in the window: their sum and the longest, ms. */
  gcMs: number;
  gcMaxMs: number;
  /** Each request's interval on the machine's clock, with BENCH_FAIRNESS_TRACE. */
  spans: RequestSpan[];
}

const percentile = (sorted: readonly number[], p: number): number =>
  sorted.length === 0 ? Number.NaN : sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!;

/** One-record requests on `CONNECTIONS` keep-alive connections, back to back, for `seconds`. */
async function smallRequests(server: LargeBodyServer, body: Buffer, seconds: number): Promise<Window> {
  const agent = new Agent({ keepAlive: true, maxSockets: CONNECTIONS });
  const latencies: number[] = [];
  const spans: RequestSpan[] = [];
  let errors = 0;
  const until = performance.now() + seconds * 1000;
  await ask(server, 'loop-reset');
  const connection = async (): Promise<void> => {
    while (performance.now() < until) {
      const started = performance.now();
      const { status } = await post(server.port, body, agent);
      const ended = performance.now();
      latencies.push(ended - started);
      if (TRACE) spans.push({ start: performance.timeOrigin + started, end: performance.timeOrigin + ended });
      if (status !== 200) errors++;
    }
  };
  await Promise.all(Array.from({ length: CONNECTIONS }, connection));
  const loop = await ask<{ maxMs: number; gcMs: number; gcMaxMs: number }>(server, 'loop');
  agent.destroy();
  latencies.sort((a, b) => a - b);
  return {
    p50: percentile(latencies, 0.5),
    p99: percentile(latencies, 0.99),
    requests: latencies.length,
    errors,
    loopMaxMs: loop.maxMs,
    gcMs: loop.gcMs,
    gcMaxMs: loop.gcMaxMs,
    spans,
  };
}

interface Case {
  kind: BodyKind;
  records: number;
  idle: Window;
  loaded: Window;
  uploads: number;
  uploadErrors: number;
  uploadSeconds: number;
}

async function measure(kind: BodyKind, pinned: boolean): Promise<Case> {
  const { body, records } = largeBody(kind, UPLOAD_MB * MB);
  const small = smallBody(kind);
  const server = await startLargeBodyServer(kind, PIPELINE, {
    pinned,
    nodeFlags: ORIGIN_FLAGS,
    env: TRACE ? { BENCH_FAIRNESS_TRACE: '1' } : {},
  });
  try {
    // Warm-up: the one-record path before the idle window, one large body before the loaded one, so that neither
    // window pays for compiling code. The idle window comes first: after a large body, V8 goes on collecting for
    // many seconds (the origin's release of decision 0091, then V8's own memory reducer), and a window measured
    // then is not an idle server's.
    await smallRequests(server, small, 1);
    const idle = await smallRequests(server, small, SECONDS);
    await post(server.port, body);
    let uploading = true;
    let uploads = 0;
    let uploadErrors = 0;
    let uploadTime = 0;
    const uploader = (async () => {
      while (uploading) {
        const started = performance.now();
        const { status } = await post(server.port, body);
        uploadTime += performance.now() - started;
        uploads++;
        if (status !== 200) uploadErrors++;
      }
    })();
    // The upload's first chunks reach the server before the window opens.
    await new Promise((resolve) => setTimeout(resolve, 50));
    const loaded = await smallRequests(server, small, SECONDS);
    const trace = TRACE ? await ask<ServerTrace>(server, 'trace') : undefined;
    uploading = false;
    await uploader;
    if (trace) printFairnessTrace(kind, trace, loaded.spans);
    return {
      kind,
      records,
      idle,
      loaded,
      uploads,
      uploadErrors,
      uploadSeconds: uploadTime / 1000 / Math.max(1, uploads),
    };
  } finally {
    await stopServer(server);
  }
}

/** Runs the fairness bench and prints its table; resolves with whether every target was met. */
export async function runFairness(pinned: boolean): Promise<boolean> {
  const cases: Case[] = [];
  for (const kind of KINDS) cases.push(await measure(kind, pinned));
  console.log(
    `\nfairness: one-record requests on ${CONNECTIONS} connections while one client uploads ${UPLOAD_MB} MB ` +
      `back to back (${PIPELINE} pipeline), ${SECONDS} s per window, a fresh server per body kind, ` +
      `${pinned ? 'server on core 0, this process on core 1' : `not pinned (${availableParallelism()} cores)`}\n`,
  );
  console.log(
    '  body | idle p50 | idle p99 | loaded p50 | loaded p99 | ratio  | target | loop max idle/loaded ms | GC loaded: share, max ms | uploads (s each) | errors',
  );
  let allMet = true;
  for (const c of cases) {
    const ratio = c.loaded.p99 / c.idle.p99;
    const met = ratio <= TARGET_RATIO && c.idle.errors + c.loaded.errors + c.uploadErrors === 0;
    allMet &&= met;
    const ms = (value: number, width: number): string => value.toFixed(2).padStart(width);
    console.log(
      `  ${c.kind.padEnd(4)} | ${ms(c.idle.p50, 8)} | ${ms(c.idle.p99, 8)} | ${ms(c.loaded.p50, 10)} | ` +
        `${ms(c.loaded.p99, 10)} | ${ratio.toFixed(2).padStart(5)}x | ≤ ${TARGET_RATIO}x ${met ? 'met' : 'NOT met'} | ` +
        `${`${c.idle.loopMaxMs.toFixed(1)} / ${c.loaded.loopMaxMs.toFixed(1)}`.padStart(23)} | ` +
        `${`${((100 * c.loaded.gcMs) / (SECONDS * 1000)).toFixed(0)}%, ${c.loaded.gcMaxMs.toFixed(1)}`.padStart(24)} | ` +
        `${`${c.uploads} (${c.uploadSeconds.toFixed(2)})`.padStart(16)} | ` +
        `${c.idle.errors + c.loaded.errors + c.uploadErrors}`,
    );
    console.log(
      `         (${c.records} records of ${UPLOAD_MB} MB; ${c.idle.requests} idle and ${c.loaded.requests} loaded one-record requests)`,
    );
  }
  console.log(`\n${allMet ? 'all targets met' : 'targets NOT met'}`);
  return allMet;
}

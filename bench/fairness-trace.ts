// `BENCH_FAIRNESS_TRACE=1 npm run bench -- --fairness`: splits the loaded window's slow one-record requests into
// what the server's loop was doing while they waited. The server (bench/loop-trace.mjs) reports its garbage
// collection pauses and its long callbacks as intervals on the machine's clock; this process times each request on
// the same clock. For the requests at or above the loaded p99, each millisecond of their latency is put under the
// first label that covers it: a GC pause (by kind) first, then a long callback (by what it served: a read of the
// upload's socket, a turn of the large request (setImmediate), ...); what no interval covers is "other" (short
// callbacks, the small request's own work, the network and this process). A callback's time during which the
// server's main thread waited, runnable, for its core (Linux schedstat: V8's GC helper threads share core 0 with
// it, as do other processes on a busy machine) is put under "in a callback, waiting for the core".

/** An interval of the server's loop: a GC pause, or one callback that ran at least 0.25 ms. */
export interface LoopEvent {
  readonly start: number;
  readonly ms: number;
  readonly label: string;
  /** The async id of the callback's resource (0 for GC). */
  readonly id: number;
  /** A callback's: how long of it the main thread waited, runnable, for its core. */
  readonly waitMs?: number;
}

/** What the server's bench/loop-trace.mjs answers: its loop's intervals and its threads' times since loop-reset. */
export interface ServerTrace {
  readonly events: readonly LoopEvent[];
  readonly threads: { readonly mainCpuMs: number; readonly mainWaitMs: number; readonly othersCpuMs: number };
}

/** One one-record request, on the machine's clock (performance.timeOrigin + now), ms. */
export interface RequestSpan {
  readonly start: number;
  readonly end: number;
}

/** Sockets whose long callbacks add up to at least this much are the upload's (one connection per upload). */
const UPLOAD_SOCKET_MS = 50;
const STEP_MS = 0.02;
/**
 * The resources whose callbacks read a socket: Node's HTTP server reads through its parser (HTTPINCOMINGMESSAGE,
 * one per connection), other streams through TCPWRAP.
 */
const SOCKET_LABELS = new Set(['TCPWRAP', 'HTTPINCOMINGMESSAGE']);

/** Gives each TCP read a label saying whether it read the upload or a one-record request. */
function labelled(events: readonly LoopEvent[]): LoopEvent[] {
  const perSocket = new Map<number, number>();
  for (const e of events)
    if (SOCKET_LABELS.has(e.label)) perSocket.set(e.id, (perSocket.get(e.id) ?? 0) + e.ms);
  return events.map((e) => {
    if (!SOCKET_LABELS.has(e.label))
      return e.label === 'Immediate' ? { ...e, label: 'turn (setImmediate)' } : e;
    const upload = (perSocket.get(e.id) ?? 0) >= UPLOAD_SOCKET_MS;
    return { ...e, label: upload ? 'upload socket read' : 'small socket read' };
  });
}

const WAITING = 'in a callback, waiting for the core';

const isGc = (label: string): boolean => label.startsWith('gc-');

const quantile = (sorted: readonly number[], p: number): number =>
  sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!;

/** Prints the breakdown of one body kind's loaded window. */
export function printFairnessTrace(kind: string, trace: ServerTrace, requests: RequestSpan[]): void {
  const events = labelled(trace.events).sort((a, b) => a.start - b.start);
  const windowStart = Math.min(...requests.map((r) => r.start));
  const windowEnd = Math.max(...requests.map((r) => r.end));
  const inWindow = events.filter((e) => e.start + e.ms >= windowStart && e.start <= windowEnd);
  const seconds = (windowEnd - windowStart) / 1000;

  console.log(`\n  trace of the loaded window, ${kind} (${seconds.toFixed(1)} s):`);
  console.log(
    '    what held the loop       | count | total ms | share | p50 ms | p99 ms | max ms | ≥2 ms | ≥5 ms',
  );
  const byLabel = new Map<string, number[]>();
  for (const e of inWindow) (byLabel.get(e.label) ?? byLabel.set(e.label, []).get(e.label)!).push(e.ms);
  for (const [label, durations] of [...byLabel].sort((a, b) => sum(b[1]) - sum(a[1]))) {
    durations.sort((a, b) => a - b);
    const total = sum(durations);
    const waited = sum(inWindow.filter((e) => e.label === label).map((e) => e.waitMs ?? 0));
    console.log(
      `    ${label.padEnd(24)} | ${String(durations.length).padStart(5)} | ${total.toFixed(0).padStart(8)} | ` +
        `${`${((100 * total) / (seconds * 1000)).toFixed(1)}%`.padStart(5)} | ${quantile(durations, 0.5).toFixed(2).padStart(6)} | ` +
        `${quantile(durations, 0.99).toFixed(2).padStart(6)} | ${durations.at(-1)!.toFixed(2).padStart(6)} | ` +
        `${String(durations.filter((d) => d >= 2).length).padStart(5)} | ${String(durations.filter((d) => d >= 5).length).padStart(5)}` +
        (waited > 0 ? ` | waiting for the core ${waited.toFixed(0)} ms` : ''),
    );
  }
  console.log("    (a callback's time includes the GC pauses inside it)");
  const gcs = inWindow.filter((e) => isGc(e.label));
  const longest = inWindow
    .filter((e) => !isGc(e.label))
    .map((e) => ({
      ...e,
      gcMs: sum(gcs.filter((g) => g.start >= e.start && g.start < e.start + e.ms).map((g) => g.ms)),
    }))
    .sort((a, b) => b.ms - b.gcMs - (a.ms - a.gcMs))
    .slice(0, 6);
  console.log(
    `    longest callbacks less their GC: ${longest.map((e) => `${e.label} ${(e.ms - e.gcMs).toFixed(1)} (+${e.gcMs.toFixed(1)} GC)`).join(', ')}`,
  );
  const { mainCpuMs, mainWaitMs, othersCpuMs } = trace.threads;
  const share = (ms: number): string => `${((100 * ms) / (seconds * 1000)).toFixed(0)}%`;
  console.log(
    `    server threads: main ${share(mainCpuMs)} CPU, waited for its core ${share(mainWaitMs)}; other threads (GC helpers, libuv) ${share(othersCpuMs)} CPU`,
  );

  const latencies = requests.map((r) => r.end - r.start).sort((a, b) => a - b);
  const p99 = quantile(latencies, 0.99);
  const slow = requests.filter((r) => r.end - r.start >= p99);
  const covered = new Map<string, number>();
  for (const r of slow) {
    const overlapping = inWindow.filter((e) => e.start < r.end && e.start + e.ms > r.start);
    for (let t = r.start; t < r.end; t += STEP_MS) {
      let found: LoopEvent | undefined;
      for (const e of overlapping) {
        if (t < e.start || t >= e.start + e.ms) continue;
        if (isGc(e.label)) {
          found = e;
          break;
        }
        found ??= e;
      }
      if (found === undefined) {
        covered.set('other', (covered.get('other') ?? 0) + STEP_MS);
        continue;
      }
      // A callback's time is its work, and its wait for the core in proportion.
      const waiting = isGc(found.label) ? 0 : (found.waitMs ?? 0) / found.ms;
      covered.set(found.label, (covered.get(found.label) ?? 0) + STEP_MS * (1 - waiting));
      if (waiting > 0) covered.set(WAITING, (covered.get(WAITING) ?? 0) + STEP_MS * waiting);
    }
  }
  const mean = sum(slow.map((r) => r.end - r.start)) / slow.length;
  console.log(
    `    the ${slow.length} requests at or above the loaded p99 (${p99.toFixed(2)} ms), mean ${mean.toFixed(2)} ms, waited on:`,
  );
  for (const [label, ms] of [...covered].sort((a, b) => b[1] - a[1])) {
    console.log(
      `      ${label.padEnd(24)} ${(ms / slow.length).toFixed(2).padStart(6)} ms  ${((100 * ms) / (mean * slow.length)).toFixed(0).padStart(3)}%`,
    );
  }
}

function sum(values: readonly number[]): number {
  let total = 0;
  for (const v of values) total += v;
  return total;
}

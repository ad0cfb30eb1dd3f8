// What held the event loop of a bench server, for `BENCH_FAIRNESS_TRACE=1 npm run bench -- --fairness`: every
// garbage collection pause (perf_hooks 'gc' entries, by kind) and every top-level callback of at least
// MIN_CALLBACK_MS (async_hooks before/after, by the type of its resource: a socket read is TCPWRAP, a turn of the
// turn budget is Immediate, ...), as intervals on the machine's clock (performance.timeOrigin + now, comparable
// between processes of the machine). The bench process joins them with its own requests' intervals.
// A diagnostic only: async_hooks makes every callback and promise a little slower.
import { createHook } from 'node:async_hooks';
import { openSync, readFileSync, readSync, readdirSync } from 'node:fs';
import { PerformanceObserver, constants } from 'node:perf_hooks';

const MIN_CALLBACK_MS = 0.25;
const GC_KINDS = {
  [constants.NODE_PERFORMANCE_GC_MINOR]: 'gc-scavenge',
  [constants.NODE_PERFORMANCE_GC_MAJOR]: 'gc-mark-compact',
  [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: 'gc-incremental-step',
  [constants.NODE_PERFORMANCE_GC_WEAKCB]: 'gc-weak-callbacks',
};

/** Starts tracing; the returned object's `take()` gives the intervals since the last take and forgets them. */
export function startLoopTrace() {
  const origin = performance.timeOrigin;
  let events = [];
  const types = new Map();
  let depth = 0;
  let startedAt = 0;
  let current = 0;
  // The main thread's CPU time and run-queue wait when the callback began (Linux schedstat, about 2 µs a read):
  // a long callback that used little CPU was waiting for its core (GC helper threads, other processes).
  const schedstat = openSync('/proc/thread-self/schedstat', 'r');
  const statBuffer = Buffer.alloc(128);
  const readStat = () => {
    const length = readSync(schedstat, statBuffer, 0, statBuffer.length, 0);
    const [cpu, wait] = statBuffer.toString('latin1', 0, length).split(' ');
    return [Number(cpu) / 1e6, Number(wait) / 1e6];
  };
  let statBefore = [0, 0];
  createHook({
    init(asyncId, type) {
      types.set(asyncId, type);
    },
    before(asyncId) {
      if (depth++ === 0) {
        startedAt = performance.now();
        current = asyncId;
        statBefore = readStat();
      }
    },
    after() {
      if (--depth !== 0) return;
      const ms = performance.now() - startedAt;
      if (ms >= MIN_CALLBACK_MS) {
        const [cpu, wait] = readStat();
        const waitMs = Math.min(ms, wait - statBefore[1]);
        events.push({
          start: origin + startedAt,
          ms,
          waitMs,
          label: types.get(current) ?? 'unknown',
          id: current,
          cpuMs: cpu - statBefore[0],
        });
      }
    },
    destroy(asyncId) {
      types.delete(asyncId);
    },
  }).enable();
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const label = GC_KINDS[entry.detail?.kind] ?? 'gc-other';
      events.push({ start: origin + entry.startTime, ms: entry.duration, label, id: 0 });
    }
  }).observe({ entryTypes: ['gc'] });
  let threadsBefore = threadTimes();
  return {
    /** The intervals since the last take, and the CPU time of the process's threads over the same time. */
    take() {
      const taken = events;
      events = [];
      const now = threadTimes();
      const threads = {
        mainCpuMs: now.mainCpuMs - threadsBefore.mainCpuMs,
        mainWaitMs: now.mainWaitMs - threadsBefore.mainWaitMs,
        othersCpuMs: now.othersCpuMs - threadsBefore.othersCpuMs,
      };
      threadsBefore = now;
      return { events: taken, threads };
    },
  };
}

/**
 * CPU time of the main thread and of all the others (V8's GC helpers, libuv's pool), and how long the main thread
 * waited, runnable, for its core (other processes, or its own helper threads on the same core): Linux schedstat.
 */
function threadTimes() {
  let mainCpuMs = 0;
  let mainWaitMs = 0;
  let othersCpuMs = 0;
  for (const tid of readdirSync('/proc/self/task')) {
    let stat;
    try {
      stat = readFileSync(`/proc/self/task/${tid}/schedstat`, 'utf8').split(' ');
    } catch {
      continue;
    }
    const cpuMs = Number(stat[0]) / 1e6;
    if (Number(tid) === process.pid) {
      mainCpuMs = cpuMs;
      mainWaitMs = Number(stat[1]) / 1e6;
    } else othersCpuMs += cpuMs;
  }
  return { mainCpuMs, mainWaitMs, othersCpuMs };
}

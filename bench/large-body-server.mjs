// The origin `npm run bench -- --fairness` and `npm run bench -- --memory` measure, one fresh process per case:
//   node bench/large-body-server.mjs <json|csv> [echo|count]
//   json — JSON `multipleObjects` (one object per line), the format's default content
//   csv  — delimited, CSV with a header line
//   echo — the embedded default pipeline (every record back to the caller in the envelope)
//   count — the pipeline answers one record, the number of records it got (a pipeline that consumes its records)
// Prints the port on stdout once listening. Runs the built package (dist/): `npm run bench` builds it first.
//
// Answers IPC messages: 'memory' → { rss, maxRss, heapUsed } in bytes (maxRss is the process's peak resident
// set since it started, from getrusage, so a peak between two readings is not missed); 'gc' runs a full garbage
// collection first when the process has --expose-gc (the memory bench starts it so), then answers 'memory';
// 'measure-next' has the next batch of more than one record measure its records' heap (after a full collection,
// against the heap at the last 'gc'), which 'records-heap' answers as { bytes };
// 'loop-reset' starts a new event-loop delay window and 'loop' answers { maxMs, gcMs, gcMaxMs }: the longest delay
// in it, and the garbage collection pauses in it (all together, and the longest), from perf_hooks 'gc' entries.
import { PerformanceObserver, monitorEventLoopDelay } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';

const [format = 'json', pipelineName = 'echo'] = process.argv.slice(2);
const dist = process.env.BENCH_DIST
  ? pathToFileURL(`${process.env.BENCH_DIST}/index.js`).href
  : new URL('../dist/index.js', import.meta.url).href;
const { DataRecord, InProcessRunnerPool, Origin, SendResponse, echoPipeline } = await import(dist);

const send = new SendResponse();
const pipelines = {
  echo: echoPipeline,
  count: (batch) => send.write(batch, [new DataRecord({ records: batch.records.length })]),
};
// The memory bench asks for the heap the next batch's records take: measured in the pipeline, after a full
// collection, against the heap of the last 'gc' message (the warm server).
let measureNext = false;
let warmHeap = 0;
let recordsHeap = 0;
const measuring = (inner) => (batch, context) => {
  if (measureNext && batch.records.length > 1) {
    measureNext = false;
    globalThis.gc?.();
    recordsHeap = process.memoryUsage().heapUsed - warmHeap;
  }
  return inner(batch, context);
};
const pipeline = pipelines[pipelineName] && measuring(pipelines[pipelineName]);
const dataFormats = {
  json: { format: 'json', json: { jsonContent: 'multipleObjects' } },
  csv: { format: 'delimited', delimited: { delimiterFormatType: 'csv', headerLine: 'withHeader' } },
};
const dataFormat = dataFormats[format];
if (pipeline === undefined || dataFormat === undefined) {
  console.error('usage: large-body-server.mjs json|csv [echo|count]');
  process.exit(2);
}

const slots = 10;
const origin = new Origin(
  {
    http: {
      host: '127.0.0.1',
      port: 0,
      maxConcurrentRequests: slots,
      maxRequestSizeMb: 200,
      maxRecordsPerRequest: 10_000_000,
      // The bench measures what the body costs; the heap guard would refuse it on a small default heap.
      maxHeapUsagePercent: 100,
      // BENCH_RELEASE_MEMORY_AFTER_MB=0 measures the origin without its release after large bodies (decision 0091).
      releaseMemoryAfterMb: Number(process.env.BENCH_RELEASE_MEMORY_AFTER_MB ?? 32),
    },
    dataFormat,
  },
  { runners: new InProcessRunnerPool(slots, pipeline, { runnerIdleTimeMs: 0 }) },
);
const port = Number(new URL(await origin.start()).port);

const memory = () => {
  const { rss, heapUsed } = process.memoryUsage();
  return { rss, heapUsed, maxRss: process.resourceUsage().maxRSS * 1024 };
};
const loop = monitorEventLoopDelay({ resolution: 1 });
loop.enable();
const gc = { ms: 0, maxMs: 0 };
new PerformanceObserver((entries) => {
  for (const entry of entries.getEntries()) {
    gc.ms += entry.duration;
    gc.maxMs = Math.max(gc.maxMs, entry.duration);
  }
}).observe({ entryTypes: ['gc'] });
// BENCH_FAIRNESS_TRACE=1: what held the loop, as intervals (bench/loop-trace.mjs), answered to 'trace'.
const trace = process.env.BENCH_FAIRNESS_TRACE
  ? (await import('./loop-trace.mjs')).startLoopTrace()
  : undefined;
const loopFigures = () => ({ maxMs: loop.max / 1e6, gcMs: gc.ms, gcMaxMs: gc.maxMs });
if (process.send) {
  process.on('message', (message) => {
    if (message === 'loop-reset') {
      loop.reset();
      gc.ms = 0;
      gc.maxMs = 0;
      trace?.take();
    }
    if (message === 'loop-reset' || message === 'loop') process.send(loopFigures());
    if (message === 'gc' && typeof globalThis.gc === 'function') {
      globalThis.gc();
      warmHeap = process.memoryUsage().heapUsed;
    }
    if (message === 'memory' || message === 'gc') process.send(memory());
    if (message === 'measure-next') {
      measureNext = true;
      process.send({});
    }
    if (message === 'usage') {
      const u = process.memoryUsage();
      process.send({ heapTotal: u.heapTotal, external: u.external, arrayBuffers: u.arrayBuffers });
    }
    if (message === 'trace') process.send(trace?.take() ?? { events: [] });
    if (message === 'records-heap') process.send({ bytes: recordsHeap });
  });
  process.on('disconnect', () => process.exit(0));
}
console.log(port);
process.once('SIGINT', () => process.exit(0));
process.once('SIGTERM', () => process.exit(0));

// `npm run bench -- --metrics-cost`: what the origin's metrics cost (issue 16 item 5). The counting a request
// does (admission wait, request, answer: the calls and clock reads of the request path, histograms included),
// in CPU nanoseconds per request, and what one scrape costs (snapshot + Prometheus text, and the merge of four
// workers' snapshots as a cluster primary does). In-process, on the OriginMetrics class the origin uses; the
// end-to-end before/after is `BENCH_BEFORE_DIST=… npm run bench` (docs/performance.md).
import { mergeMetricsSnapshots } from '../src/metrics/metrics-snapshot';
import { renderPrometheusText } from '../src/metrics/prometheus-text';
import { OriginMetrics } from '../src/origin/origin-metrics';

const REQUESTS = 2_000_000;
const SCRAPES = 2_000;

function cpuNanosPer(n: number, work: (i: number) => void): number {
  const before = process.cpuUsage();
  for (let i = 0; i < n; i++) work(i);
  const used = process.cpuUsage(before);
  return ((used.user + used.system) * 1000) / n;
}

const metrics = new OriginMetrics('bench');
const perRequest = (i: number): void => {
  // What an answered request adds to the request path: two clock reads (the batch's run) and four calls.
  metrics.countAdmission(0);
  const started = performance.now();
  const ended = performance.now();
  metrics.countRequest('answered', 200, 0.04 + (i & 7) * 0.01);
  metrics.countAnswer(60, 1, 0, ended - started);
  if (i % 97 === 0) metrics.countRequest('rejected', 403, 0.02, 'ORIGIN_APP_ID_MISSING');
};
cpuNanosPer(REQUESTS / 4, perRequest);
const counting = Math.min(...[0, 1, 2].map(() => cpuNanosPer(REQUESTS, perRequest)));
const scrape = cpuNanosPer(SCRAPES, () => renderPrometheusText(metrics.snapshot(3, 1))) / 1000;
const workers = [0, 1, 2, 3].map(() => metrics.snapshot(3, 1));
const merged = cpuNanosPer(SCRAPES, () => renderPrometheusText(mergeMetricsSnapshots(workers))) / 1000;

console.log('metrics cost (CPU time, in process)');
console.log(`  counting per answered request      ${counting.toFixed(0)} ns`);
console.log(`  one scrape (snapshot + text)       ${scrape.toFixed(1)} µs`);
console.log(`  merge of 4 workers + text          ${merged.toFixed(1)} µs`);

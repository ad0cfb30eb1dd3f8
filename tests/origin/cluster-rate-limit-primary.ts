// A node:cluster primary with two workers, each running an origin on one shared port with http.rateLimits: the
// primary keeps the limits (startRateLimiterClusterPrimary), so they hold for the port. Run by
// cluster-rate-limit.test.ts as `node --import tsx cluster-rate-limit-primary.ts <port> <http options as JSON>`;
// prints `ready` once both workers listen, and stops its workers on SIGTERM.
import cluster from 'node:cluster';
import {
  InProcessRunnerPool,
  Origin,
  SendResponse,
  startRateLimiterClusterPrimary,
  type OriginConfigInput,
} from '../../src/index';

const WORKERS = 2;
const port = Number(process.argv[2]);
const http = JSON.parse(process.argv[3] ?? '{}') as OriginConfigInput['http'];

if (cluster.isPrimary) {
  // Before the first fork: a worker's limiters announce themselves as its origin is made. NO_LIMITER_PRIMARY=1
  // leaves it out, as a primary that forgot it would.
  if (process.env['NO_LIMITER_PRIMARY'] !== '1') startRateLimiterClusterPrimary();
  let listening = 0;
  for (let i = 0; i < WORKERS; i++) {
    cluster.fork().on('message', (message: unknown) => {
      if (message === 'listening' && ++listening === WORKERS) process.stdout.write('ready\n');
    });
  }
  process.on('SIGTERM', () => {
    for (const worker of Object.values(cluster.workers ?? {})) worker?.kill();
    process.exit(0);
  });
} else {
  const worker = String(cluster.worker?.id);
  const pool = new InProcessRunnerPool(
    4,
    (batch) => new SendResponse({ headers: { 'X-Worker': worker } }).write(batch),
    {
      runnerIdleTimeMs: 0,
    },
  );
  const origin = new Origin(
    { http: { ...http, host: '127.0.0.1', port, maxConcurrentRequests: 4 }, dataFormat: { format: 'json' } },
    { runners: pool },
  );
  void origin.start().then(() => process.send?.('listening'));
}

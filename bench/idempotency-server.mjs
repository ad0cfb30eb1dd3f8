// The servers `npm run bench -- --idempotency` compares, each in its own process (bench/idempotency.ts starts
// them): the echo origin of bench/echo-servers.mjs (JSON arrayOfObjects, echo pipeline, 10 slots) without
// idempotency keys (`plain`), with `http.idempotency: {}` (`memory`), and with the Redis store at BENCH_REDIS_URL
// (`redis`). Runs the built package (dist/). Prints the port once listening; answers IPC 'cpu' with this
// process's CPU time in µs.
const kind = process.argv[2];
const { InProcessRunnerPool, Origin, echoPipeline } = await import(
  new URL('../dist/index.js', import.meta.url).href
);
const idempotency = {
  plain: undefined,
  memory: { maxEntries: 1_000_000 },
  redis: { store: { redisUrl: process.env.BENCH_REDIS_URL } },
}[kind];
if (kind !== 'plain' && idempotency === undefined) {
  console.error('usage: idempotency-server.mjs plain|memory|redis');
  process.exit(2);
}
const runners = new InProcessRunnerPool(10, echoPipeline, { runnerIdleTimeMs: 0 });
const origin = new Origin(
  {
    http: { host: '127.0.0.1', port: 0, maxConcurrentRequests: 10, ...(idempotency ? { idempotency } : {}) },
    dataFormat: { format: 'json', json: { jsonContent: 'arrayOfObjects', maxObjectLengthChars: 1_000_000 } },
  },
  { runners },
);
const url = await origin.start();
process.on('message', (message) => {
  if (message !== 'cpu') return;
  const { user, system } = process.cpuUsage();
  process.send({ cpuMicros: user + system });
});
process.on('disconnect', () => process.exit(0));
console.log(new URL(url).port);
process.once('SIGTERM', () => process.exit(0));

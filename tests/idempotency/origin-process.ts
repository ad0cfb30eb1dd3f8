// An origin in a process of its own, for the two-process drain-and-retry test: started with its config as the
// first argument, it prints one JSON line per event on stdout ({ event: 'start', url }, { event: 'record', n },
// { event: 'closed' }) and closes gracefully on SIGTERM. Its pipeline takes 0 to 100 ms per batch (PIPELINE_MS
// fixes it), so that some clients time out and retry while their first attempt is still in flight.
import { InProcessRunnerPool, Origin, SendResponse } from '../../src/index';

const config = JSON.parse(process.argv[2] ?? '{}') as unknown;
const print = (line: object): void => void process.stdout.write(`${JSON.stringify(line)}\n`);

const pool = new InProcessRunnerPool(
  24,
  async (batch) => {
    for (const record of batch.records) print({ event: 'record', n: (record.value as { n: number }).n });
    const delay =
      process.env.PIPELINE_MS === undefined ? Math.random() * 100 : Number(process.env.PIPELINE_MS);
    await new Promise((resolve) => setTimeout(resolve, Math.floor(delay)));
    new SendResponse().write(batch);
  },
  { runnerIdleTimeMs: 0 },
);
const origin = new Origin(config, { runners: pool });
origin.start().then(
  (url) => print({ event: 'start', url }),
  (error: { code?: string; message?: string }) => {
    print({ event: 'failed', code: error.code, message: error.message });
    process.exitCode = 1;
    void pool.close();
  },
);
process.once('SIGTERM', () => {
  void origin.close({ timeoutMs: 10_000 }).then(async () => {
    await pool.close();
    print({ event: 'closed' });
  });
});

// An origin in a process of its own, for the SPNEGO tests: GSSAPI reads KRB5_CONFIG and KRB5_KTNAME from the real
// process environment, which a jest worker's `process.env` (a copy) cannot change. Started by spnego.test.ts with
// the origin config as its argument; it prints one JSON line per event on stdout and closes on SIGTERM. Its
// pipeline answers each record with the record's header attributes added under `/caller`.
import { InProcessRunnerPool, Origin, SendResponse } from '../../src/index';

const config = JSON.parse(process.argv[2] ?? '{}') as unknown;
const print = (line: object): void => void process.stdout.write(`${JSON.stringify(line)}\n`);

const pool = new InProcessRunnerPool(
  4,
  (batch) => {
    for (const record of batch.records) record.set('/caller', record.header.attributes());
    new SendResponse().write(batch);
  },
  { runnerIdleTimeMs: 0 },
);
const origin = new Origin(config, { runners: pool });
for (const event of ['request', 'batch', 'rejection'] as const) {
  origin.on(event, (info) => print({ event, ...info }));
}
origin.start().then(
  (url) => print({ event: 'start', url, description: origin.describe(), ktname: process.env.KRB5_KTNAME }),
  (error: { code?: string; message?: string }) => {
    print({ event: 'failed', code: error.code, message: error.message });
    process.exitCode = 1;
    void pool.close();
  },
);
process.once('SIGTERM', () => {
  void origin.close({ timeoutMs: 2000 }).then(() => {
    print({ event: 'closed', ktname: process.env.KRB5_KTNAME ?? null });
    return pool.close();
  });
});

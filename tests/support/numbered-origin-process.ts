// One origin instance of the scale-out test and bench (tests/support/scale-out.ts), run through tsx:
//   node --import tsx tests/support/numbered-origin-process.ts <port> <name>
// It serves JSON on 127.0.0.1:<port> with http.trustedProxies 127.0.0.1 (nginx in front), and a pipeline that
// counts the numbered records it is given (`{"n": 17}`), puts the client address it saw (`remoteHost`) into
// each record, and answers with them and an `X-Served-By: <name>` header. Prints `listening` once serving. On
// SIGTERM it closes the origin (new requests 503, admitted ones answered), prints `seen <numbers as JSON>` and
// exits 0: the numbers its pipeline processed, for the test to check that none was lost or processed twice.
import { InProcessRunnerPool, Origin, SendResponse, type Pipeline } from '../../src/index';

const [port = '0', name = 'origin'] = process.argv.slice(2);
const seen: number[] = [];
const send = new SendResponse({ headers: { 'X-Served-By': name } });
const pipeline: Pipeline = (batch) => {
  for (const record of batch.records) {
    const n = record.get('/n');
    if (typeof n === 'number') seen.push(n);
    record.set('/remoteHost', record.header.getAttribute('remoteHost') ?? '');
  }
  send.write(batch);
};
const pool = new InProcessRunnerPool(10, pipeline, { runnerIdleTimeMs: 0 });
const origin = new Origin(
  {
    general: { name },
    http: { host: '127.0.0.1', port: Number(port), trustedProxies: ['127.0.0.1'] },
    dataFormat: { format: 'json' },
  },
  { runners: pool },
);
await origin.start();
console.log('listening');
process.once('SIGTERM', () => {
  void origin.close({ timeoutMs: 10_000 }).then(async () => {
    await pool.close();
    process.stdout.write(`seen ${JSON.stringify(seen)}\n`, () => process.exit(0));
  });
});

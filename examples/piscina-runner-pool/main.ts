// A host RunnerPool that runs each batch's CPU-heavy stage on worker threads through piscina, so that hashing
// never blocks the event loop that reads requests. Run it with `npx tsx examples/piscina-runner-pool/main.ts`.
import { fileURLToPath } from 'node:url';
import { Piscina } from 'piscina';
import {
  DataRecord,
  Origin,
  SendResponse,
  type Batch,
  type RunProgress,
  type RunnerPool,
} from 'rest-service-origin';
import type { Digest, DigestTask } from './worker';

/**
 * One runner per worker thread. The stages before and after the worker (reading the records, writing the
 * response) run on the main thread, where the batch lives; only plain values cross to the thread.
 */
class PiscinaRunnerPool implements RunnerPool {
  readonly size: number;
  readonly reportsStarts = true;
  readonly #piscina: Piscina<DigestTask, Digest[]>;
  readonly #reply = new SendResponse({ statusCode: 200 });

  constructor(threads: number) {
    this.size = threads;
    this.#piscina = new Piscina({
      filename: fileURLToPath(new URL('./worker.ts', import.meta.url)),
      minThreads: threads,
      maxThreads: threads,
      // Beyond the origin's own queue, nothing waits here: maxConcurrentRequests equals the thread count.
      maxQueue: threads,
    });
  }

  async run(batch: Batch, signal: AbortSignal, progress?: RunProgress): Promise<void> {
    // RunProgress: say "started" only for a batch whose signal has not aborted, in the same synchronous step.
    if (signal.aborted) throw signal.reason;
    progress?.started();
    const documents = batch.records.map((record) => ({ id: record.get('/id'), text: record.get('/text') }));
    // The signal removes a queued task, or stops the thread running it, when the origin gives up on the batch.
    const digests = await this.#piscina.run({ documents, rounds: 20_000 }, { signal });
    this.#reply.write(
      batch,
      digests.map((digest) => new DataRecord({ ...digest })),
    );
  }

  async close(): Promise<void> {
    await this.#piscina.close();
  }
}

const runners = new PiscinaRunnerPool(2);
const origin = new Origin(
  { http: { host: '127.0.0.1', port: 0, maxConcurrentRequests: 2 }, dataFormat: { format: 'json' } },
  { runners },
);
const url = await origin.start();

// Several requests at once: each batch is hashed on one of the two threads while the main thread keeps serving.
const bodies = ['{"id":"a","text":"alpha"}', '{"id":"b","text":"beta"} {"id":"c","text":"gamma"}'];
const answers = await Promise.all(
  bodies.map(async (body) => {
    const answer = await fetch(url, { method: 'POST', body });
    return `${answer.status} ${await answer.text()}`;
  }),
);
for (const line of answers) console.log(line);
console.log(`threads used: ${runners.size}`);

await origin.close();
await runners.close();

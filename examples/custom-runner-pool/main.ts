// A host that supplies its own RunnerPool: here a pool of "runners" that each own a stage instance
// (an order counter), validate the records and answer 201 Created, or 422 with error records.
// Run it with `npx tsx examples/custom-runner-pool/main.ts`.
import { DataRecord, Origin, SendResponse, type Batch, type RunnerPool } from 'rest-service-origin';

/** One runner: the pipeline's stages after the origin, with their own state. */
class OrderRunner {
  #accepted = 0;
  readonly #created = new SendResponse({ statusCode: 201, headers: { 'X-Runner': 'orders' } });
  readonly #rejected = SendResponse.forErrors({ statusCode: 422 });

  process(batch: Batch): void {
    const good: DataRecord[] = [];
    const bad: DataRecord[] = [];
    for (const record of batch.records) {
      if (typeof record.get('/quantity') === 'number') {
        record.set('/orderNumber', ++this.#accepted);
        good.push(record);
      } else {
        bad.push(
          DataRecord.createErrorRecord(record, {
            code: 'ORDERS_01',
            message: 'quantity must be a number',
            stage: 'validate',
          }),
        );
      }
    }
    this.#created.write(batch, good);
    this.#rejected.write(batch, [...batch.errorRecords, ...bad]);
  }
}

/** A minimal pool: a fixed set of runners, each taking one batch at a time; callers wait for a free one. */
class OrderRunnerPool implements RunnerPool {
  readonly size: number;
  readonly #free: OrderRunner[];
  readonly #waiting: ((runner: OrderRunner) => void)[] = [];

  constructor(size: number) {
    this.size = size;
    this.#free = Array.from({ length: size }, () => new OrderRunner());
  }

  async run(batch: Batch): Promise<void> {
    const runner = this.#free.pop() ?? (await new Promise<OrderRunner>((grant) => this.#waiting.push(grant)));
    try {
      runner.process(batch);
    } finally {
      const next = this.#waiting.shift();
      if (next) next(runner);
      else this.#free.push(runner);
    }
  }
}

const origin = new Origin(
  { http: { host: '127.0.0.1', port: 0, maxConcurrentRequests: 4 }, dataFormat: { format: 'json' } },
  { runners: new OrderRunnerPool(4) },
);
const url = await origin.start();

for (const body of ['{"item":"tea","quantity":2}', '{"item":"cake","quantity":"many"}']) {
  const answer = await fetch(new URL('orders', url), { method: 'POST', body });
  console.log(answer.status, await answer.text());
}
await origin.close();

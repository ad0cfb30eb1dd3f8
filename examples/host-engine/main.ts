// A host engine that runs several pipelines, each behind its own origin, all on one port: requests are routed
// to a pipeline by their application ID (X-ENGINE-APPLICATION-ID). Run it with
// `npx tsx examples/host-engine/main.ts`.
import { createServer } from 'node:net';
import {
  DataRecord,
  InProcessRunnerPool,
  Origin,
  SendResponse,
  type OriginConfigInput,
  type Pipeline,
} from 'rest-service-origin';

/** What the engine knows of one pipeline: its name, the application ID its callers send, and its stages. */
interface PipelineDefinition {
  readonly name: string;
  readonly applicationId: string;
  readonly stages: Pipeline;
}

/**
 * The engine: one origin and one runner pool per pipeline, all origins on `port`. Origins of one process share a
 * port when each has a non-empty application ID list, the lists are disjoint and the TLS settings are the same.
 */
class Engine {
  readonly #running: { origin: Origin; runners: InProcessRunnerPool }[] = [];

  async start(port: number, pipelines: readonly PipelineDefinition[]): Promise<void> {
    for (const pipeline of pipelines) {
      const config: OriginConfigInput = {
        general: { name: pipeline.name },
        http: { host: '127.0.0.1', port, applicationIds: [pipeline.applicationId], maxConcurrentRequests: 4 },
        dataFormat: { format: 'json' },
      };
      const runners = new InProcessRunnerPool(4, pipeline.stages);
      const origin = new Origin(config, { runners });
      origin.on('rejection', ({ code, status }) =>
        console.log(`  [${pipeline.name}] refused ${status} ${code}`),
      );
      await origin.start();
      this.#running.push({ origin, runners });
    }
  }

  async stop(): Promise<void> {
    for (const { origin, runners } of this.#running.splice(0)) {
      await origin.close();
      await runners.close();
    }
  }
}

const orders: Pipeline = (batch) => {
  const total = batch.records.reduce((sum, record) => sum + Number(record.get('/quantity') ?? 0), 0);
  new SendResponse({ statusCode: 201 }).write(batch, [new DataRecord({ pipeline: 'orders', total })]);
};
const payments: Pipeline = (batch) => {
  const paid = batch.records.map((record) => String(record.get('/id')));
  new SendResponse().write(batch, [new DataRecord({ pipeline: 'payments', paid })]);
};

/** A free port for this run (port 0 would give each origin its own ephemeral port: never shared). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer().once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

const port = await freePort();
const engine = new Engine();
await engine.start(port, [
  { name: 'orders', applicationId: 'orders-app', stages: orders },
  { name: 'payments', applicationId: 'payments-app', stages: payments },
]);
console.log('two pipelines on one port');

const calls: [string | undefined, string][] = [
  ['orders-app', '{"quantity":2} {"quantity":3}'],
  ['payments-app', '{"id":"p-1"} {"id":"p-2"}'],
  ['someone-else', '{}'],
  [undefined, '{}'],
];
for (const [applicationId, body] of calls) {
  const headers: Record<string, string> = applicationId ? { 'X-ENGINE-APPLICATION-ID': applicationId } : {};
  const answer = await fetch(`http://127.0.0.1:${port}/`, { method: 'POST', headers, body });
  console.log(`${applicationId ?? '(no id)'} -> ${answer.status} ${await answer.text()}`);
}
await engine.stop();

// Idempotency keys (docs/idempotency.md): a client that resends an order, as it would after a timeout, with the
// same key gets the first answer again and the pipeline sees the order once; the same key on another order is
// refused. Run it with `npx tsx examples/idempotency/main.ts`. For several instances behind a load balancer,
// set `store: { redisUrl: 'redis://host:6379/0' }`.
import { randomUUID } from 'node:crypto';
import { InProcessRunnerPool, Origin, SendResponse } from 'rest-service-origin';

let orders = 0;
const runners = new InProcessRunnerPool(10, (batch) => {
  for (const record of batch.records) record.set('/orderNumber', ++orders);
  new SendResponse({ statusCode: 201 }).write(batch);
});
const origin = new Origin(
  {
    general: { name: 'orders' },
    http: { host: '127.0.0.1', port: 0, idempotency: { required: true } },
    dataFormat: { format: 'json' },
  },
  { runners },
);
const url = await origin.start();

const key = randomUUID();
const order = (body: string, idempotencyKey?: string): Promise<Response> =>
  fetch(url, {
    method: 'POST',
    body,
    headers: idempotencyKey === undefined ? {} : { 'Idempotency-Key': `"${idempotencyKey}"` },
  });

for (const [body, sentKey] of [
  ['{"item":"tea"}', key], // processed
  ['{"item":"tea"}', key], // a resend: the first answer again, not processed
  ['{"item":"cake"}', key], // another order under the same key: 422
  ['{"item":"cake"}', undefined], // no key, and keys are required: 400
] as const) {
  const answer = await order(body, sentKey);
  const replayed = answer.headers.get('idempotent-replayed') ?? 'false';
  console.log(answer.status, `replayed=${replayed}`, await answer.text());
}
console.log(`orders processed: ${orders}`);

await origin.close();
await runners.close();

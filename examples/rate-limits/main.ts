// Per-tenant rate limits (docs/rate-limits.md): two tenants by application ID, each allowed 1 request per second
// in bursts of 2, and a client that follows the retry rules: on 429 it waits Retry-After seconds (plus a little
// jitter) and sends the same request again, which is safe because a 429 was not processed.
// Run it with `npx tsx examples/rate-limits/main.ts`.
import { InProcessRunnerPool, Origin, echoPipeline } from 'rest-service-origin';

const runners = new InProcessRunnerPool(4, echoPipeline);
const origin = new Origin(
  {
    general: { name: 'orders' },
    http: {
      host: '127.0.0.1',
      port: 0,
      maxConcurrentRequests: 4,
      applicationIds: ['shop-eu', 'shop-us'],
      rateLimits: [{ key: 'applicationId', requestsPerSecond: 1, burst: 2 }],
      // One tenant may hold 2 of the 4 slots, so the other is always admitted.
      maxConcurrentRequestsPerKey: { key: 'applicationId', limit: 2 },
    },
    dataFormat: { format: 'json' },
  },
  { runners },
);
const url = await origin.start();

/** Sends one order for `tenant`, resending it after Retry-After while the answer is 429 (at most 5 tries). */
async function sendOrder(tenant: string, order: object): Promise<Response> {
  for (let attempt = 1; ; attempt++) {
    const answer = await fetch(url, {
      method: 'POST',
      headers: { 'X-ENGINE-APPLICATION-ID': tenant, 'Content-Type': 'application/json' },
      body: JSON.stringify(order),
    });
    if (answer.status !== 429 || attempt === 5) return answer;
    const waitSeconds = Number(answer.headers.get('Retry-After') ?? 1);
    console.log(
      `${tenant}: 429, RateLimit: ${answer.headers.get('RateLimit')}, retrying in ${waitSeconds} s`,
    );
    await answer.arrayBuffer();
    await new Promise((resolve) => setTimeout(resolve, waitSeconds * 1000 * (1 + Math.random() * 0.1)));
  }
}

for (let n = 1; n <= 3; n++) {
  const answer = await sendOrder('shop-eu', { order: n });
  console.log(`shop-eu: order ${n} ${answer.status} ${await answer.text()}`);
}
const other = await sendOrder('shop-us', { order: 1 });
console.log(`shop-us: order 1 ${other.status}, RateLimit-Policy: ${other.headers.get('RateLimit-Policy')}`);
await other.arrayBuffer();
console.log('refused by key:', JSON.stringify(origin.metrics().rateLimitedByKey));

await origin.close();
await runners.close();

// The echo microservice, embedded: an origin whose in-process pipeline sends every record back.
// Run it with `npx tsx examples/echo/main.ts`; PORT=8000 to listen on a fixed port (default: any free port).
import { InProcessRunnerPool, Origin, echoPipeline } from 'rest-service-origin';

const runners = new InProcessRunnerPool(10, echoPipeline);
const origin = new Origin(
  {
    general: { name: 'echo' },
    http: { host: '127.0.0.1', port: Number(process.env.PORT ?? 0), maxConcurrentRequests: 10 },
    dataFormat: { format: 'json' },
  },
  { runners },
);

const url = await origin.start();
console.log(`listening at ${url}`);

const answer = await fetch(new URL('orders', url), { method: 'POST', body: '{"a":1} {"b":2}' });
console.log(answer.status, answer.headers.get('content-type'), await answer.text());

await origin.close();
await runners.close();

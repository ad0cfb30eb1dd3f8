// Metrics, readiness and diagnostics: an origin that answers Prometheus scrapes on /metrics and probes on
// /healthz and /readyz (docs/metrics.md), and a subscriber of the origin's request:end diagnostics channel.
// Run it with `npx tsx examples/metrics/main.ts`; PORT=8000 to listen on a fixed port (default: any free port).
import diagnosticsChannel from 'node:diagnostics_channel';
import {
  DIAGNOSTICS_CHANNELS,
  InProcessRunnerPool,
  Origin,
  echoPipeline,
  type RequestEndMessage,
} from 'rest-service-origin';

const runners = new InProcessRunnerPool(4, echoPipeline);
const origin = new Origin(
  {
    general: { name: 'orders' },
    http: {
      host: '127.0.0.1',
      port: Number(process.env.PORT ?? 0),
      maxConcurrentRequests: 4,
      applicationIds: ['orders-app'],
      metricsPath: '/metrics',
      healthPath: '/healthz',
      readinessPath: '/readyz',
    },
    dataFormat: { format: 'json' },
  },
  { runners },
);

const ended = (message: unknown): void => {
  const { status, outcome, code } = message as RequestEndMessage;
  console.log(`request:end ${status} ${outcome}${code ? ` ${code}` : ''}`);
};
diagnosticsChannel.subscribe(DIAGNOSTICS_CHANNELS.requestEnd, ended);

const url = await origin.start();
const post = (headers: Record<string, string>) =>
  fetch(url, { method: 'POST', body: '{"id":1} {"id":2}', headers }).then((answer) => answer.text());
await post({ 'X-ENGINE-APPLICATION-ID': 'orders-app' });
await post({}); // no application ID: 403

// Probes and scrapes need no application ID and never reach the pipeline.
const ready = await fetch(new URL('/readyz', url));
console.log(`readyz ${ready.status} ${(await ready.text()).trim()}`);
const scrape = await (await fetch(new URL('/metrics', url))).text();
for (const line of scrape.split('\n')) {
  if (
    line.startsWith('rest_origin_requests_total') ||
    line.startsWith('rest_origin_records_received_total')
  ) {
    console.log(line);
  }
}

diagnosticsChannel.unsubscribe(DIAGNOSTICS_CHANNELS.requestEnd, ended);
await origin.close();
await runners.close();

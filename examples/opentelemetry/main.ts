// An origin traced with OpenTelemetry: spans made from the origin's events (origin-tracing.ts), exported here to
// memory and printed. Run it with `npx tsx examples/opentelemetry/main.ts`.
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  RandomIdGenerator,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { InProcessRunnerPool, Origin, echoPipeline } from 'rest-service-origin';
import { OriginSpanIds, traceOrigin, traceOriginChannels } from './origin-tracing';

const exporter = new InMemorySpanExporter();
const ids = new OriginSpanIds(new RandomIdGenerator());
const provider = new BasicTracerProvider({
  spanProcessors: [new SimpleSpanProcessor(exporter)],
  idGenerator: ids,
});

const runners = new InProcessRunnerPool(10, echoPipeline);
const origin = new Origin(
  { dataFormat: { format: 'json' }, http: { host: '127.0.0.1', port: 0, applicationIds: ['shop'] } },
  { runners },
);
const untrace = traceOrigin(origin, provider.getTracer('rest-service-origin'), ids);
const url = await origin.start();

const caller = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
for (const id of ['shop', 'wrong']) {
  const answer = await fetch(url, {
    method: 'POST',
    headers: { 'X-ENGINE-APPLICATION-ID': id, traceparent: caller },
    body: '{"item":"tea"}',
  });
  await answer.arrayBuffer();
  console.log(`${answer.status} traceparent: ${answer.headers.get('traceparent')}`);
}

for (const span of exporter.getFinishedSpans()) {
  const { traceId, spanId } = span.spanContext();
  const status = span.attributes['http.response.status_code'];
  console.log(
    `span ${span.name} ${traceId}-${spanId} parent ${span.parentSpanContext?.spanId} status ${status}`,
  );
}

untrace();

// The same from the diagnostics channels, with no reference to the origin (as an APM agent hooks in).
exporter.reset();
const unsubscribe = traceOriginChannels(provider.getTracer('rest-service-origin'), ids);
const answer = await fetch(url, {
  method: 'POST',
  headers: { 'X-ENGINE-APPLICATION-ID': 'shop', traceparent: caller },
  body: '{}',
});
await answer.arrayBuffer();
const [span] = exporter.getFinishedSpans();
console.log(
  `channels: ${answer.headers.get('traceparent')} span ${span?.spanContext().spanId} ${String(span?.attributes['rest_origin.outcome'])}`,
);
unsubscribe();
await origin.close();
await runners.close();
await provider.shutdown();

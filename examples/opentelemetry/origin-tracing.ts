// Spans from an origin's events with the OpenTelemetry API (docs/trace-context.md). Copy this file into your host:
// it needs `@opentelemetry/api` (an optional peer of rest-service-origin) and, for `OriginSpanIds`, the SDK's
// `IdGenerator` contract (`@opentelemetry/sdk-trace-base`).
import {
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Span,
  type TraceFlags,
  type Tracer,
} from '@opentelemetry/api';
import diagnosticsChannel from 'node:diagnostics_channel';
import type { IdGenerator } from '@opentelemetry/sdk-trace-base';
import {
  DIAGNOSTICS_CHANNELS,
  type Origin,
  type OriginEvents,
  type RequestEndMessage,
  type RequestStartMessage,
  type TraceContext,
} from 'rest-service-origin';

/**
 * An `IdGenerator` for the tracer provider that gives a span the ids the origin already chose for it (the
 * `traceparent` the origin echoes and writes on the records), and random ids otherwise. `startSpan` is
 * synchronous, so the ids set just before it are the ones it takes.
 */
export class OriginSpanIds implements IdGenerator {
  #next: TraceContext | undefined;
  readonly #fallback: IdGenerator;

  constructor(fallback: IdGenerator) {
    this.#fallback = fallback;
  }

  /** Runs `start` (which starts one span) with the origin's ids for that span. */
  with<T>(ids: TraceContext | undefined, start: () => T): T {
    this.#next = ids;
    try {
      return start();
    } finally {
      this.#next = undefined;
    }
  }

  generateTraceId(): string {
    return this.#next?.traceId ?? this.#fallback.generateTraceId();
  }

  generateSpanId(): string {
    return this.#next?.spanId ?? this.#fallback.generateSpanId();
  }
}

/**
 * Starts the SERVER span of one request: a child of the caller's span when the request carried a `traceparent`,
 * with the origin's own span id when `ids` is the provider's id generator.
 */
function startRequestSpan(
  tracer: Tracer,
  ids: OriginSpanIds | undefined,
  info: Pick<RequestStartMessage, 'requestId' | 'method' | 'path' | 'remoteHost' | 'traceContext'>,
): Span {
  const incoming = info.traceContext;
  const parent =
    incoming?.parentId === undefined
      ? ROOT_CONTEXT
      : trace.setSpanContext(ROOT_CONTEXT, {
          traceId: incoming.traceId,
          spanId: incoming.parentId,
          traceFlags: Number.parseInt(incoming.traceFlags, 16) as TraceFlags,
          isRemote: true,
        });
  const start = (): Span =>
    tracer.startSpan(
      `${info.method} ${info.path}`,
      {
        kind: SpanKind.SERVER,
        attributes: {
          'http.request.method': info.method,
          'url.path': info.path,
          'client.address': info.remoteHost,
          'rest_origin.request_id': info.requestId,
        },
      },
      parent,
    );
  return ids ? ids.with(incoming, start) : start();
}

/**
 * Makes one SERVER span per request from the origin's events: started on `request` (a child of the caller's span
 * when the request carried a `traceparent`), ended on `batch` (the pipeline answered) or `rejection` (refused or
 * failed, status ERROR). With `ids`, the span has the origin's own span id, so the `traceparent` on the answer
 * and on the records names a span that exists in your tracing backend. Returns a function that unsubscribes.
 */
export function traceOrigin(origin: Origin, tracer: Tracer, ids?: OriginSpanIds): () => void {
  const spans = new Map<string, Span>();
  const onRequest = (info: OriginEvents['request']): void => {
    spans.set(info.requestId, startRequestSpan(tracer, ids, info));
  };
  const onBatch = (info: OriginEvents['batch']): void => {
    const span = spans.get(info.requestId);
    if (!span) return;
    spans.delete(info.requestId);
    span.setAttributes({
      'http.response.status_code': info.status,
      'rest_origin.records': info.records,
      'rest_origin.error_records': info.errorRecords,
    });
    if (info.status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
    span.end();
  };
  const onRejection = (info: OriginEvents['rejection']): void => {
    const span = spans.get(info.requestId);
    if (!span) return;
    spans.delete(info.requestId);
    span.setAttributes({ 'http.response.status_code': info.status, 'error.type': info.code });
    span.setStatus({ code: SpanStatusCode.ERROR, message: info.message });
    span.end();
  };
  origin.on('request', onRequest).on('batch', onBatch).on('rejection', onRejection);
  return () => {
    origin.off('request', onRequest).off('batch', onBatch).off('rejection', onRejection);
    for (const span of spans.values()) span.end();
    spans.clear();
  };
}

/**
 * The same spans from the origin's diagnostics channels (docs/metrics.md), for every origin of the process and
 * without a reference to any of them, as an APM agent would hook in: a span starts on `request:start` and ends
 * on `request:end`, which comes exactly once for every started request whatever its answer. Returns a function
 * that unsubscribes.
 */
export function traceOriginChannels(tracer: Tracer, ids?: OriginSpanIds): () => void {
  const spans = new Map<string, Span>();
  const key = (message: { origin: string; requestId: string }): string =>
    `${message.origin} ${message.requestId}`;
  const onStart = (message: unknown): void => {
    const start = message as RequestStartMessage;
    spans.set(key(start), startRequestSpan(tracer, ids, start));
  };
  const onEnd = (message: unknown): void => {
    const end = message as RequestEndMessage;
    const span = spans.get(key(end));
    if (!span) return;
    spans.delete(key(end));
    span.setAttributes({ 'http.response.status_code': end.status, 'rest_origin.outcome': end.outcome });
    if (end.code !== undefined) span.setAttributes({ 'error.type': end.code });
    if (end.outcome !== 'answered' || end.status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
    span.end();
  };
  diagnosticsChannel.subscribe(DIAGNOSTICS_CHANNELS.requestStart, onStart);
  diagnosticsChannel.subscribe(DIAGNOSTICS_CHANNELS.requestEnd, onEnd);
  return () => {
    diagnosticsChannel.unsubscribe(DIAGNOSTICS_CHANNELS.requestStart, onStart);
    diagnosticsChannel.unsubscribe(DIAGNOSTICS_CHANNELS.requestEnd, onEnd);
    for (const span of spans.values()) span.end();
    spans.clear();
  };
}

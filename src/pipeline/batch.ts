import type { DataRecord } from '../record/data-record';
import type { ResponseSink } from './response-sink';

/**
 * What the origin knows about the request a batch came from. The values are those of the records' header
 * attributes (`method`, `path`, `queryString`, `remoteHost` and one attribute per copied request header), so a
 * stage that needs the request does not have to read them from a record.
 */
export interface RequestInfo {
  /** Unique per origin for its lifetime; the same id appears in the origin's request and batch events. */
  readonly requestId: string;
  /** The HTTP method as the client sent it (`GET`, `POST`, ...). */
  readonly method: string;
  /** The path of the URL, without the query string. */
  readonly path: string;
  /** The query string without the leading `?`; empty when there is none. */
  readonly queryString: string;
  /** The address of the client or proxy that made the request. */
  readonly remoteHost: string;
  /** The request headers copied into header attributes: names as the client spelled them, repeats joined by `, `. */
  readonly headers: Readonly<Record<string, string>>;
  /** The application ID the request was admitted with, when application IDs are configured. */
  readonly applicationId?: string;
  /** When the origin received the request, in milliseconds since the epoch. */
  readonly receivedAt: number;
  /**
   * The request's W3C trace context as the origin continues it (`http.traceContext`, docs/trace-context.md):
   * absent when the request carried no valid `traceparent` (and the origin started no trace).
   */
  readonly traceContext?: TraceContext;
}

/**
 * The trace context of one request as the origin continues it (W3C Trace Context, level 1): the trace the request
 * belongs to, the caller's span (`parentId`, absent when the origin started the trace), and the origin's own span.
 */
export interface TraceContext {
  /** 32 lower-case hex digits, not all zero. */
  readonly traceId: string;
  /** The caller's span id from the incoming `traceparent` (16 hex digits); absent when the origin started the trace. */
  readonly parentId?: string;
  /** The origin's own span id for this request (16 hex digits, random). */
  readonly spanId: string;
  /** The trace flags (2 hex digits) as received, kept unchanged; `00` for a trace the origin started. */
  readonly traceFlags: string;
  /** The incoming `tracestate` (list members joined by `,`), when valid; the origin adds no member of its own. */
  readonly traceState?: string;
  /** The origin span's `traceparent`: `00-<traceId>-<spanId>-<traceFlags>`; echoed on the answer. */
  readonly traceparent: string;
}

/**
 * One unit of work for a pipeline runner: the records of one request, or nothing at all (an idle batch).
 *
 * A request batch carries its records in body order, the error records the origin produced for records it could
 * not parse (under `onRecordError: 'sendToError'`), the request info, and the response sink that response-sending
 * destinations (`SendResponse`) fill. An idle batch (`idle: true`) has no records, no request and no response;
 * the runner pool sends one to a runner that has been idle for the runner idle time, so that stages can flush or
 * close what they hold open.
 *
 * Stages own the batch while it runs: they may change the records and the arrays. The origin reads only the
 * response sink after the runner is done.
 */
export interface Batch {
  /** The records of the request in body order; empty for an idle batch. */
  readonly records: DataRecord[];
  /** Error records the origin produced while parsing (`onRecordError: 'sendToError'`); empty otherwise. */
  readonly errorRecords: DataRecord[];
  /** The request the records came from; absent for an idle batch. */
  readonly request?: RequestInfo;
  /** Where response-sending destinations put what goes back to the client; absent for an idle batch. */
  readonly response?: ResponseSink;
  /** True for the empty batches sent to idle runners. */
  readonly idle: boolean;
}

/** What {@link createRequestBatch} needs. */
export interface RequestBatchInit {
  readonly records: DataRecord[];
  readonly request: RequestInfo;
  /** Defaults to none. */
  readonly errorRecords?: DataRecord[];
  /**
   * Where response-sending stages put the answer; the origin passes its own. Absent: the batch has no response
   * sink, and `SendResponse` ignores it (as for an idle batch).
   */
  readonly response?: ResponseSink;
}

/**
 * Builds the batch of one request. The arrays are taken as they are (not copied): the batch owns them from now on.
 */
export function createRequestBatch(init: RequestBatchInit): Batch {
  return {
    records: init.records,
    errorRecords: init.errorRecords ?? [],
    request: init.request,
    response: init.response,
    idle: false,
  };
}

/** Builds an idle batch: no records, no request, no response. Each call returns a new batch with its own arrays. */
export function createIdleBatch(): Batch {
  return { records: [], errorRecords: [], idle: true };
}

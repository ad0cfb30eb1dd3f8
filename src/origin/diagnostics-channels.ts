import diagnosticsChannel from 'node:diagnostics_channel';
import type { ErrorCode } from '../errors/error-table';
import type { TraceContext } from '../pipeline/batch';
import type { ParseFailureAction, RequestOutcome } from './origin-metrics';

/**
 * Every `node:diagnostics_channel` channel the origin publishes on, by name. Subscribe with
 * `diagnostics_channel.subscribe(DIAGNOSTICS_CHANNELS.requestEnd, (message) => …)`. Each message is a fresh
 * plain object the subscriber may keep; it is made only while the channel has a subscriber, so an origin nobody
 * watches pays one `hasSubscribers` check per event. Subscribers run synchronously on the request path: keep them
 * short. An error a subscriber throws does not reach the request; Node rethrows it on the next tick, as an
 * uncaught exception, as it does for every channel.
 */
export const DIAGNOSTICS_CHANNELS = Object.freeze({
  /** A request arrived, before any check: {@link RequestStartMessage}. */
  requestStart: 'rest-service-origin:request:start',
  /** A request's answer was written, whatever it was (answer, rejection, failure): {@link RequestEndMessage}. */
  requestEnd: 'rest-service-origin:request:end',
  /** The pipeline ran a request's batch and its answer was written: {@link BatchMessage}. */
  batch: 'rest-service-origin:batch',
  /** A request was refused, or its batch failed: {@link RejectionMessage}. */
  rejection: 'rest-service-origin:rejection',
  /** The parser could not read one record (or the whole body) of a request: {@link RecordFailureMessage}. */
  recordFailure: 'rest-service-origin:record:failure',
});

/** What every message carries: the origin (`general.name`) and the request (the id its events and logs show). */
interface RequestMessage {
  readonly origin: string;
  readonly requestId: string;
}

/** Published on {@link DIAGNOSTICS_CHANNELS}.requestStart. */
export interface RequestStartMessage extends RequestMessage {
  readonly method: string;
  /** The request path, without the query string. */
  readonly path: string;
  /** The client's address. */
  readonly remoteHost: string;
  /**
   * The request's W3C trace context as the origin continues it, its own span id included (docs/trace-context.md);
   * `undefined` without one. A CORS preflight is not published (docs/cors.md).
   */
  readonly traceContext: TraceContext | undefined;
}

/** Published on {@link DIAGNOSTICS_CHANNELS}.requestEnd, exactly once per request that was published as started. */
export interface RequestEndMessage extends RequestMessage {
  /** The HTTP status of the answer. */
  readonly status: number;
  /** `answered` by the pipeline, `rejected` before it, `failed` in it. */
  readonly outcome: RequestOutcome;
  /** Milliseconds from arrival to the answer written. */
  readonly durationMs: number;
  /** Why it was rejected or failed; absent when answered. */
  readonly code?: ErrorCode;
}

/** Published on {@link DIAGNOSTICS_CHANNELS}.batch (the `batch` event's payload plus the origin). */
export interface BatchMessage extends RequestMessage {
  /** Records the batch held. */
  readonly records: number;
  /** Error records the origin made from parse failures. */
  readonly errorRecords: number;
  readonly status: number;
  /** Milliseconds from arrival to the answer written. */
  readonly durationMs: number;
}

/** Published on {@link DIAGNOSTICS_CHANNELS}.rejection (the `rejection` event's payload plus the origin). */
export interface RejectionMessage extends RequestMessage {
  readonly code: ErrorCode;
  readonly status: number;
  /** The full message, also when the client's answer withholds its details (decision 0046). */
  readonly message: string;
}

/** Published on {@link DIAGNOSTICS_CHANNELS}.recordFailure, once per parse failure of a request body. */
export interface RecordFailureMessage extends RequestMessage {
  /** The failure's error code (docs/errors.md). */
  readonly code: string;
  readonly message: string;
  /** The index of the failed record in the body. */
  readonly recordIndex: number;
  /** The byte offset in the (decoded) body where it failed. */
  readonly byteOffset: number;
  /** What became of it: the onRecordError policy that handled it, or `refused` (the whole body was refused). */
  readonly action: ParseFailureAction;
}

/** The channels themselves, made once per process (Node keeps one channel per name anyway). */
export const channels = {
  requestStart: diagnosticsChannel.channel(DIAGNOSTICS_CHANNELS.requestStart),
  requestEnd: diagnosticsChannel.channel(DIAGNOSTICS_CHANNELS.requestEnd),
  batch: diagnosticsChannel.channel(DIAGNOSTICS_CHANNELS.batch),
  rejection: diagnosticsChannel.channel(DIAGNOSTICS_CHANNELS.rejection),
  recordFailure: diagnosticsChannel.channel(DIAGNOSTICS_CHANNELS.recordFailure),
} as const;

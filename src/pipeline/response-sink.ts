import type { DataRecord } from '../record/data-record';

/**
 * Where the stages of a pipeline put what goes back to the client of a request: the contract a request
 * {@link Batch} carries as `batch.response`. The pipeline layer owns this interface so that batches and runner
 * pools need nothing from the response layer; the origin supplies the implementation (`BufferedResponseSink`)
 * when it builds the batch, and renders it once the runner is done.
 *
 * Contract of an implementation:
 * - `addRecords` / `addErrorRecords` append records (kept by reference, in arrival order) sent with a status code
 *   from 100 to 999 and optional response headers; several stages and several calls may add to one sink.
 * - A call with an invalid status code or header throws (`ORIGIN_RESPONSE_STATUS_INVALID`,
 *   `ORIGIN_RESPONSE_HEADER_INVALID`) and adds nothing; a call with no records validates and changes nothing.
 * - The readers return what was added so far: records in arrival order, the distinct status codes in the order
 *   each first appeared, and the headers by name (names match case-insensitively, values are not repeated).
 *
 * @see Batch
 */
export interface ResponseSink {
  /** Adds data records (the envelope's `data`) sent with `statusCode` and `headers`. */
  addRecords(
    records: readonly DataRecord[],
    statusCode: number,
    headers?: Readonly<Record<string, string>>,
  ): void;
  /** Adds error records (the envelope's `error`) sent with `statusCode` and `headers`. */
  addErrorRecords(
    records: readonly DataRecord[],
    statusCode: number,
    headers?: Readonly<Record<string, string>>,
  ): void;
  /** The data records in arrival order; read it, do not change it. */
  readonly dataRecords: readonly DataRecord[];
  /** The error records in arrival order; read it, do not change it. */
  readonly errorRecords: readonly DataRecord[];
  /** The distinct status codes records were added with, in the order each first appeared. */
  readonly statusCodes: readonly number[];
  /** The response headers asked for: name (as first spelled) → values in arrival order. */
  readonly headers: Readonly<Record<string, readonly string[]>>;
  /** True when no record was added. */
  readonly isEmpty: boolean;
}

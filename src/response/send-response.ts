import type { Batch } from '../pipeline/batch';
import type { DataRecord } from '../record/data-record';
import { assertResponseHeaders, assertResponseStatus } from './buffered-response-sink';

/** Options of {@link SendResponse} and {@link SendErrorResponse}. */
export interface SendResponseOptions {
  /** The status code the records are sent with; an integer from 100 to 999. */
  readonly statusCode?: number;
  /** Response headers sent with the records (static values). */
  readonly headers?: Readonly<Record<string, string>>;
}

function checkedOptions(
  options: SendResponseOptions,
  defaultStatus: number,
): { statusCode: number; headers: Readonly<Record<string, string>> } {
  const { statusCode = defaultStatus, headers = {} } = options;
  assertResponseStatus(statusCode);
  assertResponseHeaders(headers);
  return { statusCode, headers: Object.freeze({ ...headers }) };
}

// No headers at all spares the sink a check and a loop per batch.
function headersToAdd(
  headers: Readonly<Record<string, string>>,
): Readonly<Record<string, string>> | undefined {
  return Object.keys(headers).length === 0 ? undefined : headers;
}

/**
 * The Send Response to Origin destination: the last stage of a microservice pipeline, which passes records back
 * to the client that sent the request. Each `write` adds the records to the batch's response (the envelope's
 * `data`) with this destination's status code and headers.
 *
 * One instance serves any number of runners and batches: it holds only its configuration.
 */
export class SendResponse {
  /** Default 200. */
  readonly statusCode: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly #headersToAdd: Readonly<Record<string, string>> | undefined;

  /**
   * @throws OriginError `ORIGIN_RESPONSE_STATUS_INVALID` when `statusCode` is not an integer from 100 to 999;
   *   `ORIGIN_RESPONSE_HEADER_INVALID` when a header could not be sent.
   */
  constructor(options: SendResponseOptions = {}) {
    const checked = checkedOptions(options, 200);
    this.statusCode = checked.statusCode;
    this.headers = checked.headers;
    this.#headersToAdd = headersToAdd(checked.headers);
  }

  /**
   * The error-handling form (the pipeline's "Error Records" set to Send Response to Origin): its `write` adds
   * error records, with status 500 unless told otherwise.
   */
  static forErrors(options: SendResponseOptions = {}): SendErrorResponse {
    return new SendErrorResponse(options);
  }

  /**
   * Adds `records` (by default all records of the batch) to the batch's response. A batch without a response
   * (an idle batch, or a batch a host made without one) is ignored. The records are passed by reference: do not
   * change them afterwards.
   */
  write(batch: Batch, records: readonly DataRecord[] = batch.records): void {
    batch.response?.addRecords(records, this.statusCode, this.#headersToAdd);
  }
}

/**
 * The error-handling form of {@link SendResponse}: passes error records back to the client (the envelope's
 * `error`, and the whole body in raw mode). Its `errorMessage` is the message of the first error record.
 */
export class SendErrorResponse {
  /** Default 500. */
  readonly statusCode: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly #headersToAdd: Readonly<Record<string, string>> | undefined;

  /**
   * @throws OriginError `ORIGIN_RESPONSE_STATUS_INVALID` when `statusCode` is not an integer from 100 to 999;
   *   `ORIGIN_RESPONSE_HEADER_INVALID` when a header could not be sent.
   */
  constructor(options: SendResponseOptions = {}) {
    const checked = checkedOptions(options, 500);
    this.statusCode = checked.statusCode;
    this.headers = checked.headers;
    this.#headersToAdd = headersToAdd(checked.headers);
  }

  /**
   * Adds `records` (by default the error records the origin put in the batch) to the batch's response as error
   * records. A batch without a response is ignored.
   */
  write(batch: Batch, records: readonly DataRecord[] = batch.errorRecords): void {
    batch.response?.addErrorRecords(records, this.statusCode, this.#headersToAdd);
  }
}

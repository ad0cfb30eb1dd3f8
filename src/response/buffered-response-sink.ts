import { validateHeaderName, validateHeaderValue } from 'node:http';
import { OriginError } from '../errors/origin-error';
import type { ResponseSink } from '../pipeline/response-sink';
import type { DataRecord } from '../record/data-record';

/** The lowest and highest status code a response may carry (three digits, as HTTP/1.1 writes them). */
export const MIN_RESPONSE_STATUS = 100;
export const MAX_RESPONSE_STATUS = 999;

/**
 * Throws `ORIGIN_RESPONSE_STATUS_INVALID` unless `statusCode` is an integer from 100 to 999. The engine accepts
 * any positive integer (its tests use 867); Node can only send three digits.
 */
export function assertResponseStatus(statusCode: number): void {
  if (!Number.isInteger(statusCode) || statusCode < MIN_RESPONSE_STATUS || statusCode > MAX_RESPONSE_STATUS) {
    throw new OriginError('ORIGIN_RESPONSE_STATUS_INVALID', { statusCode: String(statusCode) });
  }
}

/**
 * Throws `ORIGIN_RESPONSE_HEADER_INVALID` unless every entry of `headers` is a header Node can send: the name an
 * HTTP token, the value a string without CR, LF or other forbidden characters.
 */
export function assertResponseHeaders(headers: Readonly<Record<string, string>>): void {
  for (const name of Object.keys(headers)) {
    const value: unknown = headers[name];
    try {
      validateHeaderName(name);
      if (typeof value !== 'string') throw new TypeError(`its value is a ${typeof value}, not a string`);
      validateHeaderValue(name, value);
    } catch (error) {
      const detail = error instanceof Error ? error.message : String(error);
      throw new OriginError('ORIGIN_RESPONSE_HEADER_INVALID', { name, detail }, { cause: error });
    }
  }
}

// Frozen: the getters hand them out, and a caller that changed one would change every empty sink.
const NO_RECORDS = Object.freeze([]) as unknown as DataRecord[];
const NO_STATUS_CODES = Object.freeze([]) as unknown as number[];

/** `records` after `target`: a copy of `records` while `target` is the shared empty array, else `target` grown. */
function appended(target: DataRecord[], records: readonly DataRecord[]): DataRecord[] {
  if (target === NO_RECORDS) return records.slice();
  for (const record of records) target.push(record);
  return target;
}

interface HeaderEntry {
  /** The name as first given; later spellings of the same name (any case) join this entry. */
  readonly name: string;
  readonly values: string[];
}

/**
 * The origin's {@link ResponseSink}: what the pipeline sends back for one batch, held in memory. It keeps the data
 * records and error records that response-sending destinations passed, the status codes they passed them with,
 * and the response headers they asked for. The origin makes one per request batch and renders it into the HTTP
 * response once the runner is done with the batch.
 *
 * Records are kept as references (not copied), in arrival order; a stage must not change a record after passing
 * it. Several stages, and several runs of one stage, may add to the same sink; each call appends. A call with no
 * records changes nothing: the status and headers of a response come from the records in it, as in the engine.
 */
export class BufferedResponseSink implements ResponseSink {
  // Shared empty arrays until the first records come, then a copy sized to them: `push` onto an empty array
  // reserves room for 17, and nearly every response holds one or a few records of one status code.
  #dataRecords: DataRecord[] = NO_RECORDS;
  #errorRecords: DataRecord[] = NO_RECORDS;
  #statusCodes: number[] = NO_STATUS_CODES;
  // Allocated by the first records that come with headers; most pipelines send none.
  #headers: Map<string, HeaderEntry> | undefined;

  /**
   * Adds data records (the envelope's `data`) sent with `statusCode` and `headers`.
   * @throws OriginError `ORIGIN_RESPONSE_STATUS_INVALID` or `ORIGIN_RESPONSE_HEADER_INVALID`; nothing is added.
   */
  addRecords(
    records: readonly DataRecord[],
    statusCode: number,
    headers?: Readonly<Record<string, string>>,
  ): void {
    this.#check(statusCode, headers);
    if (records.length === 0) return;
    this.#dataRecords = appended(this.#dataRecords, records);
    this.#note(statusCode, headers);
  }

  /**
   * Adds error records (the envelope's `error`) sent with `statusCode` and `headers`.
   * @throws OriginError `ORIGIN_RESPONSE_STATUS_INVALID` or `ORIGIN_RESPONSE_HEADER_INVALID`; nothing is added.
   */
  addErrorRecords(
    records: readonly DataRecord[],
    statusCode: number,
    headers?: Readonly<Record<string, string>>,
  ): void {
    this.#check(statusCode, headers);
    if (records.length === 0) return;
    this.#errorRecords = appended(this.#errorRecords, records);
    this.#note(statusCode, headers);
  }

  /** The data records in arrival order. The array is the sink's own; read it, do not change it. */
  get dataRecords(): readonly DataRecord[] {
    return this.#dataRecords;
  }

  /** The error records in arrival order. The array is the sink's own; read it, do not change it. */
  get errorRecords(): readonly DataRecord[] {
    return this.#errorRecords;
  }

  /** The distinct status codes records were added with, in the order each first appeared. */
  get statusCodes(): readonly number[] {
    return this.#statusCodes;
  }

  /**
   * The response headers asked for, as a new object on each read: name (as first spelled; names match
   * case-insensitively) → values in arrival order. A value already present for a name is not repeated.
   */
  get headers(): Record<string, readonly string[]> {
    // Nearly every response asks for no header: a literal then, cheaper to make than a null-prototype object.
    if (this.#headers === undefined) return {};
    const out = Object.create(null) as Record<string, readonly string[]>;
    for (const entry of this.#headers.values()) out[entry.name] = entry.values.slice();
    return out;
  }

  /** True when no record was added. */
  get isEmpty(): boolean {
    return this.#dataRecords.length === 0 && this.#errorRecords.length === 0;
  }

  #check(statusCode: number, headers: Readonly<Record<string, string>> | undefined): void {
    assertResponseStatus(statusCode);
    if (headers !== undefined) assertResponseHeaders(headers);
  }

  /** Notes the status code and headers of records just added (checked before they were). */
  #note(statusCode: number, headers: Readonly<Record<string, string>> | undefined): void {
    if (this.#statusCodes === NO_STATUS_CODES) this.#statusCodes = [statusCode];
    else if (!this.#statusCodes.includes(statusCode)) this.#statusCodes.push(statusCode);
    if (headers === undefined) return;
    this.#headers ??= new Map();
    for (const name of Object.keys(headers)) {
      const value = headers[name] as string;
      const key = name.toLowerCase();
      const entry = this.#headers.get(key);
      if (entry === undefined) this.#headers.set(key, { name, values: [value] });
      else if (!entry.values.includes(value)) entry.values.push(value);
    }
  }
}

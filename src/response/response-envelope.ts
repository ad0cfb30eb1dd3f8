import { OriginError, isOriginError } from '../errors/origin-error';
import type { DataRecord } from '../record/data-record';
import type { ResponseEncoding } from './response-encoding';
import type { ResponseSink } from '../pipeline/response-sink';
import { responseStatus } from './status-rule';

/**
 * What one response format writes; the rest of a response (status, which records, headers, render failures) is
 * the same for JSON and XML and built by {@link renderSink}.
 */
export interface EnvelopeWriter {
  /** The MIME type of `Content-Type`, before `; charset=`. */
  readonly mimeType: string;
  /** The envelope of a response: status, data and error record values, the first error message if any. */
  envelope(
    status: number,
    data: readonly DataRecord[],
    errors: readonly DataRecord[],
    errorMessage: string | undefined,
  ): string;
  /** The raw body (`sendRawResponse`) of these records. */
  raw(records: readonly DataRecord[]): string;
}

/** A response's status and its text, before the charset encodes it. */
export interface RenderedText {
  readonly status: number;
  readonly text: string;
}

/**
 * Renders what the pipeline put in `sink` with `writer`: the status of {@link responseStatus}; the envelope of the
 * data and error records and the message of the first error record that has one, or in raw mode the error
 * records when there are any, else the data records. What the writer throws other than an OriginError becomes
 * `ORIGIN_RESPONSE_RENDER_FAILED` with the error as cause.
 */
export function renderSink(sink: ResponseSink, raw: boolean, writer: EnvelopeWriter): RenderedText {
  const status = responseStatus(sink);
  const errors = sink.errorRecords;
  try {
    const text = raw
      ? writer.raw(errors.length > 0 ? errors : sink.dataRecords)
      : writer.envelope(status, sink.dataRecords, errors, firstErrorMessage(errors));
    return { status, text };
  } catch (error) {
    if (isOriginError(error)) throw error;
    const detail = error instanceof Error ? error.message : String(error);
    throw new OriginError('ORIGIN_RESPONSE_RENDER_FAILED', { detail }, { cause: error });
  }
}

// `<CODE> - `: an error code (the origin's `ORIGIN_*`, an engine's `CONTAINER_0010`, …) and the separator.
const CODE_PREFIX = /^[A-Z][A-Z0-9_]* - /;

/**
 * The message of the first error record that has one, in the engine's `"<CODE> - <text>"` form: a message not in
 * that form already (one a host stage made with `DataRecord.createErrorRecord(r, { code, message })`) gets its
 * record's `errorCode` and ` - ` in front, as the origin's own error records have.
 */
export function firstErrorMessage(records: readonly DataRecord[]): string | undefined {
  for (const record of records) {
    const { errorCode: code, errorMessage: message } = record.header;
    if (message === undefined) continue;
    return code === undefined || code === '' || CODE_PREFIX.test(message) ? message : `${code} - ${message}`;
  }
  return undefined;
}

// The HTTP layer owns these: a pipeline header must not describe a body other than the one rendered here.
const RESERVED_HEADERS = new Set(['content-type', 'content-length', 'transfer-encoding']);

/** `<mimeType>; charset=<charset>`, the `Content-Type` of a response; made once per renderer, not per response. */
export function contentTypeOf(mimeType: string, charset: ResponseEncoding): string {
  return `${mimeType}; charset=${charset.headerLabel}`;
}

/**
 * The headers of a response: `Content-Type` first (see {@link contentTypeOf}), then the headers the pipeline
 * asked for in `sink` (several values of one name joined by `, `), except `Content-Type`, `Content-Length` and
 * `Transfer-Encoding`, which describe the rendered body. A new object the caller may add to.
 */
export function responseHeaders(contentType: string, sink: ResponseSink | undefined): Record<string, string> {
  // A literal, not Object.create(null): V8 keeps a null-prototype object in dictionary mode, which made
  // writing the head of every response measurably slower.
  const headers: Record<string, string> = { 'Content-Type': contentType };
  if (sink === undefined) return headers;
  const asked = sink.headers;
  for (const name of Object.keys(asked)) {
    if (RESERVED_HEADERS.has(name.toLowerCase())) continue;
    const value = (asked[name] as readonly string[]).join(', ');
    // Plain assignment of `__proto__` would set the prototype instead of a header.
    if (name === '__proto__') {
      Object.defineProperty(headers, name, { value, enumerable: true, writable: true, configurable: true });
    } else {
      headers[name] = value;
    }
  }
  return headers;
}

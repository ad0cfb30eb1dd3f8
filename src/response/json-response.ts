import type { DataRecord } from '../record/data-record';
import { valueToWrite } from '../record/deferred-record';
import { fieldValueToJson, fieldValuesToJsonArray, isJsonNative } from '../record/json-text';
import type { FieldValue } from '../record/field';
import type { ResponseSink } from '../pipeline/response-sink';
import { UTF_8, responseEncoding, type ResponseEncoding } from './response-encoding';
import {
  contentTypeOf,
  firstErrorMessage,
  renderSink,
  responseHeaders,
  type EnvelopeWriter,
} from './response-envelope';
import { OriginError, isOriginError } from '../errors/origin-error';
import { responseStatus } from './status-rule';

export { isSupportedResponseCharset } from './response-encoding';

/** The parts of the HTTP Response config the JSON renderer reads (`httpResponse` with defaults applied). */
export interface JsonResponseConfig {
  /** Send the records without the envelope. */
  readonly sendRawResponse: boolean;
  /** How raw mode presents several records; the envelope is always one object. */
  readonly jsonContent: 'arrayOfObjects' | 'multipleObjects';
  /** UTF-8, UTF-16LE, ISO-8859-1 (latin1) or US-ASCII, in any letter case. */
  readonly charset: string;
}

/** A response ready to be written: `res.writeHead(status, headers); res.end(body)`. */
export interface RenderedResponse {
  readonly status: number;
  /** `Content-Type` first, then the headers the pipeline asked for. `Content-Length` is left to the HTTP layer. */
  readonly headers: Record<string, string>;
  /**
   * The body: UTF-8 text as a string, any other charset as bytes. A string lets Node write the headers and the
   * body in one piece (a `Buffer` body goes out as a second chunk, which cost ~6 µs per request on a small echo).
   * The caller owns it; its length in bytes is {@link renderedBodyLength}.
   */
  readonly body: string | Buffer;
}

/** The length in bytes of a rendered body (a string body is UTF-8). */
export function renderedBodyLength(body: string | Buffer): number {
  return typeof body === 'string' ? Buffer.byteLength(body, 'utf8') : body.length;
}

function escapeUnit(unit: string): string {
  return `\\u${unit.charCodeAt(0).toString(16).padStart(4, '0')}`;
}

function encode(text: string, charset: ResponseEncoding): string | Buffer {
  if (charset === UTF_8) return text;
  // Outside strings JSON text is ASCII, so every character matched here is inside a string, where an escape
  // means the same character.
  const unencodable = charset.unencodableUnits;
  const safe = unencodable === undefined ? text : text.replace(unencodable, escapeUnit);
  return Buffer.from(safe, charset.encoding);
}

/** `[v1,v2,…]`, the JSON array of the records' values; the hot path of every response. */
function valuesArray(records: readonly DataRecord[]): string {
  return fieldValuesToJsonArray(records.map((record) => record.value));
}

/** The records' values as JSON texts joined by `separator` (raw `multipleObjects`). */
function joinValues(records: readonly DataRecord[], separator: string): string {
  let text = '';
  for (let i = 0; i < records.length; i++) {
    if (i > 0) text += separator;
    text += fieldValueToJson((records[i] as DataRecord).value);
  }
  return text;
}

function envelopeText(status: number, data: string, error: string, errorMessage: string | undefined): string {
  const message = errorMessage === undefined ? 'null' : JSON.stringify(errorMessage);
  return `{"httpStatusCode":${status},"data":${data},"error":${error},"errorMessage":${message}}`;
}

function rawText(records: readonly DataRecord[], jsonContent: JsonResponseConfig['jsonContent']): string {
  if (records.length === 0) return '';
  return jsonContent === 'arrayOfObjects' ? valuesArray(records) : joinValues(records, '\n');
}

const JSON_MIME_TYPE = 'application/json';

const NO_VALUES: readonly FieldValue[] = Object.freeze([]);

function envelope(
  status: number,
  data: readonly DataRecord[],
  errors: readonly DataRecord[],
  errorMessage: string | undefined,
): string {
  const values = data.map((record) => record.value);
  // The common answer (JSON-native values, no error records) in one native call: one flat string, rather than
  // the array's text joined into a template that is copied again when written.
  if (errors.length === 0 && isJsonNative(values)) {
    return JSON.stringify({ httpStatusCode: status, data: values, error: NO_VALUES, errorMessage: null });
  }
  return envelopeText(status, fieldValuesToJsonArray(values), valuesArray(errors), errorMessage);
}

// One writer per raw layout, made once: the hot path allocates no writer.
const WRITERS: Readonly<Record<JsonResponseConfig['jsonContent'], EnvelopeWriter>> = {
  arrayOfObjects: {
    mimeType: JSON_MIME_TYPE,
    envelope,
    raw: (records) => rawText(records, 'arrayOfObjects'),
  },
  multipleObjects: {
    mimeType: JSON_MIME_TYPE,
    envelope,
    raw: (records) => rawText(records, 'multipleObjects'),
  },
};

/**
 * Renders the JSON response to one batch from what the pipeline put in `sink`.
 *
 * - Status: {@link responseStatus} (200 when the sink is empty, the one code, or 207 for mixed codes).
 * - Envelope (default): one compact object, keys in this order: `httpStatusCode`, `data` (data record values),
 *   `error` (error record values), `errorMessage` (the message of the first error record that has one, else
 *   `null`), e.g. `{"httpStatusCode":200,"data":[{"a":1}],"error":[],"errorMessage":null}`. `jsonContent` does
 *   not apply to it.
 * - Raw (`sendRawResponse`): the error record values when there are any, else the data record values, else an
 *   empty body. `arrayOfObjects` writes one array `[v1,v2]`; `multipleObjects` one value per line, joined by
 *   `\n` with no newline after the last.
 * - Headers: `Content-Type: application/json; charset=<charset>` (also for an empty raw body), then the
 *   headers the pipeline asked for, several values of one name joined by `, `. A pipeline header named
 *   `Content-Type`, `Content-Length` or `Transfer-Encoding` is dropped.
 * - Charset: text outside the charset (ISO-8859-1, US-ASCII) is written as JSON `\uXXXX` escapes, so the body
 *   stays exact.
 *
 * @throws OriginError `ORIGIN_RESPONSE_CHARSET_UNSUPPORTED` for another charset; `ORIGIN_RESPONSE_RENDER_FAILED`
 *   when a record value cannot be written as JSON.
 */
export function renderJsonResponse(sink: ResponseSink, config: JsonResponseConfig): RenderedResponse {
  return jsonRenderer(config)(sink);
}

/**
 * {@link renderJsonResponse} with the charset, `Content-Type` and writer of `config` resolved once: the renderer
 * an origin keeps for all its responses.
 *
 * @throws OriginError `ORIGIN_RESPONSE_CHARSET_UNSUPPORTED` at once for an unsupported charset.
 */
export function jsonRenderer(config: JsonResponseConfig): (sink: ResponseSink) => RenderedResponse {
  const charset = responseEncoding(config.charset);
  const contentType = contentTypeOf(JSON_MIME_TYPE, charset);
  const writer = WRITERS[config.jsonContent];
  const raw = config.sendRawResponse;
  return (sink) => {
    const { status, text } = renderSink(sink, raw, writer);
    return { status, headers: responseHeaders(contentType, sink), body: encode(text, charset) };
  };
}

/**
 * Renders the JSON answer to a request the origin rejected (or whose batch failed):
 * `{"httpStatusCode":<status>,"data":[],"error":[],"errorMessage":"<errorMessage>"}` with `status` as the HTTP
 * status. `errorMessage` is sent as given; by convention it is `"<CODE> - <message>"` (`OriginError.describe()`).
 *
 * Raw mode uses this envelope too: a raw body has no place for the error, and a client must be able to tell a
 * rejection from an empty answer.
 *
 * @throws OriginError `ORIGIN_RESPONSE_CHARSET_UNSUPPORTED` when `config.charset` is not supported.
 */
export function renderJsonEnvelopeError(
  status: number,
  errorMessage: string,
  config: Pick<JsonResponseConfig, 'charset'>,
): RenderedResponse {
  const charset = responseEncoding(config.charset);
  return {
    status,
    headers: responseHeaders(contentTypeOf(JSON_MIME_TYPE, charset), undefined),
    body: encode(envelopeText(status, '[]', '[]', errorMessage), charset),
  };
}

/**
 * A response rendered in pieces ({@link jsonPieceRenderer}): its body is the pieces' bytes in order. The caller
 * owns the pieces.
 */
export interface RenderedPieces {
  readonly status: number;
  /** As {@link RenderedResponse.headers}. */
  readonly headers: Record<string, string>;
  /**
   * Renders the next piece of the body, of at most `sliceRecords` records, and returns its bytes; `undefined` once
   * the body is complete. Synchronous: the caller decides how many pieces one event-loop turn renders.
   *
   * @throws OriginError `ORIGIN_RESPONSE_RENDER_FAILED` when a record value cannot be written as JSON.
   */
  next(): Buffer | undefined;
}

/**
 * {@link jsonRenderer} in pieces, for responses too large to render in one step without holding the event loop
 * (decision 0090): the pieces, concatenated, are byte for byte the body {@link renderJsonResponse} renders, with
 * the same status and headers. Each piece holds at most `sliceRecords` record values; the envelope's (or the raw
 * array's) punctuation goes with the first and last pieces.
 *
 * @throws OriginError `ORIGIN_RESPONSE_CHARSET_UNSUPPORTED` at once for an unsupported charset.
 */
export function jsonPieceRenderer(
  config: JsonResponseConfig,
  sliceRecords: number,
): (sink: ResponseSink) => RenderedPieces {
  const charset = responseEncoding(config.charset);
  const contentType = contentTypeOf(JSON_MIME_TYPE, charset);
  const bytesOf = (text: string): Buffer =>
    charset === UTF_8 ? Buffer.from(text, 'utf8') : (encode(text, charset) as Buffer);
  return (sink) => {
    const status = responseStatus(sink);
    const texts = config.sendRawResponse
      ? rawPieces(sink, config.jsonContent, sliceRecords)
      : envelopePieces(status, sink, sliceRecords);
    return {
      status,
      headers: responseHeaders(contentType, sink),
      next: () => {
        let step: IteratorResult<string>;
        try {
          step = texts.next();
        } catch (error) {
          if (isOriginError(error)) throw error;
          const detail = error instanceof Error ? error.message : String(error);
          throw new OriginError('ORIGIN_RESPONSE_RENDER_FAILED', { detail }, { cause: error });
        }
        return step.done === true ? undefined : bytesOf(step.value);
      },
    };
  };
}

/** The values of `records[from, from + count)` as JSON texts joined by commas, without brackets. */
function arrayItems(records: readonly DataRecord[], from: number, count: number): string {
  const values: FieldValue[] = [];
  const to = Math.min(records.length, from + count);
  // A large body's deferred values are decoded for the write and not kept (decision 0125).
  for (let i = from; i < to; i++) values.push(valueToWrite(records[i] as DataRecord));
  // `[a,b]` without its brackets: the same text a whole array's elements get, in either writer.
  return fieldValuesToJsonArray(values).slice(1, -1);
}

/** The items of a JSON array of `records`' values, a slice at a time, each but the first led by a comma. */
function* arraySlices(records: readonly DataRecord[], sliceRecords: number): Generator<string> {
  for (let from = 0; from < records.length; from += sliceRecords) {
    const items = arrayItems(records, from, sliceRecords);
    yield from === 0 ? items : `,${items}`;
  }
}

function* envelopePieces(status: number, sink: ResponseSink, sliceRecords: number): Generator<string> {
  const errors = sink.errorRecords;
  let text = `{"httpStatusCode":${status},"data":[`;
  for (const slice of arraySlices(sink.dataRecords, sliceRecords)) {
    yield text + slice;
    text = '';
  }
  text += '],"error":[';
  for (const slice of arraySlices(errors, sliceRecords)) {
    yield text + slice;
    text = '';
  }
  const message = firstErrorMessage(errors);
  yield `${text}],"errorMessage":${message === undefined ? 'null' : JSON.stringify(message)}}`;
}

function* rawPieces(
  sink: ResponseSink,
  jsonContent: JsonResponseConfig['jsonContent'],
  sliceRecords: number,
): Generator<string> {
  const records = sink.errorRecords.length > 0 ? sink.errorRecords : sink.dataRecords;
  if (records.length === 0) return;
  if (jsonContent === 'arrayOfObjects') {
    let text = '[';
    for (const slice of arraySlices(records, sliceRecords)) {
      yield text + slice;
      text = '';
    }
    yield `${text}]`;
    return;
  }
  for (let from = 0; from < records.length; from += sliceRecords) {
    const text = joinValues(records.slice(from, from + sliceRecords), '\n');
    yield from === 0 ? text : `\n${text}`;
  }
}

import type { FieldValue } from '../../record/field';
import type { ParsedRecord, ParseFailure, ParseResult, Parser } from '../data-format';
import { failure } from '../failure';
import { decodeJsonExact, findJsonSyntaxError, JsonSyntaxError } from './exact-json-decoder';
import { JsonFramer, type JsonContent, type JsonFrameSink } from './json-framer';
import { TextArena } from '../text-arena';
import { TextInput } from '../text-input';

/** The options a {@link JsonParser} needs: the JSON format's config with defaults applied. */
export interface JsonParserOptions {
  readonly jsonContent: JsonContent;
  readonly maxObjectLengthChars: number;
  readonly maxNestingDepth: number;
  readonly charset: string;
  readonly ignoreControlCharacters: boolean;
}

/**
 * Parses one JSON body into records: every top-level value (`multipleObjects`) or every element of the top-level
 * array (`arrayOfObjects`) is one record.
 *
 * Framing (finding where each value ends, {@link JsonFramer}) is kept apart from decoding: each value's text is
 * decoded by `JSON.parse`, except a value with a run of 16 or more digits outside strings, which goes to
 * {@link decodeJsonExact} so that integers beyond 2^53 stay exact (`bigint` up to the signed 64-bit range,
 * DECIMAL beyond). A value that is not valid JSON is an `ORIGIN_JSON_MALFORMED` failure whose message gives the
 * byte of the error; parsing goes on with the next value. A value nested deeper than `maxNestingDepth` is an
 * `ORIGIN_JSON_TOO_DEEP` failure and is not decoded, so that no later step runs out of call stack on it.
 */
export class JsonParser implements Parser {
  readonly #options: JsonParserOptions;
  readonly #input: TextInput;
  // Made on first use: the whole-body path of parseAll (most requests) never frames, and a parser is made per
  // request.
  #framerMade: JsonFramer | undefined;
  #sinkMade: RecordSink | undefined;

  /** @throws `OriginError('ORIGIN_CHARSET_UNSUPPORTED')` when `options.charset` has no decoder here. */
  constructor(options: JsonParserOptions) {
    this.#options = options;
    this.#input = new TextInput(options.charset, options.ignoreControlCharacters);
  }

  get #framer(): JsonFramer {
    const { jsonContent, maxObjectLengthChars, maxNestingDepth } = this.#options;
    return (this.#framerMade ??= new JsonFramer(jsonContent, maxObjectLengthChars, maxNestingDepth));
  }

  get #sink(): RecordSink {
    return (this.#sinkMade ??= new RecordSink());
  }

  /** From now on, a value is kept as its text, checked now and decoded on first read (decision 0125). */
  deferValues(): void {
    this.#sink.defer();
  }

  /**
   * Bytes this parser holds between calls: at most the text of the value in progress (up to
   * `maxObjectLengthChars` characters), or the head of an over-long value kept for its excerpt.
   */
  get bufferedBytes(): number {
    return this.#input.bufferedBytes + (this.#framerMade?.bufferedBytes ?? 0);
  }

  push(chunk: Uint8Array): ParseResult {
    this.#frame(this.#input.push(chunk));
    return this.#sink.take();
  }

  end(): ParseResult {
    this.#frame(this.#input.end());
    this.#framer.end(this.#sink);
    return this.#sink.take();
  }

  /**
   * `push(bytes)` then `end()`, with their results as one. A well-formed body that nothing could make differ
   * (see {@link wholeBodyRecords}) is decoded by a single `JSON.parse`; any other is framed, and the framer
   * decodes every value straight out of `bytes`, so apart from a trailing value that is not closed nothing is
   * copied.
   */
  parseAll(bytes: Uint8Array): ParseResult {
    const whole = wholeBodyRecords(bytes, this.#options, this.#input.isPassThrough);
    if (whole) return { records: whole, failures: [] };
    this.#frame(this.#input.push(bytes));
    this.#frame(this.#input.end());
    this.#framer.end(this.#sink);
    return this.#sink.take();
  }

  #frame({ bytes, skipped }: { bytes: Buffer; skipped: number }): void {
    this.#framer.skip(skipped);
    this.#framer.push(bytes, this.#sink);
  }
}

const UTF8_BOM = 0xfeff;
/** Digits in the shortest run that can hold an integer beyond 2^53 − 1 (9007199254740991 has 16). */
const LONG_DIGIT_RUN = 16;

/**
 * Whether `text` holds a run of {@link LONG_DIGIT_RUN} ASCII digits (`/\d{16}/`, in a short text: see
 * {@link wholeBodyRecords}). Any 16 consecutive characters cover exactly one index `i` with `i % 16 === 15`, so
 * only the characters at those indexes are looked at, and a run is measured only around one that is a digit: about
 * a sixteenth of the text's characters, against every one for the regular expression.
 */
export function hasLongDigitRun(text: string): boolean {
  const n = text.length;
  for (let i = LONG_DIGIT_RUN - 1; i < n; i += LONG_DIGIT_RUN) {
    if (!isDigit(text.charCodeAt(i))) continue;
    let start = i;
    while (start > 0 && isDigit(text.charCodeAt(start - 1))) start--;
    let end = i + 1;
    while (end < n && isDigit(text.charCodeAt(end))) end++;
    if (end - start >= LONG_DIGIT_RUN) return true;
  }
  return false;
}

function isDigit(code: number): boolean {
  return code >= 0x30 && code <= 0x39;
}

/**
 * The records of a whole body decoded by one native `JSON.parse`, when that gives exactly what framing would:
 * UTF-8 input passed through unchanged (`passThrough`), the whole text within `maxObjectLengthChars` (so no
 * record can pass the limit; bytes ≥ characters), a body that is one JSON value (an array, for `arrayOfObjects`),
 * and nothing in it that framing would decode otherwise ({@link framingWouldDiffer}; in a short text, no run of
 * 16 digits). Anything else, malformed bodies included, returns `undefined` and takes the framing path, which also
 * finds where and why a body fails.
 *
 * Why: on the common request (one small object, or one array of objects) framing in JS costs as much as the
 * native decoding itself; this path makes parsing cost about one `JSON.parse` and one walk of what it made.
 */
function wholeBodyRecords(
  bytes: Uint8Array,
  options: JsonParserOptions,
  passThrough: boolean,
): ParsedRecord[] | undefined {
  if (!passThrough || bytes.length > options.maxObjectLengthChars) return undefined;
  // A body's bytes are the socket's own Buffer nearly always: decoded as they are (UTF-8 is toString's default).
  const buffer =
    bytes instanceof Buffer ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let text = buffer.toString();
  if (text.charCodeAt(0) === UTF8_BOM) text = text.slice(1);
  let value: FieldValue;
  try {
    value = JSON.parse(text) as FieldValue;
  } catch {
    return undefined;
  }
  // A text too short to nest deeper than the limit needs no walk: only a digit run can tell it apart, and on so
  // few characters a scan for one costs less than a walk of the decoded value.
  const maxDepth = options.maxNestingDepth;
  if (text.length <= 2 * maxDepth ? hasLongDigitRun(text) : framingWouldDiffer(value, maxDepth)) {
    return undefined;
  }
  if (options.jsonContent === 'multipleObjects') return [{ value }];
  return Array.isArray(value) ? value.map((element) => ({ value: element })) : undefined;
}

/**
 * Whether the framing path would decode the text of `value` differently, or refuse it: when it nests deeper than
 * `maxDepth` (the root array or object is level 1, as the framer counts), or holds a number beyond ±(2^53 − 1).
 * Such a number came from an integer too long for a double, which the framing path decodes exactly (a `bigint`
 * or a DECIMAL, {@link decodeJsonExact}), or from a fraction or exponent, which it decodes to the same double;
 * either way framing gives the right answer. Every other number is the same double on both paths.
 *
 * One walk over what `JSON.parse` made, rather than a regular expression over the text for runs of 16 digits:
 * that scan cost more than a tenth of a 100-record request (CPU profile), and sent bodies with long digit runs
 * inside strings (card numbers, IDs) down the slow path for nothing.
 */
function framingWouldDiffer(value: FieldValue, maxDepth: number): boolean {
  if (typeof value !== 'object' || value === null) return isBeyondDouble(value);
  return containerWouldDiffer(value, 1, maxDepth);
}

/**
 * {@link framingWouldDiffer} for an array or object at `depth`. Recursive: it stops one level past `maxDepth`, so
 * the call stack is never deeper than the limit (500 by default) however deep the value, and it runs about a third
 * faster than a loop over explicit stacks of nodes and depths (`bench/echo-body.ts`'s 100 records, 11 µs against
 * 16).
 */
function containerWouldDiffer(node: object, depth: number, maxDepth: number): boolean {
  if (depth > maxDepth) return true;
  // Index and `for…in` loops rather than Object.values: no array per object on a walk that visits them all.
  if (Array.isArray(node)) {
    for (let i = 0; i < node.length; i++) if (childWouldDiffer(node[i], depth, maxDepth)) return true;
    return false;
  }
  for (const key in node) {
    if (childWouldDiffer((node as Record<string, unknown>)[key], depth, maxDepth)) return true;
  }
  return false;
}

function childWouldDiffer(child: unknown, depth: number, maxDepth: number): boolean {
  if (typeof child !== 'object') return isBeyondDouble(child);
  return child !== null && containerWouldDiffer(child, depth + 1, maxDepth);
}

/** A number no double holds exactly as an integer: past ±(2^53 − 1), or not finite (`1e400`). */
function isBeyondDouble(value: unknown): boolean {
  return typeof value === 'number' && !(Math.abs(value) <= Number.MAX_SAFE_INTEGER);
}

/** Decodes framed values into records, collecting what one call of the parser produced. */
class RecordSink implements JsonFrameSink {
  #records: ParsedRecord[] = [];
  #failures: ParseFailure[] = [];
  /**
   * Set while values are kept as their text once decoded successfully (the decoded value is dropped at once): the
   * texts are copied out of the heap (decision 0135).
   */
  #texts: TextArena | undefined;

  defer(): void {
    this.#texts ??= new TextArena();
  }

  value(
    bytes: Buffer,
    start: number,
    end: number,
    index: number,
    byteOffset: number,
    exact: boolean,
    ascii: boolean,
  ): void {
    // latin1 decoding is a plain copy, several times faster than UTF-8 decoding, and equal to it on ASCII.
    const text = bytes.toString(ascii ? 'latin1' : 'utf8', start, end);
    const decode = exact ? decodeJsonExact : parseJson;
    let value: FieldValue;
    try {
      value = decode(text);
    } catch (error) {
      this.#failures.push(malformedValue(text, index, byteOffset, error));
      return;
    }
    // Deferred, the value just decoded is garbage at once (cheap to collect), and so is the text: its bytes are
    // what stays, outside the heap.
    const texts = this.#texts;
    this.#records.push(
      texts === undefined ? { value } : { value: null, deferred: texts.copy(bytes, start, end, decode) },
    );
  }

  failure(failure: ParseFailure): void {
    this.#failures.push(failure);
  }

  take(): ParseResult {
    const result = { records: this.#records, failures: this.#failures };
    this.#records = [];
    this.#failures = [];
    return result;
  }
}

function parseJson(text: string): FieldValue {
  return JSON.parse(text) as FieldValue;
}

function malformedValue(text: string, index: number, byteOffset: number, error: unknown): ParseFailure {
  // JSON.parse's message names neither a byte offset nor, on Node 20, always a position, so the exact decoder
  // (which accepts the same grammar) is asked where and why the text fails.
  const syntax = error instanceof JsonSyntaxError ? error : findJsonSyntaxError(text);
  const position = syntax?.position ?? 0;
  const detail = syntax?.detail ?? (error instanceof Error ? error.message : String(error));
  const offset = byteOffset + Buffer.byteLength(text.slice(0, position), 'utf8');
  return failure({
    code: 'ORIGIN_JSON_MALFORMED',
    params: { offset, detail },
    recordIndex: index,
    byteOffset,
    excerpt: text,
    canContinue: true,
  });
}

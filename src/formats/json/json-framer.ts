import type { ErrorCode, ErrorParams } from '../../errors/error-table';
import type { ParseFailure } from '../data-format';
import { excerptFromBytes, failure, MAX_EXCERPT_BYTES } from '../failure';
import { describeCode } from './exact-json-decoder';

/** Receives what a {@link JsonFramer} finds, in input order. */
export interface JsonFrameSink {
  /**
   * One complete top-level value (or array element): its UTF-8 text is `bytes[start, end)`. `exact` is true when
   * the text has a run of 16 or more digits outside strings, i.e. when it may hold an integer that a double
   * cannot represent; `ascii` is true when every byte is below 0x80. `bytes` is only valid during the call.
   */
  value(
    bytes: Buffer,
    start: number,
    end: number,
    index: number,
    byteOffset: number,
    exact: boolean,
    ascii: boolean,
  ): void;
  /** A framing failure: an over-long value, a structural error between values, or a truncated input. */
  failure(failure: ParseFailure): void;
}

/** How the values of a body are laid out (the JSON format's `jsonContent`). */
export type JsonContent = 'arrayOfObjects' | 'multipleObjects';

// Phases between values.
const VALUE_START = 0; // multipleObjects: before the next top-level value
const ARRAY_OPEN = 1; // arrayOfObjects: before the top-level '['
const FIRST_ELEMENT = 2; // just after '['
const NEXT_ELEMENT = 3; // just after ','
const COMMA_OR_CLOSE = 4; // after an element
const AFTER_ARRAY = 5; // after the closing ']'
const IN_VALUE = 6;
const STOPPED = 7;

const NESTED = 0; // an object, array or string: ends at its closing byte
const SCALAR = 1; // a number or literal: ends at the first byte that cannot be part of it

const QUOTE = 0x22;

/** A value with a run of this many digits may hold an integer beyond 2^53 (which has 16 digits). */
const EXACT_DIGITS = 16;

// What a byte outside strings means to the framer.
const OTHER = 0;
const DIGIT = 1;
const OPEN_STRING = 2;
const OPEN = 3;
const CLOSE = 4;
const BYTE_KIND = new Uint8Array(256);
for (let c = 0x30; c <= 0x39; c++) BYTE_KIND[c] = DIGIT;
BYTE_KIND[QUOTE] = OPEN_STRING;
BYTE_KIND[0x7b] = OPEN;
BYTE_KIND[0x5b] = OPEN;
BYTE_KIND[0x7d] = CLOSE;
BYTE_KIND[0x5d] = CLOSE;

// Bytes inside a string that need a look: its end and escapes.
const IN_STRING = new Uint8Array(256);
IN_STRING[QUOTE] = 1;
IN_STRING[0x5c] = 1;

// Bytes that end a number or literal token.
const DELIMITER = new Uint8Array(256);
for (const c of ' \t\n\r{}[],:"') DELIMITER[c.charCodeAt(0)] = 1;

/**
 * Finds where each JSON value of a body starts and ends, without decoding it. A byte scanner tracks nesting depth,
 * strings and escapes across chunk boundaries; decoding is left to the sink, so the common path costs one
 * `JSON.parse` per value.
 *
 * Memory: a value that spans chunks is copied out of them piece by piece (the caller may reuse its chunks), but
 * only while its text is within `maxChars` characters; past that it is skipped to its end holding only the head
 * the failure's excerpt needs. So between calls the framer holds at most one value's text.
 *
 * Characters are counted on the UTF-8 bytes as the bytes that are not continuation bytes (0x80-0xBF), which is
 * the number of Unicode code points of valid text.
 */
export class JsonFramer {
  readonly #arrayMode: boolean;
  readonly #maxChars: number;
  readonly #maxDepth: number;

  #phase: number;
  /** Phase to return to after the current value. */
  #resume: number;
  /** Absolute offset of the current buffer's first byte. */
  #offset = 0;
  /** Index of the next value among the values of the input. */
  #index = 0;
  #arrayStart = 0;

  // The value being framed.
  #kind = NESTED;
  #depth = 0;
  /** Set once the value nests deeper than `maxDepth`: it is framed to its end but not decoded. */
  #tooDeep = false;
  #inString = false;
  #escaped = false;
  #digitRun = 0;
  #exact = false;
  /** All bytes of the value OR-ed together: below 0x80 means the text is ASCII. */
  #high = 0;
  #valueStart = 0;
  /** Where the value's bytes start in the current buffer: its start, or 0 once it continues from a previous one. */
  #startInBuffer = 0;
  /** The value's bytes from earlier buffers, copied. */
  #pieces: Buffer[] = [];
  #pendingBytes = 0;
  #pendingChars = 0;
  /** Set once the value is known to be over the limit: its bytes are no longer kept, only its head. */
  #skipping = false;
  #head: Buffer | undefined;
  #headLength = 0;

  /** A failure that stopped the input, waiting for the bytes of its excerpt. */
  #stop:
    { readonly build: (excerpt: string) => ParseFailure; readonly head: Buffer; length: number } | undefined;

  constructor(content: JsonContent, maxChars: number, maxDepth: number = Number.POSITIVE_INFINITY) {
    this.#arrayMode = content === 'arrayOfObjects';
    this.#maxChars = maxChars;
    this.#maxDepth = maxDepth;
    this.#phase = this.#arrayMode ? ARRAY_OPEN : VALUE_START;
    this.#resume = this.#arrayMode ? COMMA_OR_CLOSE : VALUE_START;
  }

  /** Bytes held between calls: the current value's text so far, or the head kept for an excerpt. */
  get bufferedBytes(): number {
    return this.#pendingBytes + (this.#head?.length ?? 0) + (this.#stop?.head.length ?? 0);
  }

  /** Counts `n` bytes that precede the next buffer but are not JSON (a byte order mark). */
  skip(n: number): void {
    this.#offset += n;
  }

  /** Frames the bytes of `buf`, which follow the bytes of the previous call. */
  push(buf: Buffer, sink: JsonFrameSink): void {
    const n = buf.length;
    let i = 0;
    while (i < n) {
      const phase = this.#phase;
      if (phase === IN_VALUE) {
        i = this.#kind === NESTED ? this.#scanNested(buf, i, sink) : this.#scanScalar(buf, i, sink);
        continue;
      }
      if (phase === STOPPED) {
        this.#collectStop(buf, i, sink);
        break;
      }
      const c = buf[i]!;
      if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) {
        i++;
        continue;
      }
      i = this.#between(i, c, phase);
    }
    this.#offset += n;
  }

  /** Ends the input: a number or literal still open is complete, a string or container still open is truncated. */
  end(sink: JsonFrameSink): void {
    if (this.#phase === IN_VALUE) {
      if (this.#kind === SCALAR) {
        this.#finish(EMPTY, 0, sink);
      } else {
        const start = this.#valueStart;
        const head = this.#skipping ? this.#head!.subarray(0, this.#headLength) : Buffer.concat(this.#pieces);
        this.#release();
        this.#phase = STOPPED;
        sink.failure(
          malformed(start, `the input ends before the value that starts at byte ${start} is closed`, {
            recordIndex: this.#index,
            byteOffset: start,
            excerpt: head,
          }),
        );
        return;
      }
    }
    const phase = this.#phase;
    if (phase === STOPPED) {
      const stop = this.#stop;
      if (stop) {
        this.#stop = undefined;
        sink.failure(stop.build(excerptFromBytes(stop.head.subarray(0, stop.length))));
      }
      return;
    }
    if (phase === FIRST_ELEMENT || phase === NEXT_ELEMENT || phase === COMMA_OR_CLOSE) {
      this.#phase = STOPPED;
      sink.failure(
        malformed(
          this.#offset,
          `the input ends before the top-level array that starts at byte ${this.#arrayStart} is closed`,
          { recordIndex: this.#index, byteOffset: this.#offset, excerpt: '' },
        ),
      );
    }
  }

  /** Handles the byte `c` at `i` outside any value; returns where to go on. */
  #between(i: number, c: number, phase: number): number {
    const at = this.#offset + i;
    switch (phase) {
      case ARRAY_OPEN:
        if (c === 0x5b) {
          this.#arrayStart = at;
          this.#phase = FIRST_ELEMENT;
          return i + 1;
        }
        return this.#stopAt(i, 'ORIGIN_JSON_ARRAY_EXPECTED', (excerpt) => ({
          found: String.fromCodePoint(excerpt.codePointAt(0) ?? 0xfffd),
        }));
      case FIRST_ELEMENT:
      case NEXT_ELEMENT:
        if (c === 0x5d) {
          if (phase === FIRST_ELEMENT) {
            this.#phase = AFTER_ARRAY;
            return i + 1;
          }
          return this.#stopMalformed(i, "unexpected ']' after ',' where an array element was expected");
        }
        if (c === 0x2c || c === 0x7d || c === 0x3a) {
          return this.#stopMalformed(i, `unexpected ${describeCode(c)} where an array element was expected`);
        }
        return this.#begin(i, c);
      case COMMA_OR_CLOSE:
        if (c === 0x2c) {
          this.#phase = NEXT_ELEMENT;
          return i + 1;
        }
        if (c === 0x5d) {
          this.#phase = AFTER_ARRAY;
          return i + 1;
        }
        return this.#stopMalformed(
          i,
          (excerpt) =>
            `unexpected ${describeFirst(excerpt)} after an array element, where ',' or ']' was expected`,
        );
      case AFTER_ARRAY:
        return this.#stopMalformed(
          i,
          (excerpt) => `unexpected ${describeFirst(excerpt)} after the top-level array`,
        );
      default:
        if (c === 0x7d || c === 0x5d || c === 0x2c || c === 0x3a) {
          return this.#stopMalformed(i, `unexpected ${describeCode(c)} where a JSON value was expected`);
        }
        return this.#begin(i, c);
    }
  }

  /** Starts a value at `i`; the scan that follows reads its first byte too, so it also keeps a one-byte tail. */
  #begin(i: number, c: number): number {
    this.#phase = IN_VALUE;
    this.#valueStart = this.#offset + i;
    this.#startInBuffer = i;
    this.#exact = false;
    this.#digitRun = 0;
    this.#high = 0;
    this.#kind = c === 0x7b || c === 0x5b || c === QUOTE ? NESTED : SCALAR;
    this.#depth = 0;
    this.#tooDeep = false;
    this.#inString = false;
    this.#escaped = false;
    return i;
  }

  /** Scans an object, array or string from `from`; returns the index after its end, or `buf.length`. */
  #scanNested(buf: Buffer, from: number, sink: JsonFrameSink): number {
    const n = buf.length;
    let depth = this.#depth;
    let tooDeep = this.#tooDeep;
    const maxDepth = this.#maxDepth;
    let inString = this.#inString;
    let escaped = this.#escaped;
    let run = this.#digitRun;
    let exact = this.#exact;
    let high = this.#high;
    let i = from;
    let done = false;
    // One table lookup per byte outside strings and a tight loop inside them: framing must stay cheap next to
    // JSON.parse, which does the real work.
    scan: while (i < n) {
      if (inString) {
        if (escaped) {
          high |= buf[i++]!;
          escaped = false;
        }
        for (;;) {
          if (i >= n) break scan;
          const d = buf[i++]!;
          high |= d;
          if (IN_STRING[d] === 0) continue;
          if (d === QUOTE) break;
          if (i >= n) {
            escaped = true;
            break scan;
          }
          high |= buf[i++]!;
        }
        inString = false;
        if (depth === 0) {
          done = true;
          break;
        }
        continue;
      }
      const c = buf[i++]!;
      high |= c;
      const kind = BYTE_KIND[c]!;
      if (kind === OTHER) {
        run = 0;
      } else if (kind === DIGIT) {
        if (++run >= EXACT_DIGITS) exact = true;
      } else {
        run = 0;
        if (kind === OPEN_STRING) inString = true;
        else if (kind === OPEN) {
          if (++depth > maxDepth) tooDeep = true;
        } else if (--depth === 0) {
          done = true;
          break;
        }
      }
    }
    this.#depth = depth;
    this.#tooDeep = tooDeep;
    this.#inString = inString;
    this.#escaped = escaped;
    this.#digitRun = run;
    this.#exact = exact;
    this.#high = high;
    if (done) {
      this.#finish(buf, i, sink);
      return i;
    }
    this.#keep(buf);
    return n;
  }

  /** Scans a number or literal from `from`; returns the index of the byte that ends it, or `buf.length`. */
  #scanScalar(buf: Buffer, from: number, sink: JsonFrameSink): number {
    const n = buf.length;
    let high = this.#high;
    let i = from;
    for (; i < n; i++) {
      const c = buf[i]!;
      if (DELIMITER[c] === 1) break;
      high |= c;
    }
    this.#high = high;
    if (i === n) {
      this.#keep(buf);
      return n;
    }
    this.#finish(buf, i, sink);
    return i;
  }

  /** The current value ends at `end` in `buf`: hands it to the sink, or reports it as too long. */
  #finish(buf: Buffer, end: number, sink: JsonFrameSink): void {
    const index = this.#index++;
    const start = this.#startInBuffer;
    const byteOffset = this.#valueStart;
    this.#phase = this.#resume;
    if (this.#skipping) {
      this.#fillHead(buf, start, end);
      const head = this.#head!.subarray(0, this.#headLength);
      this.#release();
      sink.failure(this.#tooLong(index, byteOffset, head));
      return;
    }
    if (this.#tooDeep) {
      // Within maxChars (a longer value is skipping, above), so its pieces are all held.
      const failed = Buffer.concat([...this.#pieces, buf.subarray(start, end)]);
      this.#release();
      sink.failure(this.#tooDeepFailure(index, byteOffset, failed));
      return;
    }
    const length = this.#pendingBytes + end - start;
    if (this.#kind === SCALAR) this.#exact = length >= 16;
    // A text of at most maxChars bytes has at most maxChars characters, so only longer ones are counted.
    const over = length > this.#maxChars && this.#pendingChars + countChars(buf, start, end) > this.#maxChars;
    if (this.#pieces.length === 0) {
      if (over) sink.failure(this.#tooLong(index, byteOffset, buf.subarray(start, end)));
      else sink.value(buf, start, end, index, byteOffset, this.#exact, this.#high < 0x80);
      return;
    }
    this.#pieces.push(buf.subarray(start, end));
    const joined = Buffer.concat(this.#pieces, length);
    this.#release();
    if (over) sink.failure(this.#tooLong(index, byteOffset, joined));
    else sink.value(joined, 0, length, index, byteOffset, this.#exact, this.#high < 0x80);
  }

  /** The current buffer ends inside a value: keeps a copy of its bytes, or only its head once it is too long. */
  #keep(buf: Buffer): void {
    const start = this.#startInBuffer;
    const end = buf.length;
    this.#startInBuffer = 0;
    if (this.#skipping) {
      this.#fillHead(buf, start, end);
      return;
    }
    this.#pendingChars += countChars(buf, start, end);
    this.#pendingBytes += end - start;
    if (this.#pendingChars <= this.#maxChars) {
      this.#pieces.push(Buffer.from(buf.subarray(start, end)));
      return;
    }
    this.#skipping = true;
    this.#head = Buffer.allocUnsafe(MAX_EXCERPT_BYTES);
    this.#headLength = 0;
    for (const piece of this.#pieces) this.#fillHead(piece, 0, piece.length);
    this.#fillHead(buf, start, end);
    this.#pieces = [];
    this.#pendingBytes = 0;
  }

  #fillHead(buf: Buffer, start: number, end: number): void {
    const head = this.#head!;
    if (this.#headLength === head.length) return;
    this.#headLength += buf.copy(head, this.#headLength, start, end);
  }

  #release(): void {
    this.#pieces = [];
    this.#pendingBytes = 0;
    this.#pendingChars = 0;
    this.#skipping = false;
    this.#head = undefined;
    this.#headLength = 0;
  }

  #tooLong(index: number, byteOffset: number, text: Uint8Array): ParseFailure {
    return limitFailure('ORIGIN_JSON_OBJECT_TOO_LONG', this.#maxChars, index, byteOffset, text);
  }

  #tooDeepFailure(index: number, byteOffset: number, text: Uint8Array): ParseFailure {
    return limitFailure('ORIGIN_JSON_TOO_DEEP', this.#maxDepth, index, byteOffset, text);
  }

  #stopMalformed(i: number, detail: string | ((excerpt: string) => string)): number {
    const at = this.#offset + i;
    return this.#stopAt(i, 'ORIGIN_JSON_MALFORMED', (excerpt) => ({
      offset: at,
      detail: typeof detail === 'string' ? detail : detail(excerpt),
    }));
  }

  /**
   * Stops framing at `i` with a failure that cannot be continued from. Its excerpt is the input from `i` on, so
   * the failure is reported once that many bytes have arrived, or at the end; input after it is ignored.
   */
  #stopAt(i: number, code: ErrorCode, params: (excerpt: string) => ErrorParams): number {
    const recordIndex = this.#index;
    const byteOffset = this.#offset + i;
    this.#phase = STOPPED;
    this.#stop = {
      build: (excerpt) =>
        failure({ code, params: params(excerpt), recordIndex, byteOffset, excerpt, canContinue: false }),
      head: Buffer.allocUnsafe(MAX_EXCERPT_BYTES),
      length: 0,
    };
    return i;
  }

  #collectStop(buf: Buffer, i: number, sink: JsonFrameSink): void {
    const stop = this.#stop;
    if (!stop) return;
    stop.length += buf.copy(stop.head, stop.length, i);
    if (stop.length < stop.head.length) return;
    this.#stop = undefined;
    sink.failure(stop.build(excerptFromBytes(stop.head)));
  }
}

const EMPTY = Buffer.alloc(0);

/** The number of characters (code points) of the UTF-8 text `buf[start, end)`. */
export function countChars(buf: Uint8Array, start: number, end: number): number {
  let continuation = 0;
  for (let i = start; i < end; i++) if ((buf[i]! & 0xc0) === 0x80) continuation++;
  return end - start - continuation;
}

function describeFirst(excerpt: string): string {
  return describeCode(excerpt.codePointAt(0) ?? 0xfffd);
}

function malformed(
  offset: number,
  detail: string,
  at: { recordIndex: number; byteOffset: number; excerpt: string | Uint8Array },
): ParseFailure {
  return failure({ code: 'ORIGIN_JSON_MALFORMED', params: { offset, detail }, ...at, canContinue: false });
}

/** A record that passed one of the framer's limits: the rest of the body is still parsed. */
function limitFailure(
  code: 'ORIGIN_JSON_OBJECT_TOO_LONG' | 'ORIGIN_JSON_TOO_DEEP',
  limit: number,
  recordIndex: number,
  byteOffset: number,
  excerpt: Uint8Array,
): ParseFailure {
  return failure({
    code,
    params: { offset: byteOffset, limit },
    recordIndex,
    byteOffset,
    excerpt,
    canContinue: true,
  });
}

import type { ParseResult, Parser } from '../data-format';
import { failure } from '../failure';

/** Bytes of the body's head kept for a failure's excerpt: their hex form fills the excerpt. */
const EXCERPT_BYTES = 128;

/**
 * Makes one record whose root is a `Uint8Array` holding the whole body (a copy: the caller may reuse its chunks).
 * An empty body gives one record with an empty array.
 *
 * A body over `maxDataSizeBytes` makes no record: `end` reports one `ORIGIN_BINARY_TOO_LARGE` failure with scope
 * `'stage'` (spec §7.2: no error record either). Buffering stops as soon as the limit is passed, so the parser
 * never holds more than `maxDataSizeBytes`; it keeps counting the bytes so that the message gives the body's size.
 * The excerpt of that failure is the hex form of the body's first 128 bytes.
 */
export class BinaryParser implements Parser {
  readonly #limit: number;
  #chunks: Uint8Array[] = [];
  #size = 0;
  /** The body's first bytes, kept once the limit is passed; filled up to {@link EXCERPT_BYTES} by later pushes. */
  #head: Uint8Array | undefined;
  #headFilled = 0;

  constructor(maxDataSizeBytes: number) {
    this.#limit = maxDataSizeBytes;
  }

  /** Bytes held between calls: the body so far while within the limit, then only the excerpt's head. */
  get bufferedBytes(): number {
    return this.#head ? this.#headFilled : this.#size;
  }

  push(chunk: Uint8Array): ParseResult {
    const size = this.#size + chunk.length;
    if (!this.#head) {
      if (size <= this.#limit) {
        // `new Uint8Array(view)` copies; `slice` would not on a Buffer.
        this.#chunks.push(new Uint8Array(chunk));
      } else {
        this.#head = new Uint8Array(EXCERPT_BYTES);
        for (const part of this.#chunks) this.#fillHead(part);
        this.#chunks = [];
        this.#fillHead(chunk);
      }
    } else {
      // The head must not depend on where the chunk that passed the limit ended: keep filling it.
      this.#fillHead(chunk);
    }
    this.#size = size;
    return { records: [], failures: [] };
  }

  #fillHead(part: Uint8Array): void {
    const head = this.#head;
    if (!head || this.#headFilled === head.length) return;
    const take = part.subarray(0, head.length - this.#headFilled);
    head.set(take, this.#headFilled);
    this.#headFilled += take.length;
  }

  end(): ParseResult {
    if (this.#head) {
      return {
        records: [],
        failures: [
          failure({
            code: 'ORIGIN_BINARY_TOO_LARGE',
            params: { size: this.#size, limit: this.#limit },
            scope: 'stage',
            recordIndex: 0,
            byteOffset: 0,
            excerpt: Buffer.from(this.#head.buffer, 0, this.#headFilled).toString('hex'),
            canContinue: false,
          }),
        ],
      };
    }
    const value = new Uint8Array(this.#size);
    let offset = 0;
    for (const chunk of this.#chunks) {
      value.set(chunk, offset);
      offset += chunk.length;
    }
    this.#chunks = [];
    return { records: [{ value }], failures: [] };
  }

  /** `push(bytes)` then `end()`, with one copy of the bytes instead of two. */
  parseAll(bytes: Uint8Array): ParseResult {
    if (this.#size === 0 && !this.#head && bytes.length <= this.#limit) {
      this.#size = bytes.length;
      return { records: [{ value: new Uint8Array(bytes) }], failures: [] };
    }
    this.push(bytes);
    return this.end();
  }
}

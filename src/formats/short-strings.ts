/**
 * UTF-8 decoding of the strings of binary formats (Avro, Protobuf), tuned for the short strings records are made
 * of: codes, states, names, tags.
 */

/** Strings up to this many bytes go through the cache. */
const MAX_CACHED_BYTES = 16;
/** ASCII strings up to this many bytes are built in JS: below it one native call costs more than the JS. */
const MAX_JS_BYTES = 12;
/** Slots of a cache that has seen its first short strings; it grows fourfold as more come, up to MAX_SLOTS. */
const FIRST_SLOTS = 16;
const MAX_SLOTS = 1024;

/** A Buffer with Node's own UTF-8 decoder, which `toString('utf8', …)` reaches only after checking its arguments. */
export interface Utf8Bytes extends Buffer {
  /** Invalid UTF-8 becomes U+FFFD. */
  utf8Slice(start: number, end: number): string;
  /** One character per byte. */
  latin1Slice(start: number, end: number): string;
}

/** `bytes` as a Buffer view for {@link ShortStrings.decode}, without copying. */
export function utf8Bytes(bytes: Uint8Array): Utf8Bytes {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length) as Utf8Bytes;
}

// Every index passed is inside the bytes, so no argument is ever undefined.
const fromCharCode = String.fromCharCode as (...codes: (number | undefined)[]) => string;
const NO_SLOTS: (string | undefined)[] = [];

/**
 * Decodes UTF-8 strings and remembers the short ones (up to 16 bytes) it has seen: data often repeats short strings
 * (codes, states, names, tags), and a repeat then costs a lookup instead of a new string that lives as long as its
 * record (in a parse that keeps a body's records, the garbage collector copies every kept string). One slot per
 * hash, the newest string wins. Each slot keeps its bytes as a key string of one character per byte, compared with
 * the input byte by byte; for ASCII the key is the string itself.
 *
 * The cache costs nothing until the first short string and grows with the strings seen (16 slots, then fourfold up
 * to 1,024), so that a body of one small message does not pay for a table sized for a large one. Make one per
 * parse (one request body): it keeps its strings alive as long as it lives.
 */
export class ShortStrings {
  #slots = NO_SLOTS;
  /** The bytes of each slot's string, one character per byte. */
  #keys = NO_SLOTS;
  /** Short strings decoded so far, to decide when to grow. */
  #seen = 0;

  /**
   * `bytes[start, end)` as a string (invalid UTF-8 becomes U+FFFD); `text` is the same memory as `bytes` (see
   * {@link utf8Bytes}). The caller has checked that the range lies inside `bytes`.
   */
  decode(bytes: Uint8Array, text: Utf8Bytes, start: number, end: number): string {
    const length = end - start;
    if (length > MAX_CACHED_BYTES) return text.utf8Slice(start, end);
    if (length === 0) return '';
    let hash = length;
    let bits = 0;
    for (let i = start; i < end; i++) {
      const b = bytes[i] as number;
      bits |= b;
      hash = Math.imul(hash ^ b, 0x01000193);
    }
    if (++this.#seen > this.#slots.length * 4 && this.#slots.length < MAX_SLOTS) this.#grow();
    const slot = (hash ^ (hash >>> 16)) & (this.#slots.length - 1);
    const key = this.#keys[slot];
    if (key !== undefined && key.length === length) {
      let i = 0;
      while (i < length && key.charCodeAt(i) === bytes[start + i]) i++;
      if (i === length) return this.#slots[slot] as string;
    }
    const ascii = bits < 0x80;
    const decoded =
      ascii && length <= MAX_JS_BYTES ? asciiText(bytes, start, length) : text.utf8Slice(start, end);
    this.#slots[slot] = decoded;
    this.#keys[slot] = ascii ? decoded : text.latin1Slice(start, end);
    return decoded;
  }

  #grow(): void {
    const size = this.#slots.length === 0 ? FIRST_SLOTS : this.#slots.length * 4;
    this.#slots = new Array<string | undefined>(size).fill(undefined);
    this.#keys = new Array<string | undefined>(size).fill(undefined);
  }
}

/** The ASCII bytes `b[s]…` (1 to 12 of them) as a string, built by one call without intermediate strings. */
// prettier-ignore
function asciiText(b: Uint8Array, s: number, length: number): string {
  switch (length) {
    case 1: return fromCharCode(b[s]);
    case 2: return fromCharCode(b[s], b[s + 1]);
    case 3: return fromCharCode(b[s], b[s + 1], b[s + 2]);
    case 4: return fromCharCode(b[s], b[s + 1], b[s + 2], b[s + 3]);
    case 5: return fromCharCode(b[s], b[s + 1], b[s + 2], b[s + 3], b[s + 4]);
    case 6: return fromCharCode(b[s], b[s + 1], b[s + 2], b[s + 3], b[s + 4], b[s + 5]);
    case 7: return fromCharCode(b[s], b[s + 1], b[s + 2], b[s + 3], b[s + 4], b[s + 5], b[s + 6]);
    case 8: return fromCharCode(b[s], b[s + 1], b[s + 2], b[s + 3], b[s + 4], b[s + 5], b[s + 6], b[s + 7]);
    case 9: return fromCharCode(b[s], b[s + 1], b[s + 2], b[s + 3], b[s + 4], b[s + 5], b[s + 6], b[s + 7], b[s + 8]);
    case 10:
      return fromCharCode(b[s], b[s + 1], b[s + 2], b[s + 3], b[s + 4], b[s + 5], b[s + 6], b[s + 7],
        b[s + 8], b[s + 9]);
    case 11:
      return fromCharCode(b[s], b[s + 1], b[s + 2], b[s + 3], b[s + 4], b[s + 5], b[s + 6], b[s + 7],
        b[s + 8], b[s + 9], b[s + 10]);
    default:
      return fromCharCode(b[s], b[s + 1], b[s + 2], b[s + 3], b[s + 4], b[s + 5], b[s + 6], b[s + 7],
        b[s + 8], b[s + 9], b[s + 10], b[s + 11]);
  }
}

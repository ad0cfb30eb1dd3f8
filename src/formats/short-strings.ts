/**
 * UTF-8 decoding of the strings of binary formats (Avro, Protobuf), tuned for the short strings records are made
 * of: codes, states, names, tags.
 */

/** Strings up to this many bytes go through the cache. */
const MAX_CACHED_BYTES = 16;
/** ASCII strings up to this many bytes are built in JS: below it one native call costs more than the JS. */
const MAX_JS_BYTES = 12;
const SLOTS = 1024;

/** A Buffer with Node's own UTF-8 decoder, which `toString('utf8', …)` reaches only after checking its arguments. */
export interface Utf8Bytes extends Buffer {
  /** Invalid UTF-8 becomes U+FFFD. */
  utf8Slice(start: number, end: number): string;
}

/** `bytes` as a Buffer view for {@link ShortStrings.decode}, without copying. */
export function utf8Bytes(bytes: Uint8Array): Utf8Bytes {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length) as Utf8Bytes;
}

// Every index passed is inside the bytes, so no argument is ever undefined.
const fromCharCode = String.fromCharCode as (...codes: (number | undefined)[]) => string;

/**
 * Decodes UTF-8 strings and remembers the short ones (up to 16 bytes) it has seen, by their bytes: data often
 * repeats short strings, and a repeat then costs a lookup instead of a new string that lives as long as its record
 * (in a parse that keeps a body's records, the garbage collector copies every kept string). One slot per hash, the
 * newest string wins, so the cache is bounded (1,024 strings) whatever the input.
 *
 * Make one per parse (one request body): it keeps its strings alive as long as it lives.
 */
export class ShortStrings {
  readonly #strings = new Array<string | undefined>(SLOTS).fill(undefined);
  readonly #lengths = new Int32Array(SLOTS);
  readonly #bytes = new Uint8Array(SLOTS * MAX_CACHED_BYTES);

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
    const slot = (hash ^ (hash >>> 16)) & (SLOTS - 1);
    const pool = this.#bytes;
    const base = slot * MAX_CACHED_BYTES - start;
    const cached = this.#strings[slot];
    if (cached !== undefined && this.#lengths[slot] === length) {
      let i = start;
      while (i < end && pool[base + i] === bytes[i]) i++;
      if (i === end) return cached;
    }
    const decoded =
      bits < 0x80 && length <= MAX_JS_BYTES ? asciiText(bytes, start, length) : text.utf8Slice(start, end);
    this.#strings[slot] = decoded;
    this.#lengths[slot] = length;
    for (let i = start; i < end; i++) pool[base + i] = bytes[i] as number;
    return decoded;
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

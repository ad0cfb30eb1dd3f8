import { TextDecoder } from 'node:util';
import { OriginError } from '../errors/origin-error';

/** Charset names already known to mean UTF-8: one parser is made per request, a TextDecoder costs more. */
const utf8Names = new Set<string>();

function isUtf8(charset: string): boolean {
  if (utf8Names.has(charset)) return true;
  if (transcoderFor(charset).encoding !== 'utf-8') return false;
  utf8Names.add(charset);
  return true;
}

function transcoderFor(charset: string): TextDecoder {
  try {
    return new TextDecoder(charset);
  } catch (error) {
    throw new OriginError('ORIGIN_CHARSET_UNSUPPORTED', { charset }, { cause: error });
  }
}

/**
 * Turns the chunks of a text body into UTF-8 bytes for a text format's parser (JSON, delimited, …): it transcodes
 * other charsets, skips a leading UTF-8 byte order mark and removes ASCII control characters when asked.
 *
 * UTF-8 input is passed through without a copy whenever nothing has to be removed; a returned buffer may then be
 * a view of the caller's chunk and is valid only until the caller reuses that chunk. Other charsets go through a
 * streaming `TextDecoder` (which drops their byte order mark), so byte offsets past this step count UTF-8 bytes of
 * the transcoded text, not bytes of the original body.
 */
export class TextInput {
  readonly #decoder: TextDecoder | undefined;
  readonly #removeControls: boolean;
  /** Leading bytes held back while they could still be the start of a byte order mark. */
  #bomCheck: Buffer | undefined = EMPTY;

  /**
   * @throws `OriginError('ORIGIN_CHARSET_UNSUPPORTED')` when this Node.js build has no decoder for `charset`.
   */
  constructor(charset: string, removeControlCharacters: boolean) {
    this.#decoder = isUtf8(charset) ? undefined : transcoderFor(charset);
    this.#removeControls = removeControlCharacters;
  }

  /** True when input bytes pass through unchanged: UTF-8 without control-character removal. */
  get isPassThrough(): boolean {
    return this.#decoder === undefined && !this.#removeControls;
  }

  /** Bytes held back between calls (at most the first two bytes of a body that may start with a BOM). */
  get bufferedBytes(): number {
    return this.#bomCheck?.length ?? 0;
  }

  /**
   * The UTF-8 bytes of `chunk`, and how many bytes of a byte order mark were skipped before them (3 once, for a
   * UTF-8 body that starts with one; 0 otherwise).
   */
  push(chunk: Uint8Array): { bytes: Buffer; skipped: number } {
    const bytes = this.#decoder
      ? Buffer.from(this.#decoder.decode(chunk, { stream: true }), 'utf8')
      : Buffer.isBuffer(chunk)
        ? chunk
        : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    return this.#clean(bytes, false);
  }

  /** The bytes still held back at the end of the input: an incomplete BOM, or a transcoder's last character. */
  end(): { bytes: Buffer; skipped: number } {
    const bytes = this.#decoder ? Buffer.from(this.#decoder.decode(), 'utf8') : EMPTY;
    return this.#clean(bytes, true);
  }

  #clean(input: Buffer, final: boolean): { bytes: Buffer; skipped: number } {
    let bytes = input;
    let skipped = 0;
    if (this.#bomCheck && !this.#decoder) {
      const seen = this.#bomCheck.length === 0 ? bytes : Buffer.concat([this.#bomCheck, bytes]);
      if (seen.length < BOM.length && !final && BOM.subarray(0, seen.length).equals(seen)) {
        this.#bomCheck = Buffer.from(seen);
        return { bytes: EMPTY, skipped: 0 };
      }
      if (seen.length >= BOM.length && BOM.equals(seen.subarray(0, BOM.length))) {
        skipped = BOM.length;
        bytes = seen.subarray(BOM.length);
      } else {
        bytes = seen;
      }
    }
    this.#bomCheck = undefined;
    return { bytes: this.#removeControls ? removeControlCharacters(bytes) : bytes, skipped };
  }
}

const EMPTY = Buffer.alloc(0);
const BOM = Buffer.from([0xef, 0xbb, 0xbf]);

// 0x00-0x08, 0x0B, 0x0C, 0x0E-0x1F and 0x7F: every ASCII control character except tab, line feed and carriage
// return. None of these bytes occurs inside a multi-byte UTF-8 sequence, so removing them byte by byte is safe.
const CONTROL = new Uint8Array(256);
for (let c = 0; c < 0x20; c++) CONTROL[c] = c === 0x09 || c === 0x0a || c === 0x0d ? 0 : 1;
CONTROL[0x7f] = 1;

/** `bytes` without ASCII control characters other than tab, LF and CR; `bytes` itself when it has none. */
export function removeControlCharacters(bytes: Buffer): Buffer {
  const n = bytes.length;
  let i = 0;
  while (i < n && CONTROL[bytes[i]!] === 0) i++;
  if (i === n) return bytes;
  const out = Buffer.allocUnsafe(n);
  bytes.copy(out, 0, 0, i);
  let o = i;
  for (; i < n; i++) {
    const c = bytes[i]!;
    if (CONTROL[c] === 0) out[o++] = c;
  }
  return out.subarray(0, o);
}

// The same characters as CONTROL, in decoded text.
// eslint-disable-next-line no-control-regex
const CONTROL_TEXT = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g;

/** `text` without ASCII control characters other than tab, LF and CR (for strings decoded from binary packets). */
export function removeControlCharactersFromText(text: string): string {
  return text.replace(CONTROL_TEXT, '');
}

/**
 * The JSON Schema properties of the two options every text format shares (spec §2.3): `charset` and
 * `ignoreControlCharacters`, with their defaults and descriptions. A format spreads them into its own schema.
 */
export const TEXT_INPUT_OPTIONS_SCHEMA = {
  charset: {
    type: 'string',
    minLength: 1,
    default: 'UTF-8',
    description: 'Charset of the body (a WHATWG encoding label such as UTF-8, UTF-16LE, ISO-8859-1).',
  },
  ignoreControlCharacters: {
    type: 'boolean',
    default: false,
    description:
      'Ignore Control Characters: remove ASCII control characters except tab, line feed and carriage return.',
  },
} as const;

import type { ParsedRecord, ParseResult, Parser } from '../../data-format';
import { TextInput } from '../../text-input';

/**
 * "Raw/separated data": splits the body at every occurrence of `separator` and makes one record per piece, whose
 * root is the piece as a string (decoded with `charset`, control characters removed when asked).
 *
 * Pieces are what lies between separators, so an empty piece between two adjacent separators is a record with an
 * empty string. The piece after the last separator is a record only when it is not empty: a body ending with its
 * separator (`"a\nb\n"`) gives the same records as one without (`"a\nb"`), as lines of a text file do. An empty
 * body gives no record. An empty `separator` makes the whole body one record.
 *
 * The separator is matched in the decoded text, so a multi-byte separator and any charset work; records are
 * emitted as soon as their separator has arrived, and the parser holds only the piece in progress. There are no
 * failures: every byte sequence splits.
 */
export class RawDataParser implements Parser {
  readonly #input: TextInput;
  readonly #separator: Buffer;
  /** Bytes of the piece in progress (UTF-8, already transcoded); a copy, never a view of a caller's chunk. */
  #pending: Buffer = Buffer.alloc(0);

  /** @throws `OriginError('ORIGIN_CHARSET_UNSUPPORTED')` when this Node.js build has no decoder for `charset`. */
  constructor(charset: string, ignoreControlCharacters: boolean, separator: string) {
    this.#input = new TextInput(charset, ignoreControlCharacters);
    this.#separator = Buffer.from(separator, 'utf8');
  }

  push(chunk: Uint8Array): ParseResult {
    return this.#split(this.#input.push(chunk).bytes, false);
  }

  end(): ParseResult {
    return this.#split(this.#input.end().bytes, true);
  }

  #split(bytes: Buffer, final: boolean): ParseResult {
    const records: ParsedRecord[] = [];
    const held = this.#pending.length;
    const data = held === 0 ? bytes : Buffer.concat([this.#pending, bytes]);
    let from = 0;
    if (this.#separator.length > 0) {
      // The held bytes have no whole separator; one that straddles them and the new bytes starts at most
      // separator.length - 1 bytes back, so a long piece arriving in small chunks is not scanned again and again.
      let at = data.indexOf(this.#separator, Math.max(0, held - this.#separator.length + 1));
      while (at !== -1) {
        records.push({ value: data.toString('utf8', from, at) });
        from = at + this.#separator.length;
        at = data.indexOf(this.#separator, from);
      }
    }
    if (final) {
      if (from < data.length) records.push({ value: data.toString('utf8', from) });
      this.#pending = Buffer.alloc(0);
    } else {
      this.#pending = Buffer.from(data.subarray(from));
    }
    return { records, failures: [] };
  }
}

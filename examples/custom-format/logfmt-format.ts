// A data format of the host's own: logfmt lines (`level=info msg="disk full" retries=3 urgent`), one record per
// line. Registered beside the built-in formats with `defaultRegistry.clone().register(logfmtFormat)`.
import {
  failure,
  type DataFormat,
  type ParseFailure,
  type ParseResult,
  type ParsedRecord,
  type Parser,
} from 'rest-service-origin';

/** The format's options: `dataFormat.logfmt` in an origin config, with the defaults of the schema below. */
export interface LogfmtConfig {
  /** The longest line, in bytes; a longer one is one failed record (the next line is read as usual). */
  readonly maxLineBytes: number;
  /** Turn `count=3` into the number 3 (else every value is a string). */
  readonly numbers: boolean;
}

export const logfmtFormat: DataFormat<LogfmtConfig> = {
  name: 'logfmt',
  description: 'logfmt: one record per line of key=value pairs.',
  configSchema: {
    type: 'object',
    additionalProperties: false,
    properties: {
      maxLineBytes: {
        type: 'integer',
        minimum: 1,
        maximum: 1_048_576,
        default: 4096,
        description: 'The longest line in bytes; a longer line is a failed record.',
      },
      numbers: {
        type: 'boolean',
        default: true,
        description: 'Read values that are decimal numbers as numbers.',
      },
    },
  },
  createParser: (config) => new LogfmtParser(config),
};

const NEWLINE = 0x0a;
const NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?$/;
// key=value, key="quoted \"value\"", or a bare key (true).
const PAIR = /\s*([^\s="]+)(?:=(?:"((?:[^"\\]|\\.)*)"|([^\s"]*)))?/y;

/**
 * Splits the input into lines at the byte level (so byte offsets are exact and a chunk may end inside a UTF-8
 * character), and parses each complete line. Holds at most one unfinished line of at most `maxLineBytes`.
 */
class LogfmtParser implements Parser {
  readonly #config: LogfmtConfig;
  readonly #decoder = new TextDecoder('utf-8');
  #pending: Uint8Array[] = [];
  #pendingBytes = 0;
  /** Byte offset of the start of the current line. */
  #lineStart = 0;
  #recordIndex = 0;
  /** The current line passed maxLineBytes: its bytes are dropped up to the next newline. */
  #skipping = false;

  constructor(config: LogfmtConfig) {
    this.#config = config;
  }

  push(chunk: Uint8Array): ParseResult {
    const result: { records: ParsedRecord[]; failures: ParseFailure[] } = { records: [], failures: [] };
    let from = 0;
    for (let at = chunk.indexOf(NEWLINE); at !== -1; at = chunk.indexOf(NEWLINE, from)) {
      this.#take(chunk.subarray(from, at), result);
      this.#endLine(result);
      from = at + 1;
    }
    this.#take(chunk.subarray(from), result);
    return result;
  }

  end(): ParseResult {
    const result: { records: ParsedRecord[]; failures: ParseFailure[] } = { records: [], failures: [] };
    if (this.#pendingBytes > 0 || this.#skipping) this.#endLine(result);
    return result;
  }

  /** Adds bytes of the current line, copying them (the caller may reuse its chunk). */
  #take(bytes: Uint8Array, result: { failures: ParseFailure[] }): void {
    if (bytes.length === 0) return;
    if (this.#skipping) {
      this.#lineStart += bytes.length;
      return;
    }
    if (this.#pendingBytes + bytes.length > this.#config.maxLineBytes) {
      // The same excerpt whatever the chunking: the line's first bytes up to one past the limit (all there now).
      const head = Buffer.concat([...this.#pending, bytes]).subarray(
        0,
        Math.min(256, this.#config.maxLineBytes + 1),
      );
      result.failures.push(
        failure({
          code: 'ORIGIN_FORMAT_RECORD_TOO_LONG',
          params: {
            format: 'logfmt',
            offset: this.#lineStart,
            option: 'maxLineBytes',
            limit: this.#config.maxLineBytes,
          },
          recordIndex: this.#recordIndex++,
          byteOffset: this.#lineStart,
          excerpt: head,
          canContinue: true,
        }),
      );
      this.#lineStart += this.#pendingBytes + bytes.length;
      this.#pending = [];
      this.#pendingBytes = 0;
      this.#skipping = true;
      return;
    }
    this.#pending.push(Uint8Array.from(bytes));
    this.#pendingBytes += bytes.length;
  }

  /** A newline (or the end of the input) ends the current line. */
  #endLine(result: { records: ParsedRecord[]; failures: ParseFailure[] }): void {
    const offset = this.#lineStart;
    this.#lineStart += this.#pendingBytes + 1;
    if (this.#skipping) {
      this.#skipping = false;
      return;
    }
    const line = this.#decoder.decode(Buffer.concat(this.#pending)).replace(/\r$/, '');
    this.#pending = [];
    this.#pendingBytes = 0;
    if (line.trim() === '') return;
    const parsed = this.#parseLine(line);
    if (typeof parsed === 'string') {
      result.failures.push(
        failure({
          code: 'ORIGIN_FORMAT_RECORD_MALFORMED',
          params: { format: 'logfmt', offset, detail: parsed },
          recordIndex: this.#recordIndex++,
          byteOffset: offset,
          excerpt: line,
          canContinue: true,
        }),
      );
      return;
    }
    this.#recordIndex++;
    result.records.push({ value: parsed });
  }

  /** The record value of one line, or what is wrong with it. */
  #parseLine(line: string): Record<string, string | number | boolean> | string {
    const value: Record<string, string | number | boolean> = {};
    PAIR.lastIndex = 0;
    while (PAIR.lastIndex < line.length) {
      const start = PAIR.lastIndex;
      const match = PAIR.exec(line);
      if (match === null || match[0].trim() === '') {
        return line.slice(start).trim() === ''
          ? value
          : `unexpected '${line.slice(start).trim()[0]}' at character ${start}`;
      }
      const [, key, quoted, bare] = match as unknown as [
        string,
        string,
        string | undefined,
        string | undefined,
      ];
      if (quoted !== undefined) value[key] = quoted.replace(/\\(.)/g, '$1');
      else if (bare === undefined) value[key] = true;
      else value[key] = this.#config.numbers && NUMBER.test(bare) ? Number(bare) : bare;
    }
    return value;
  }
}

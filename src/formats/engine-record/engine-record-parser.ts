import type { DataRecord } from '../../record/data-record';
import type { ParseFailure, ParseResult, ParsedRecord, ParsedRecordError, Parser } from '../data-format';
import { failure } from '../failure';
import {
  ENGINE_RECORD_MAGIC_JSON_V1,
  EngineRecordDecodeError,
  decodeRecordLine,
} from './engine-record-codec';

/** A record read from an Engine Record body: the parsed form the origin uses, plus the whole record read back. */
export interface EngineParsedRecord extends ParsedRecord {
  /** The record exactly as written: value tree, header attributes, source id and, for an error record, its error. */
  readonly record: DataRecord;
}

const NEWLINE = 0x0a;
const EMPTY_RESULT: ParseResult = { records: [], failures: [] };

/**
 * Reads an Engine Record body (see `writeEngineRecords`), one record per line, as the lines arrive.
 *
 * The first byte must be a magic byte: one whose high nibble is not `0xA` gives `ORIGIN_ENGINE_RECORD_MAGIC_INVALID`,
 * another version than `0xA1` gives `ORIGIN_ENGINE_RECORD_VERSION_UNSUPPORTED`; both refuse the body as a whole
 * (scope `'stage'`). A line that is not a well-formed record gives `ORIGIN_ENGINE_RECORD_MALFORMED` for that record
 * and reading goes on with the next line. A body that ends inside a record gives `ORIGIN_ENGINE_RECORD_TRUNCATED`
 * for it; the records before it are kept. Blank lines are skipped; an empty body gives no records.
 */
export class EngineRecordParser implements Parser {
  /** Bytes of the line being read when it spans chunks (copies: the caller may reuse its chunks). */
  #pending: Buffer[] = [];
  #pendingBytes = 0;
  /** Body offset of the next byte `push` receives. */
  #offset = 0;
  #lineStart = 1;
  #recordIndex = 0;
  #sawMagic = false;
  #stopped = false;

  /** Bytes held between calls: the start of a line not yet complete. */
  get bufferedBytes(): number {
    return this.#pendingBytes;
  }

  push(chunk: Uint8Array): ParseResult {
    if (this.#stopped || chunk.length === 0) return EMPTY_RESULT;
    let bytes = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.length);
    const records: EngineParsedRecord[] = [];
    const failures: ParseFailure[] = [];
    if (!this.#sawMagic) {
      this.#sawMagic = true;
      const refused = checkMagic(bytes[0] as number);
      if (refused) {
        this.#stopped = true;
        return { records, failures: [refused] };
      }
      bytes = bytes.subarray(1);
      this.#offset = 1;
    }
    let start = 0;
    for (let end = bytes.indexOf(NEWLINE); end !== -1; end = bytes.indexOf(NEWLINE, start)) {
      let line = bytes.subarray(start, end);
      if (this.#pendingBytes > 0) {
        line = Buffer.concat([...this.#pending, line]);
        this.#pending = [];
        this.#pendingBytes = 0;
      }
      this.#readLine(line, false, records, failures);
      start = end + 1;
      this.#lineStart = this.#offset + start;
    }
    if (start < bytes.length) {
      this.#pending.push(Buffer.from(bytes.subarray(start)));
      this.#pendingBytes += bytes.length - start;
    }
    this.#offset += bytes.length;
    return { records, failures };
  }

  end(): ParseResult {
    if (this.#stopped || this.#pendingBytes === 0) return EMPTY_RESULT;
    const line = Buffer.concat(this.#pending);
    this.#pending = [];
    this.#pendingBytes = 0;
    const records: EngineParsedRecord[] = [];
    const failures: ParseFailure[] = [];
    this.#readLine(line, true, records, failures);
    return { records, failures };
  }

  #readLine(line: Buffer, atEnd: boolean, records: EngineParsedRecord[], failures: ParseFailure[]): void {
    const text = line.toString('utf8');
    if (text.trim() === '') return;
    const recordIndex = this.#recordIndex++;
    try {
      const record = decodeRecordLine(text);
      records.push({
        value: record.value,
        attributes: record.header.attributes(),
        error: errorOf(record),
        record,
      });
    } catch (error) {
      // The writer ends every record with a newline, so a last line that is not even JSON was cut short.
      const truncated =
        atEnd && error instanceof EngineRecordDecodeError && error.message.startsWith('not JSON');
      failures.push(
        failure({
          code: truncated ? 'ORIGIN_ENGINE_RECORD_TRUNCATED' : 'ORIGIN_ENGINE_RECORD_MALFORMED',
          params: { offset: this.#lineStart, detail: (error as Error).message },
          recordIndex,
          byteOffset: this.#lineStart,
          excerpt: text,
          canContinue: !truncated,
        }),
      );
    }
  }
}

function checkMagic(byte: number): ParseFailure | undefined {
  if (byte === ENGINE_RECORD_MAGIC_JSON_V1) return undefined;
  const hex = `0x${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  const magicByte = (byte & 0xf0) === 0xa0;
  return failure({
    code: magicByte ? 'ORIGIN_ENGINE_RECORD_VERSION_UNSUPPORTED' : 'ORIGIN_ENGINE_RECORD_MAGIC_INVALID',
    params: magicByte
      ? { magic: hex, supported: '0xA1' }
      : { detail: `got ${hex}, expected 0xA1 (Engine Record JSON version 1)` },
    scope: 'stage',
    recordIndex: 0,
    byteOffset: 0,
    excerpt: hex,
    canContinue: false,
  });
}

/** The error information of an error record, so that it survives the origin making its own `DataRecord`. */
function errorOf(record: DataRecord): ParsedRecordError | undefined {
  const { header } = record;
  if (!header.isErrorRecord) return undefined;
  return {
    code: header.errorCode ?? '',
    message: header.errorMessage ?? '',
    stage: header.errorStage ?? '',
    ...(header.errorTimestamp === undefined ? {} : { timestamp: header.errorTimestamp }),
  };
}

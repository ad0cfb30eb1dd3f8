import { crc32, inflateRawSync } from 'node:zlib';
import { uncompressSync } from 'snappy';
import type { ErrorCode, ErrorParams } from '../../errors/error-table';
import type { FieldValue } from '../../record/field';
import type { ParsedRecord, ParseFailure, ParseResult, Parser } from '../data-format';
import { failure } from '../failure';
import { createDecompressor, DecompressError } from '../decompressors';
import { PendingBytes } from '../pending-bytes';
import { AvroDecodeError, AvroDecoder } from './avro-decoder';

const MAGIC = [0x4f, 0x62, 0x6a, 0x01]; // "Obj" 1
const SYNC_BYTES = 16;
/** Bytes of the offending input a failure shows, in hex (the input is binary, not text). */
const EXCERPT_BYTES = 128;
/** A block may declare more records than bytes only for zero-width records; past this many that is refused. */
const MAX_ZERO_WIDTH_RECORDS = 65_536;
/** Every codec of the Avro specification (1.11): the three built in, and the three optional ones. */
const SUPPORTED_CODECS = new Set(['null', 'deflate', 'snappy', 'bzip2', 'xz', 'zstandard']);

interface Header {
  readonly decoder: AvroDecoder;
  /** The header attributes every record of the container shares (frozen): `avroSchema`. */
  readonly attributes: Readonly<Record<string, string>>;
  readonly codec: string;
  readonly sync: Uint8Array;
}

/** A failure that ends the input; thrown inside the parser only, returned as data by push/end. */
class Stop {
  constructor(
    readonly code: ErrorCode,
    readonly params: ErrorParams,
    readonly at: number,
    readonly excerpt: Uint8Array,
    /** `'stage'` refuses the whole input (the decompressed total over the request's budget). */
    readonly scope: 'record' | 'stage' = 'record',
  ) {}
}

/**
 * Reads one Avro object container file (the writer schema is in its header) block by block: every complete block
 * becomes its records as soon as it has arrived, so the parser holds at most one block plus the chunk that
 * completed it. Each record carries the header attribute `avroSchema` (the writer schema JSON as the file holds it);
 * values are decoded by an {@link AvroDecoder} compiled once for the writer schema.
 *
 * Failures all end the input (`canContinue: false`), the records of earlier blocks are kept: a body that is not a
 * container file or whose header is unreadable, a codec the Avro specification does not name (null, deflate,
 * snappy, bzip2, xz and zstandard are read; `ORIGIN_AVRO_CODEC_UNSUPPORTED`), a block over `maxBlockSizeBytes`
 * compressed or uncompressed
 * (`ORIGIN_AVRO_BLOCK_TOO_LARGE`), and a corrupt or truncated block (`ORIGIN_AVRO_MALFORMED`: bad sync marker,
 * bad compressed data or checksum, records that do not fill the block exactly). A corrupt block yields none of its
 * records. Excerpts are the hex of at most 128 bytes from where the problem starts, taken only from bytes the parser
 * needed anyway, so that every chunking gives the same failure.
 */
export class AvroParser implements Parser {
  readonly #maxBlockBytes: number;
  readonly #maxDecodedBytes: number;
  /** Bytes the compressed blocks so far decompressed to. */
  #decoded = 0;
  readonly #pending = new PendingBytes(EXCERPT_BYTES);
  #header: Header | undefined;
  #recordCount = 0;
  #stopped = false;

  /**
   * @param maxDecodedBytes - most bytes the compressed blocks may decompress to, all together (the request's
   *   budget); past it the input is refused with `ORIGIN_AVRO_TOO_LARGE` (scope `'stage'`, 413).
   */
  constructor(maxBlockSizeBytes: number, maxDecodedBytes = Number.POSITIVE_INFINITY) {
    this.#maxBlockBytes = maxBlockSizeBytes;
    this.#maxDecodedBytes = maxDecodedBytes;
  }

  push(chunk: Uint8Array): ParseResult {
    if (this.#stopped || chunk.length === 0) return { records: [], failures: [] };
    this.#pending.append(chunk);
    if (!this.#pending.ready) return { records: [], failures: [] };
    return this.#read(false);
  }

  end(): ParseResult {
    if (this.#stopped) return { records: [], failures: [] };
    const result = this.#read(true);
    this.#stopped = true;
    this.#pending.clear();
    return result;
  }

  /**
   * The whole input in one buffer, read in place: `push` copies what it holds between chunks, which a whole input
   * never needs. Gives what `push(bytes)` + `end()` give; `bytes` is not kept.
   */
  parseAll(bytes: Uint8Array): ParseResult {
    if (this.#stopped || this.#header !== undefined || this.#pending.length > 0) {
      const first = this.push(bytes);
      const last = this.end();
      return {
        records: [...first.records, ...last.records],
        failures: [...first.failures, ...last.failures],
      };
    }
    const result = this.#read(true, bytes);
    this.#stopped = true;
    this.#pending.clear();
    return result;
  }

  /**
   * Reads `buf` (by default what the held bytes are); `final` when no more input comes, so whatever is missing is
   * truncation.
   */
  #read(final: boolean, buf: Uint8Array = this.#pending.take()): ParseResult {
    const records: ParsedRecord[] = [];
    const failures: ParseFailure[] = [];
    let pos = 0;
    try {
      if (!this.#header) {
        const read = this.#readHeader(buf, final);
        if (read === undefined) {
          return this.#keep(buf, 0, Math.max(buf.length * 2, EXCERPT_BYTES), records, failures);
        }
        this.#header = read.header;
        pos = read.end;
      }
      for (;;) {
        const next = this.#readBlock(buf, pos, final, records);
        if (typeof next === 'number') pos = next;
        else return this.#keep(buf, pos, next.need, records, failures);
      }
    } catch (error) {
      if (!(error instanceof Stop)) throw error;
      failures.push(
        failure({
          code: error.code,
          params: error.params,
          scope: error.scope,
          recordIndex: this.#recordCount,
          byteOffset: error.at,
          excerpt: Buffer.from(error.excerpt).toString('hex'),
          canContinue: false,
        }),
      );
      this.#stopped = true;
      this.#pending.clear();
      return { records, failures };
    }
  }

  /** Holds `buf` from `pos` for the next read, which waits for `need` bytes; returns what this read produced. */
  #keep(
    buf: Uint8Array,
    pos: number,
    need: number,
    records: ParsedRecord[],
    failures: ParseFailure[],
  ): ParseResult {
    this.#pending.keep(buf, pos, need);
    return { records, failures };
  }

  #readHeader(buf: Uint8Array, final: boolean): { header: Header; end: number } | undefined {
    // The magic is checked on at least 128 bytes (or the whole input) so that the excerpt of a body that is not
    // a container file does not depend on how it was chunked.
    if (!final && buf.length < EXCERPT_BYTES) return undefined;
    const head = buf.subarray(0, EXCERPT_BYTES);
    const stop = (detail: string): Stop => new Stop('ORIGIN_AVRO_MALFORMED', { offset: 0, detail }, 0, head);
    if (buf.length < MAGIC.length || MAGIC.some((b, i) => buf[i] !== b)) {
      throw stop(buf.length === 0 ? 'the body is empty' : 'it does not start with the magic bytes Obj\\x01');
    }
    const decoded = readMetadata(buf, MAGIC.length);
    if (typeof decoded === 'string') throw stop(`the header metadata cannot be read (${decoded})`);
    if (decoded === undefined || decoded.end + SYNC_BYTES > buf.length) {
      if (final) throw stop('the body ends inside the header');
      if (buf.length > this.#maxBlockBytes) {
        throw new Stop(
          'ORIGIN_AVRO_BLOCK_TOO_LARGE',
          { offset: 0, size: buf.length, limit: this.#maxBlockBytes },
          0,
          head,
        );
      }
      return undefined;
    }
    const metadata = decoded.value;
    const codec = utf8(metadata.get('avro.codec')) ?? 'null';
    if (!SUPPORTED_CODECS.has(codec)) {
      throw new Stop('ORIGIN_AVRO_CODEC_UNSUPPORTED', { codec }, 0, head);
    }
    const schemaJson = utf8(metadata.get('avro.schema'));
    if (schemaJson === undefined) throw stop('the header has no avro.schema');
    let decoder: AvroDecoder;
    try {
      decoder = new AvroDecoder(JSON.parse(schemaJson));
    } catch (error) {
      throw stop(`the writer schema is invalid (${(error as Error).message})`);
    }
    const end = decoded.end + SYNC_BYTES;
    const attributes = Object.freeze({ avroSchema: schemaJson });
    // A copy: a Buffer's slice is a view, and parseAll reads the caller's bytes in place.
    const sync = new Uint8Array(buf.subarray(decoded.end, end));
    return { header: { decoder, attributes, codec, sync }, end };
  }

  /**
   * Reads the block at `pos` into `records`; returns the position after it, or how many bytes from `pos` must be
   * held before it can be read.
   */
  #readBlock(
    buf: Uint8Array,
    pos: number,
    final: boolean,
    records: ParsedRecord[],
  ): number | { need: number } {
    const header = this.#header as Header;
    const at = this.#pending.base + pos;
    if (pos === buf.length && final) return { need: 1 };
    const count = readLong(buf, pos);
    const size = count && readLong(buf, count.end);
    const malformed = (detail: string, excerptEnd: number): Stop =>
      new Stop(
        'ORIGIN_AVRO_MALFORMED',
        { offset: at, detail },
        at,
        buf.subarray(pos, Math.min(excerptEnd, pos + EXCERPT_BYTES)),
      );
    if (count && Number.isNaN(count.value)) throw malformed('a block header is not a valid long', count.end);
    if (size && Number.isNaN(size.value)) throw malformed('a block header is not a valid long', size.end);
    if (!count || !size) {
      if (final) throw malformed('the body ends inside a block header', buf.length);
      return { need: buf.length - pos + 1 };
    }
    if (count.value < 0 || size.value < 0) throw malformed('a block declares a negative size', size.end);
    if (count.value > size.value && count.value > MAX_ZERO_WIDTH_RECORDS) {
      throw malformed(`a block declares ${count.value} records in ${size.value} bytes`, size.end);
    }
    if (size.value > this.#maxBlockBytes) {
      throw new Stop(
        'ORIGIN_AVRO_BLOCK_TOO_LARGE',
        { offset: at, size: size.value, limit: this.#maxBlockBytes },
        at,
        buf.subarray(pos, size.end),
      );
    }
    const end = size.end + size.value + SYNC_BYTES;
    if (end > buf.length) {
      if (final) throw malformed('the body ends inside a block', buf.length);
      return { need: end - pos };
    }
    const sync = buf.subarray(end - SYNC_BYTES, end);
    if (sync.some((b, i) => b !== header.sync[i]))
      throw malformed('the block sync marker does not match', end);
    let data: Buffer;
    try {
      data = this.#decompress(header.codec, buf.subarray(size.end, end - SYNC_BYTES), at);
    } catch (error) {
      if (error instanceof Stop) throw error;
      throw malformed(`the ${header.codec} data is corrupt (${(error as Error).message})`, end);
    }
    if (header.codec !== 'null') this.#decoded += data.length;
    let values: FieldValue[];
    try {
      values = header.decoder.decodeBlock(data, count.value);
    } catch (error) {
      if (!(error instanceof AvroDecodeError)) throw error;
      if (error.kind === 'trailing') throw malformed('the block has bytes after its last record', end);
      if (error.kind === 'truncated')
        throw malformed(`the block ends inside record ${error.recordIndex}`, end);
      throw malformed(`record ${error.recordIndex} of the block cannot be decoded (${error.detail})`, end);
    }
    for (const value of values) records.push({ value, attributes: header.attributes });
    this.#recordCount += values.length;
    return end;
  }

  /**
   * The block's data (`bytes`, the block at input offset `at`) decompressed. Decompression stops as soon as the
   * output passes `maxBlockSizeBytes` (`ORIGIN_AVRO_BLOCK_TOO_LARGE`) or what is left of the request's budget for
   * all blocks together (`ORIGIN_AVRO_TOO_LARGE`, scope `'stage'`), whichever is smaller. Throws a plain Error for
   * corrupt data.
   */
  #decompress(codec: string, bytes: Uint8Array, at: number): Buffer {
    if (codec === 'null') return toBuffer(bytes);
    const budgetLeft = this.#maxDecodedBytes - this.#decoded;
    const limit = Math.max(1, Math.min(this.#maxBlockBytes, budgetLeft));
    const overLimit = (size: number | string): Stop => {
      const excerpt = bytes.subarray(0, EXCERPT_BYTES);
      if (limit === this.#maxBlockBytes) {
        return new Stop('ORIGIN_AVRO_BLOCK_TOO_LARGE', { offset: at, size, limit }, at, excerpt);
      }
      const limits = {
        limitMb: this.#maxDecodedBytes / 1_000_000,
        limitBytes: this.#maxDecodedBytes,
        offset: at,
      };
      return new Stop('ORIGIN_AVRO_TOO_LARGE', limits, at, excerpt, 'stage');
    };
    if (codec === 'deflate') {
      try {
        return inflateRawSync(bytes, { maxOutputLength: limit });
      } catch (error) {
        if ((error as { code?: unknown }).code === 'ERR_BUFFER_TOO_LARGE')
          throw overLimit(`more than ${limit}`);
        throw error;
      }
    }
    if (codec === 'snappy') return unsnappy(bytes, limit, overLimit);
    const pieces: Uint8Array[] = [];
    const decompressor = createDecompressor(
      codec as 'bzip2' | 'xz' | 'zstandard',
      (data) => pieces.push(data),
      limit,
    );
    try {
      // bzip2, xz and zstandard: the block is one whole stream of the codec (as the Java and Python writers make it).
      decompressor.push(bytes);
      decompressor.end();
    } catch (error) {
      if (error instanceof DecompressError && error.kind === 'tooLarge')
        throw overLimit(`more than ${limit}`);
      if (error instanceof DecompressError) throw new Error(error.detail);
      throw error;
    }
    return Buffer.concat(pieces);
  }
}

/**
 * Avro's snappy codec: raw snappy data, then the CRC32 of the uncompressed data, big-endian. The length the data
 * declares is checked against `limit` before anything is allocated.
 */
function unsnappy(bytes: Uint8Array, limit: number, overLimit: (size: number) => Stop): Buffer {
  if (bytes.length < 4) throw new Error('no room for the CRC32 trailer');
  const compressed = bytes.subarray(0, bytes.length - 4);
  const length = readVarint32(compressed);
  if (length > limit) throw overLimit(length);
  const data = uncompressSync(toBuffer(compressed)) as Buffer;
  const expected = toBuffer(bytes).readUInt32BE(bytes.length - 4);
  if (crc32(data) !== expected) throw new Error('CRC32 mismatch');
  return data;
}

/**
 * The header metadata (an Avro `map<bytes>`) at `pos` and the position after it; undefined when the bytes end
 * first, the reason as text when it is invalid. Every count and length is checked against the bytes present before
 * anything loops or is allocated: an entry takes at least 2 bytes (the two lengths), so a count the bytes left
 * cannot hold either waits for more bytes or, at the end of the body, is truncation. A hostile count (2^60 in 9
 * bytes) therefore costs nothing.
 */
function readMetadata(
  buf: Uint8Array,
  pos: number,
): { value: Map<string, Uint8Array>; end: number } | undefined | string {
  const value = new Map<string, Uint8Array>();
  for (;;) {
    const count = readLong(buf, pos);
    if (count === undefined) return undefined;
    if (Number.isNaN(count.value)) return 'a map block count is not a valid long';
    pos = count.end;
    if (count.value === 0) return { value, end: pos };
    let n = count.value;
    if (n < 0) {
      // A negative count is followed by the block's size in bytes, which is not needed.
      n = -n;
      const size = readLong(buf, pos);
      if (size === undefined) return undefined;
      if (Number.isNaN(size.value) || size.value < 0) return 'a map block size is not valid';
      pos = size.end;
    }
    if (n * 2 > buf.length - pos) return undefined;
    for (let i = 0; i < n; i++) {
      const key = readSized(buf, pos);
      if (typeof key !== 'object') return key;
      const entry = readSized(buf, key.end);
      if (typeof entry !== 'object') return entry;
      value.set(toBuffer(key.bytes).toString('utf8'), entry.bytes);
      pos = entry.end;
    }
  }
}

/** A length-prefixed byte string at `pos` (a view): undefined when the bytes end first, text when invalid. */
function readSized(buf: Uint8Array, pos: number): { bytes: Uint8Array; end: number } | undefined | string {
  const length = readLong(buf, pos);
  if (length === undefined) return undefined;
  if (Number.isNaN(length.value) || length.value < 0) return 'a length is not valid';
  const end = length.end + length.value;
  if (end > buf.length) return undefined;
  return { bytes: buf.subarray(length.end, end), end };
}

function utf8(bytes: Uint8Array | undefined): string | undefined {
  return bytes === undefined ? undefined : toBuffer(bytes).toString('utf8');
}

function toBuffer(bytes: Uint8Array): Buffer {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
}

/**
 * Avro's zig-zag varint long at `pos` and the position after it: undefined when the bytes end first, a NaN value
 * when it runs past 10 bytes or 2^53.
 */
function readLong(buf: Uint8Array, pos: number): { value: number; end: number } | undefined {
  let raw = 0n;
  for (let i = 0; i < 10; i++) {
    const byte = buf[pos + i];
    if (byte === undefined) return undefined;
    raw |= BigInt(byte & 0x7f) << BigInt(7 * i);
    if ((byte & 0x80) === 0) {
      const value = raw & 1n ? -((raw >> 1n) + 1n) : raw >> 1n;
      const safe = value <= BigInt(Number.MAX_SAFE_INTEGER) && value >= -BigInt(Number.MAX_SAFE_INTEGER);
      return { value: safe ? Number(value) : NaN, end: pos + i + 1 };
    }
  }
  return { value: NaN, end: pos + 10 };
}

/** The uncompressed length that starts raw snappy data (an unsigned varint). */
function readVarint32(buf: Uint8Array): number {
  let value = 0;
  for (let i = 0; i < 5; i++) {
    const byte = buf[i];
    if (byte === undefined) break;
    value += (byte & 0x7f) * 2 ** (7 * i);
    if ((byte & 0x80) === 0) return value;
  }
  throw new Error('the snappy length preamble is invalid');
}

import { compressSync, uncompressSync } from 'snappy';

import { OriginError } from '../errors/origin-error';
import { crc32c, maskCrc32c } from './crc32c';

/**
 * The snappy framing format (https://github.com/google/snappy/blob/main/framing_format.txt): a stream
 * identifier chunk, then chunks of `type (1 byte) | length (3 bytes, little-endian) | data`, where compressed
 * (0x00) and uncompressed (0x01) chunks start with the masked CRC-32C of their uncompressed data. The `snappy`
 * package does the raw block (de)compression; the framing is here so that the body reader controls buffering,
 * limits and error reporting itself.
 */

/** The ten bytes every snappy framed stream starts with: chunk type 0xff, length 6, `sNaPpY`. */
export const SNAPPY_STREAM_IDENTIFIER: Uint8Array = Uint8Array.of(
  0xff,
  0x06,
  0x00,
  0x00,
  0x73,
  0x4e,
  0x61,
  0x50,
  0x70,
  0x59,
);

/** The most uncompressed data one compressed or uncompressed chunk may carry. */
export const SNAPPY_MAX_CHUNK_DATA = 65536;

const CHUNK_COMPRESSED = 0x00;
const CHUNK_UNCOMPRESSED = 0x01;
const CHUNK_STREAM_IDENTIFIER = 0xff;
const CHUNK_HEADER_BYTES = 4;
const CRC_BYTES = 4;
// Snappy's MaxCompressedLength(65536): the largest block a conforming encoder emits for one chunk's data.
const MAX_COMPRESSED_CHUNK_DATA = 32 + SNAPPY_MAX_CHUNK_DATA + Math.floor(SNAPPY_MAX_CHUNK_DATA / 6);

/**
 * The uncompressed length that a raw snappy block declares in its leading varint, and how many bytes that
 * varint takes. `undefined` when `block` does not start with a complete, valid varint of at most 32 bits (so a
 * caller holding at least five bytes, or the whole block, can treat `undefined` as a corrupt block).
 */
export function snappyBlockLength(block: Uint8Array): { length: number; varintBytes: number } | undefined {
  let length = 0;
  for (let i = 0; i < 5 && i < block.length; i++) {
    const byte = block[i]!;
    if (i === 4 && byte > 0x0f) return undefined;
    length += (byte & 0x7f) * 2 ** (7 * i);
    if ((byte & 0x80) === 0) return { length, varintBytes: i + 1 };
  }
  return undefined;
}

function corrupt(detail: string, cause?: unknown): OriginError<'ORIGIN_HTTP_BODY_CORRUPT'> {
  return new OriginError('ORIGIN_HTTP_BODY_CORRUPT', { encoding: 'snappy', detail }, { cause });
}

function readUint32LE(bytes: Uint8Array, at: number): number {
  return (bytes[at]! | (bytes[at + 1]! << 8) | (bytes[at + 2]! << 16) | (bytes[at + 3]! << 24)) >>> 0;
}

function hex(value: number): string {
  return `0x${value.toString(16).padStart(8, '0')}`;
}

/**
 * An incremental decoder of the snappy framing format, independent of HTTP.
 *
 * Contract: call `push` with each piece of the stream in order (pieces may split chunks anywhere), then `end`
 * once. Every returned array holds new buffers that the caller owns; the decoder copies what it must keep of a
 * pushed piece, so the caller may reuse its buffers. Padding (0xfe) and skippable (0x80–0xfd) chunks are skipped
 * without being buffered; repeated stream identifiers are checked and ignored. An empty stream decodes to
 * nothing.
 *
 * Memory: at most one chunk (a little over 64 KiB) is held between pushes.
 *
 * Both methods throw `OriginError` `ORIGIN_HTTP_BODY_CORRUPT` (params `encoding: 'snappy'`, `detail` naming the
 * problem and its byte offset) when the stream does not start with the stream identifier, a chunk type is a
 * reserved unskippable one (0x02–0x7f), a chunk length is out of bounds, a checksum does not match, a block does
 * not decompress, or (from `end`) the stream stops inside a chunk. After a throw the decoder stays failed and
 * every later call throws the same error.
 */
export class SnappyFramedDecoder {
  readonly #header = new Uint8Array(CHUNK_HEADER_BYTES);
  #headerFilled = 0;
  // A data chunk split across pushes is gathered here, allocated once at its final size so that a stream sent
  // in tiny pieces costs no repeated copying.
  #body: Uint8Array | undefined;
  #bodyFilled = 0;
  #bodyType = 0;
  #skip = 0;
  #chunkAt = 0;
  #consumed = 0;
  #sawIdentifier = false;
  #failure: OriginError | undefined;

  /** Decodes as much of the stream as `chunk` completes; returns the decoded data, in order (maybe none). */
  push(chunk: Uint8Array): Uint8Array[] {
    if (this.#failure !== undefined) throw this.#failure;
    try {
      return this.#decode(chunk);
    } catch (error) {
      this.#failure = error instanceof OriginError ? error : corrupt(String(error), error);
      throw this.#failure;
    }
  }

  /** Checks that the stream did not stop inside a chunk. */
  end(): void {
    if (this.#failure !== undefined) throw this.#failure;
    if (this.#headerFilled > 0 || this.#body !== undefined || this.#skip > 0) {
      this.#failure = corrupt(`the stream is truncated inside the chunk at byte ${this.#chunkAt}`);
      throw this.#failure;
    }
  }

  #decode(data: Uint8Array): Uint8Array[] {
    const out: Uint8Array[] = [];
    const base = this.#consumed;
    this.#consumed += data.length;
    let pos = 0;
    while (pos < data.length) {
      if (this.#skip > 0) {
        const skipped = Math.min(this.#skip, data.length - pos);
        this.#skip -= skipped;
        pos += skipped;
        continue;
      }
      if (this.#body !== undefined) {
        const taken = Math.min(this.#body.length - this.#bodyFilled, data.length - pos);
        this.#body.set(data.subarray(pos, pos + taken), this.#bodyFilled);
        this.#bodyFilled += taken;
        pos += taken;
        if (this.#bodyFilled === this.#body.length) {
          const body = this.#body;
          this.#body = undefined;
          this.#finishChunk(this.#bodyType, body, out);
        }
        continue;
      }
      if (this.#headerFilled === 0) this.#chunkAt = base + pos;
      const taken = Math.min(CHUNK_HEADER_BYTES - this.#headerFilled, data.length - pos);
      this.#header.set(data.subarray(pos, pos + taken), this.#headerFilled);
      this.#headerFilled += taken;
      pos += taken;
      if (this.#headerFilled < CHUNK_HEADER_BYTES) break;
      this.#headerFilled = 0;
      const type = this.#header[0]!;
      const length = this.#header[1]! | (this.#header[2]! << 8) | (this.#header[3]! << 16);
      if (!this.#sawIdentifier && type !== CHUNK_STREAM_IDENTIFIER) {
        throw corrupt('the stream does not start with the snappy stream identifier');
      }
      if (type >= 0x80 && type <= 0xfe) {
        this.#skip = length;
        continue;
      }
      checkChunkLength(type, length, this.#chunkAt);
      if (data.length - pos >= length) {
        this.#finishChunk(type, data.subarray(pos, pos + length), out);
        pos += length;
      } else {
        this.#body = new Uint8Array(length);
        this.#bodyFilled = 0;
        this.#bodyType = type;
      }
    }
    return out;
  }

  #finishChunk(type: number, body: Uint8Array, out: Uint8Array[]): void {
    if (type === CHUNK_STREAM_IDENTIFIER) {
      if (!sameBytes(body, SNAPPY_STREAM_IDENTIFIER.subarray(CHUNK_HEADER_BYTES))) {
        throw corrupt(`the stream identifier at byte ${this.#chunkAt} is not 'sNaPpY'`);
      }
      this.#sawIdentifier = true;
      return;
    }
    const decoded = decodeDataChunk(type, body, this.#chunkAt);
    if (decoded.length > 0) out.push(decoded);
  }
}

function checkChunkLength(type: number, length: number, at: number): void {
  if (type === CHUNK_STREAM_IDENTIFIER) {
    if (length !== SNAPPY_STREAM_IDENTIFIER.length - CHUNK_HEADER_BYTES) {
      throw corrupt(`the stream identifier chunk at byte ${at} has length ${length} instead of 6`);
    }
    return;
  }
  if (type !== CHUNK_COMPRESSED && type !== CHUNK_UNCOMPRESSED) {
    throw corrupt(`the chunk at byte ${at} has the reserved unskippable type 0x${type.toString(16)}`);
  }
  const max = CRC_BYTES + (type === CHUNK_COMPRESSED ? MAX_COMPRESSED_CHUNK_DATA : SNAPPY_MAX_CHUNK_DATA);
  const min = CRC_BYTES + (type === CHUNK_COMPRESSED ? 1 : 0);
  if (length < min || length > max) {
    throw corrupt(`the chunk at byte ${at} has length ${length}, outside ${min}..${max}`);
  }
}

function decodeDataChunk(type: number, body: Uint8Array, at: number): Uint8Array {
  const expectedCrc = readUint32LE(body, 0);
  const payload = body.subarray(CRC_BYTES);
  let decoded: Uint8Array;
  if (type === CHUNK_COMPRESSED) {
    // Checked before decompressing: the block's own varint decides what the decompressor allocates.
    const declared = snappyBlockLength(payload);
    if (declared === undefined || declared.length > SNAPPY_MAX_CHUNK_DATA) {
      throw corrupt(`the compressed chunk at byte ${at} declares an invalid uncompressed length`);
    }
    try {
      decoded = uncompressSync(payload, { asBuffer: true }) as Buffer;
    } catch (error) {
      throw corrupt(`the compressed chunk at byte ${at} does not decompress`, error);
    }
  } else {
    decoded = payload.slice();
  }
  const actualCrc = maskCrc32c(crc32c(decoded));
  if (actualCrc !== expectedCrc) {
    throw corrupt(
      `checksum mismatch in the chunk at byte ${at} (stored ${hex(expectedCrc)}, computed ${hex(actualCrc)})`,
    );
  }
  return decoded;
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * Encodes `data` in the snappy framing format: the stream identifier, then one chunk per 64 KiB of `data`,
 * compressed with snappy when that saves at least 1/8 of the chunk, stored uncompressed otherwise, each with the
 * masked CRC-32C of its data. Empty `data` gives the stream identifier alone. The result is a new buffer.
 */
export function encodeSnappyFramed(data: Uint8Array): Buffer {
  const parts: Uint8Array[] = [SNAPPY_STREAM_IDENTIFIER];
  for (let offset = 0; offset < data.length; offset += SNAPPY_MAX_CHUNK_DATA) {
    const block = data.subarray(offset, offset + SNAPPY_MAX_CHUNK_DATA);
    const compressed = compressSync(block);
    const useCompressed = compressed.length < block.length - (block.length >>> 3);
    const body = useCompressed ? compressed : block;
    const header = Buffer.alloc(CHUNK_HEADER_BYTES + CRC_BYTES);
    header.writeUInt32LE(
      ((CRC_BYTES + body.length) << 8) | (useCompressed ? CHUNK_COMPRESSED : CHUNK_UNCOMPRESSED),
    );
    header.writeUInt32LE(maskCrc32c(crc32c(block)), CHUNK_HEADER_BYTES);
    parts.push(header, body);
  }
  return Buffer.concat(parts);
}

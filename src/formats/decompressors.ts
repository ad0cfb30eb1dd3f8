import { Xxh64 } from '@node-rs/xxhash';
import { Decompress as ZstdDecompress } from 'fzstd';
import { Gunzip } from 'fflate';
import { crc32 as zlibCrc32 } from 'node:zlib';
import lzma from 'lzma-native';
import Bunzip from 'seek-bzip';
import { OriginError } from '../errors/origin-error';
import { SnappyFramedDecoder } from './snappy-framing';

/**
 * Streaming decompressors shared by the formats that read compressed data (the Avro container's block codecs, the
 * Compression Format). Each wraps a maintained package: fflate (gzip), seek-bzip (bzip2), lzma-native's liblzma
 * (xz), fzstd (Zstandard), and the body reader's snappy framing over the `snappy` package's raw blocks. None is a
 * codec of our own; what is here is the byte budget and the error reporting.
 */

/** A codec {@link createDecompressor} can undo; `snappy` is the snappy framing format (a `.sz` file). */
export type StreamCodec = 'gzip' | 'bzip2' | 'xz' | 'zstandard' | 'snappy';

/**
 * Why decompression stopped: `'corrupt'` when the data is not valid for the codec or ends early (`detail` says
 * which), `'tooLarge'` when the output would pass the budget (`detail` says how it was found).
 */
export class DecompressError extends Error {
  readonly kind: 'corrupt' | 'tooLarge';
  readonly codec: StreamCodec;
  readonly detail: string;

  constructor(kind: 'corrupt' | 'tooLarge', codec: StreamCodec, detail: string) {
    super(`${codec}: ${detail}`);
    this.name = 'DecompressError';
    this.kind = kind;
    this.codec = codec;
    this.detail = detail;
  }
}

/** Bytes in, decompressed bytes out through the `ondata` given at creation. */
export interface Decompressor {
  /** Takes the next compressed bytes (the caller may reuse `chunk` afterwards). */
  push(chunk: Uint8Array): void;
  /** No more input: flushes what is left and checks that the data did not stop early. */
  end(): void;
}

/**
 * Decompressors are fed this much at a time where the package decodes a whole pushed chunk before returning, so
 * that one call never produces more than about a thousand times this (deflate's best ratio) before the budget is
 * checked: a bomb stops near the budget with memory flat.
 */
const FEED_BYTES = 4096;
/** Output of seek-bzip (which writes byte by byte) is handed on in pieces of this size. */
const BZIP2_PIECE_BYTES = 65_536;
/**
 * The largest Zstandard window accepted: zstd's own default decoding limit (ZSTD_WINDOWLOG_LIMIT_DEFAULT, 2^27).
 * fzstd allocates the window a frame header declares before any data, so a larger one is refused unread.
 */
const ZSTD_MAX_WINDOW = 2 ** 27;
/**
 * xz input is handed to liblzma this much at a time: lzma-native decodes a whole call's input before it hands the
 * output over, and xz reaches ratios near 7000 to 1, so a call stays under about 8 MB of output.
 */
const XZ_FEED_BYTES = 1024;
/** The memory liblzma may use to decode (`xz -9` needs 65 MiB); more is refused as too large. */
const XZ_MEMORY_LIMIT = 2 ** 27;

/** What {@link createDecompressor} may be told beyond the codec and budget. */
export interface DecompressorOptions {
  /**
   * Zstandard only: the largest window a frame may need. A frame that needs more is refused as `'corrupt'` before
   * fzstd allocates its window (the HTTP `zstd` content coding, RFC 9659 §3, allows 8 MiB). Without it, windows
   * up to 2^27 bytes are accepted and larger ones are `'tooLarge'`.
   */
  readonly maxWindowBytes?: number;
}

/**
 * A streaming decompressor of `codec` whose output goes to `ondata` in order, in pieces the caller owns. Output past
 * `maxOutputBytes` in all (or a Zstandard frame that declares more) stops it with a `'tooLarge'`
 * {@link DecompressError}; invalid or truncated data with a `'corrupt'` one. Concatenated streams (gzip members, xz
 * streams, bzip2 streams, Zstandard frames) are read as one, as the command-line tools do. An error thrown by
 * `ondata` stops decompression and propagates unchanged. After any throw the decompressor must not be used again.
 *
 * Memory: gzip, xz and Zstandard hold a bounded window (Zstandard's at most 128 MiB, refused beyond); bzip2
 * (seek-bzip decodes from a whole buffer only) holds the compressed input until `end`, so its size is bounded by
 * what the caller lets in.
 */
export function createDecompressor(
  codec: StreamCodec,
  ondata: (data: Uint8Array) => void,
  maxOutputBytes: number,
  options: DecompressorOptions = {},
): Decompressor {
  let produced = 0;
  const counted = (data: Uint8Array): void => {
    if (data.length === 0) return;
    produced += data.length;
    if (produced > maxOutputBytes) {
      throw new DecompressError('tooLarge', codec, `the output passes ${maxOutputBytes} bytes`);
    }
    ondata(data);
  };
  const make = {
    gzip: gzipDecompressor,
    bzip2: bzip2Decompressor,
    xz: xzDecompressor,
    zstandard: zstdDecompressor,
    snappy: snappyDecompressor,
  };
  return guarded(codec, make[codec](counted, maxOutputBytes, options));
}

/**
 * Turns what a package throws into a `'corrupt'` {@link DecompressError}, and lets through what `ondata` threw (our
 * own errors, or the caller's).
 */
function guarded(
  codec: StreamCodec,
  inner: Decompressor & { readonly passThrough: Set<unknown> },
): Decompressor {
  const run = (step: () => void): void => {
    try {
      step();
    } catch (error) {
      if (error instanceof DecompressError || inner.passThrough.has(error)) throw error;
      // The snappy framing reports with the body reader's error; its `detail` names the problem without HTTP.
      const detail =
        error instanceof OriginError
          ? String(error.params['detail'] ?? error.message)
          : error instanceof Error
            ? error.message
            : String(error);
      throw new DecompressError('corrupt', codec, detail || 'the data is invalid');
    }
  };
  return {
    push: (chunk) => run(() => inner.push(chunk)),
    end: () => run(() => inner.end()),
  };
}

/** `ondata` wrapped so that what it throws is recognised as the caller's and not reported as corrupt data. */
function passing(ondata: (data: Uint8Array) => void): {
  emit: (data: Uint8Array) => void;
  passThrough: Set<unknown>;
} {
  const passThrough = new Set<unknown>();
  return {
    passThrough,
    emit: (data) => {
      try {
        ondata(data);
      } catch (error) {
        passThrough.add(error);
        throw error;
      }
    },
  };
}

type Made = Decompressor & { readonly passThrough: Set<unknown> };

/** Input kept for gzip's trailer check: a trailer lies at most this far back when the next member starts. */
const GZIP_WINDOW_BYTES = 65_536;

/**
 * gzip through fflate's Gunzip, which inflates (concatenated members too) but reads no trailer: each member's
 * trailer (CRC-32 and size of its data, RFC 1952) is checked here against the data inflated, as `gzip -d` does,
 * so that a corrupt member or a file cut inside its last trailer is refused. The CRC is Node's zlib `crc32`.
 */
function gzipDecompressor(ondata: (data: Uint8Array) => void): Made {
  const { emit, passThrough } = passing(ondata);
  let crc = 0;
  let size = 0;
  // Copies of the last input pieces (at least GZIP_WINDOW_BYTES of input when there is as much), and the input
  // offset of the first byte they hold.
  const window: Uint8Array[] = [];
  let windowBytes = 0;
  let windowStart = 0;
  let pushed = 0;
  const trailerAt = (start: number): Buffer => {
    const out = Buffer.alloc(8);
    let base = windowStart;
    for (const piece of window) {
      for (let i = 0; i < 8; i++) {
        const at = start + i - base;
        if (at >= 0 && at < piece.length) out[i] = piece[at] as number;
      }
      base += piece.length;
    }
    return out;
  };
  const checkTrailer = (end: number): void => {
    if (end - 8 < windowStart) {
      throw new DecompressError('corrupt', 'gzip', 'a member header is over 64 KiB long');
    }
    const trailer = trailerAt(end - 8);
    if (trailer.readUInt32LE(0) !== crc || trailer.readUInt32LE(4) !== size % 2 ** 32) {
      throw new DecompressError(
        'corrupt',
        'gzip',
        'a member does not match its CRC-32 and size (or is cut short)',
      );
    }
    crc = 0;
    size = 0;
  };
  const gunzip = new Gunzip((data) => {
    crc = zlibCrc32(data, crc);
    size += data.length;
    emit(data);
  });
  gunzip.onmember = (offset) => checkTrailer(offset);
  return {
    passThrough,
    push: (chunk) => {
      for (let at = 0; at < chunk.length; at += FEED_BYTES) {
        const piece = chunk.subarray(at, at + FEED_BYTES);
        window.push(new Uint8Array(piece));
        windowBytes += piece.length;
        while (windowBytes - (window[0] as Uint8Array).length >= GZIP_WINDOW_BYTES) {
          const dropped = window.shift() as Uint8Array;
          windowBytes -= dropped.length;
          windowStart += dropped.length;
        }
        pushed += piece.length;
        gunzip.push(piece);
      }
    },
    end: () => {
      if (pushed === 0) return;
      gunzip.push(new Uint8Array(0), true);
      checkTrailer(pushed);
    },
  };
}

function bzip2Decompressor(ondata: (data: Uint8Array) => void): Made {
  const { emit, passThrough } = passing(ondata);
  const input: Uint8Array[] = [];
  return {
    passThrough,
    push: (chunk) => {
      input.push(new Uint8Array(chunk));
    },
    end: () => {
      const whole = Buffer.concat(input);
      input.length = 0;
      if (whole.length === 0) return;
      let piece = new Uint8Array(BZIP2_PIECE_BYTES);
      let filled = 0;
      Bunzip.decode(
        whole,
        {
          writeByte: (byte) => {
            piece[filled++] = byte;
            if (filled === BZIP2_PIECE_BYTES) {
              emit(piece);
              piece = new Uint8Array(BZIP2_PIECE_BYTES);
              filled = 0;
            }
          },
        },
        true,
      );
      if (filled > 0) emit(piece.subarray(0, filled));
    },
  };
}

function xzDecompressor(ondata: (data: Uint8Array) => void): Made {
  const { emit, passThrough } = passing(ondata);
  const stream = new lzma.Stream();
  stream.streamDecoder_(XZ_MEMORY_LIMIT, lzma.CONCATENATED);
  let finished = false;
  let pushed = 0;
  stream.bufferHandler = (buf, _processed, err) => {
    if (err) {
      const detail = /memory usage limit/i.test(err.message)
        ? `decoding needs more than ${XZ_MEMORY_LIMIT} bytes of memory`
        : err.message;
      throw new DecompressError(
        /memory usage limit/i.test(err.message) ? 'tooLarge' : 'corrupt',
        'xz',
        detail,
      );
    }
    if (buf === null) finished = true;
    else if (buf) emit(new Uint8Array(buf.buffer, buf.byteOffset, buf.length));
  };
  const release = <T>(step: () => T): T => {
    try {
      return step();
    } catch (error) {
      stream.resetUnderlying();
      throw error;
    }
  };
  return {
    passThrough,
    push: (chunk) =>
      release(() => {
        pushed += chunk.length;
        for (let at = 0; at < chunk.length; at += XZ_FEED_BYTES) {
          stream.code(chunk.subarray(at, at + XZ_FEED_BYTES), false);
        }
      }),
    end: () =>
      release(() => {
        if (pushed === 0) return;
        stream.code(null, false);
        if (!finished) throw new DecompressError('corrupt', 'xz', 'the data ends inside a stream');
        stream.resetUnderlying();
      }),
  };
}

function snappyDecompressor(ondata: (data: Uint8Array) => void): Made {
  const { emit, passThrough } = passing(ondata);
  const decoder = new SnappyFramedDecoder();
  let pushed = 0;
  return {
    passThrough,
    push: (chunk) => {
      pushed += chunk.length;
      for (let at = 0; at < chunk.length; at += FEED_BYTES) {
        for (const piece of decoder.push(chunk.subarray(at, at + FEED_BYTES))) emit(piece);
      }
    },
    end: () => {
      if (pushed > 0) decoder.end();
    },
  };
}

/**
 * Zstandard through fzstd, one fzstd decoder per frame: the frame scanner splits the input at frame ends, so that
 * each frame's content is known and its checksum (the low 32 bits of its XXH64, RFC 8878 §3.1.1) is checked, as
 * `zstd -d` does; fzstd decodes but checks no checksum. XXH64 is @node-rs/xxhash's.
 */
function zstdDecompressor(
  ondata: (data: Uint8Array) => void,
  maxOutputBytes: number,
  options: DecompressorOptions,
): Made {
  const { emit, passThrough } = passing(ondata);
  const frames = new ZstdFrameScanner(maxOutputBytes, options.maxWindowBytes);
  let decoder: ZstdDecompress | undefined;
  let hash = new Xxh64(0n);
  const feed = (bytes: Uint8Array, final: boolean): void => {
    decoder ??= new ZstdDecompress((data) => {
      hash.update(data);
      emit(data);
    });
    decoder.push(bytes, final);
  };
  const frameEnded = (checksum: number | undefined): void => {
    if (checksum !== undefined && Number(hash.digest() & 0xffffffffn) !== checksum) {
      throw new DecompressError('corrupt', 'zstandard', 'a frame does not match its checksum');
    }
    decoder = undefined;
    hash = new Xxh64(0n);
  };
  return {
    passThrough,
    push: (chunk) => {
      for (let at = 0; at < chunk.length; at += FEED_BYTES) {
        const piece = chunk.subarray(at, at + FEED_BYTES);
        // The scanner sees every frame header before fzstd does: fzstd allocates the window it declares.
        let start = 0;
        for (const end of frames.scan(piece)) {
          feed(piece.subarray(start, end.at), true);
          frameEnded(end.checksum);
          start = end.at;
        }
        if (start < piece.length) feed(piece.subarray(start), false);
      }
    },
    end: () => frames.end(),
  };
}

/** Where a frame ends in the piece just scanned, and the checksum it ends with, if it has one. */
interface FrameEnd {
  readonly at: number;
  readonly checksum: number | undefined;
}

/**
 * Follows the frame structure of a Zstandard stream (RFC 8878 §3.1: frame headers, block headers, checksums,
 * skippable frames) without decoding anything, so that every frame header is checked before fzstd reads it: a
 * window over {@link ZSTD_MAX_WINDOW}, or a declared content size over the budget, is refused before fzstd
 * allocates for it. Decoding stays fzstd's.
 */
class ZstdFrameScanner {
  readonly #maxOutputBytes: number;
  readonly #maxWindowBytes: number | undefined;
  /** Header bytes gathered so far (a frame header is at most 18 bytes, a block header 3, a checksum 4). */
  #head: number[] = [];
  /** Bytes of the current state's header still needed, or bytes of data still to skip. */
  #need = 4;
  #state: 'magic' | 'frameHeader' | 'skippableSize' | 'blockHeader' | 'checksum' | 'skip' = 'magic';
  #afterSkip: 'frameEnd' | 'blockHeader' | 'checksum' = 'frameEnd';
  #checksum = false;
  #ends: FrameEnd[] = [];
  bytes = 0;

  constructor(maxOutputBytes: number, maxWindowBytes: number | undefined) {
    this.#maxOutputBytes = maxOutputBytes;
    this.#maxWindowBytes = maxWindowBytes;
  }

  /** Follows `chunk`; returns where frames end in it. Throws a {@link DecompressError} at a refused header. */
  scan(chunk: Uint8Array): FrameEnd[] {
    this.bytes += chunk.length;
    this.#ends = [];
    let pos = 0;
    while (pos < chunk.length) {
      if (this.#state === 'skip') {
        const skipped = Math.min(this.#need, chunk.length - pos);
        pos += skipped;
        this.#need -= skipped;
        if (this.#need === 0) this.#skipDone(pos);
        continue;
      }
      this.#head.push(chunk[pos++] as number);
      if (this.#head.length === this.#need) this.#headComplete(pos);
    }
    return this.#ends;
  }

  end(): void {
    if (this.bytes === 0) return;
    if (this.#state !== 'magic' || this.#head.length > 0) {
      throw new DecompressError('corrupt', 'zstandard', 'the data ends inside a frame');
    }
  }

  #enter(state: 'magic' | 'blockHeader' | 'checksum'): void {
    this.#state = state;
    this.#head = [];
    this.#need = state === 'magic' || state === 'checksum' ? 4 : 3;
  }

  #frameEnd(pos: number, checksum: number | undefined): void {
    this.#ends.push({ at: pos, checksum });
    this.#enter('magic');
  }

  #skip(bytes: number, then: 'frameEnd' | 'blockHeader' | 'checksum', pos: number): void {
    this.#head = [];
    this.#afterSkip = then;
    if (bytes === 0) this.#skipDone(pos);
    else {
      this.#state = 'skip';
      this.#need = bytes;
    }
  }

  #skipDone(pos: number): void {
    if (this.#afterSkip === 'frameEnd') this.#frameEnd(pos, undefined);
    else this.#enter(this.#afterSkip);
  }

  #headComplete(pos: number): void {
    const h = this.#head;
    switch (this.#state) {
      case 'magic': {
        const magic = readUint32LE(h, 0);
        if (magic === 0xfd2fb528) {
          this.#state = 'frameHeader';
          this.#need = 5;
        } else if ((magic & 0xfffffff0) >>> 0 === 0x184d2a50) {
          this.#state = 'skippableSize';
          this.#need = 8;
        } else {
          throw new DecompressError(
            'corrupt',
            'zstandard',
            'a frame does not start with the Zstandard magic',
          );
        }
        return;
      }
      case 'skippableSize':
        this.#skip(readUint32LE(h, 4), 'frameEnd', pos);
        return;
      case 'frameHeader':
        this.#frameHeader();
        return;
      case 'checksum':
        this.#frameEnd(pos, readUint32LE(h, 0));
        return;
      case 'blockHeader': {
        const header = h[0]! | (h[1]! << 8) | (h[2]! << 16);
        const last = (header & 1) === 1;
        const type = (header >> 1) & 3;
        if (type === 3) throw new DecompressError('corrupt', 'zstandard', 'a block has the reserved type 3');
        const size = type === 1 ? 1 : header >>> 3;
        this.#skip(size, last ? (this.#checksum ? 'checksum' : 'frameEnd') : 'blockHeader', pos);
        return;
      }
    }
  }

  #frameHeader(): void {
    const h = this.#head;
    const descriptor = h[4]!;
    const singleSegment = (descriptor & 0x20) !== 0;
    if (descriptor & 0x08) {
      throw new DecompressError('corrupt', 'zstandard', 'a frame header sets the reserved bit');
    }
    const dictBytes = [0, 1, 2, 4][descriptor & 3]!;
    const sizeFlag = descriptor >> 6;
    const sizeBytes = sizeFlag === 0 ? (singleSegment ? 1 : 0) : 1 << sizeFlag;
    const total = 5 + (singleSegment ? 0 : 1) + dictBytes + sizeBytes;
    if (h.length < total) {
      this.#need = total;
      return;
    }
    let at = 5;
    let window = 0;
    if (!singleSegment) {
      const w = h[at++]!;
      const base = 2 ** (10 + (w >> 3));
      window = base + (base / 8) * (w & 7);
    }
    at += dictBytes;
    let contentSize: number | undefined;
    if (sizeBytes > 0) {
      contentSize = 0;
      for (let i = sizeBytes - 1; i >= 0; i--) contentSize = contentSize * 256 + h[at + i]!;
      if (sizeBytes === 2) contentSize += 256;
    }
    if (singleSegment) window = contentSize ?? 0;
    if (contentSize !== undefined && contentSize > this.#maxOutputBytes) {
      throw new DecompressError(
        'tooLarge',
        'zstandard',
        `a frame declares ${contentSize} bytes of content, over ${this.#maxOutputBytes}`,
      );
    }
    if (this.#maxWindowBytes !== undefined && window > this.#maxWindowBytes) {
      throw new DecompressError(
        'corrupt',
        'zstandard',
        `a frame needs a ${window}-byte window, over the ${this.#maxWindowBytes} bytes allowed here`,
      );
    }
    if (window > ZSTD_MAX_WINDOW) {
      throw new DecompressError(
        'tooLarge',
        'zstandard',
        `a frame needs a ${window}-byte window, over the ${ZSTD_MAX_WINDOW} bytes zstd itself allows`,
      );
    }
    this.#checksum = (descriptor & 0x04) !== 0;
    this.#enter('blockHeader');
  }
}

function readUint32LE(bytes: readonly number[], at: number): number {
  return (bytes[at]! | (bytes[at + 1]! << 8) | (bytes[at + 2]! << 16) | (bytes[at + 3]! << 24)) >>> 0;
}

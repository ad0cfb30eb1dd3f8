import fc from 'fast-check';
import { Compressor, Decompressor, compressSync } from 'snappy';

import { isOriginError } from '../../src/errors/origin-error';
import { crc32c, maskCrc32c } from '../../src/formats/crc32c';
import {
  encodeSnappyFramed,
  SNAPPY_MAX_CHUNK_DATA,
  SNAPPY_STREAM_IDENTIFIER,
  snappyBlockLength,
  SnappyFramedDecoder,
} from '../../src/formats/snappy-framing';

function decodeInPieces(stream: Uint8Array, cuts: readonly number[]): Buffer {
  const decoder = new SnappyFramedDecoder();
  const out: Uint8Array[] = [];
  let start = 0;
  for (const cut of [...cuts].sort((a, b) => a - b)) {
    out.push(...decoder.push(stream.subarray(start, cut)));
    start = cut;
  }
  out.push(...decoder.push(stream.subarray(start)));
  decoder.end();
  return Buffer.concat(out);
}

function chunk(type: number, data: Uint8Array): Buffer {
  const header = Buffer.alloc(4);
  header.writeUInt32LE((data.length << 8) | type);
  return Buffer.concat([header, data]);
}

function withCrc(data: Uint8Array, payload: Uint8Array = data): Buffer {
  const crc = Buffer.alloc(4);
  crc.writeUInt32LE(maskCrc32c(crc32c(data)));
  return Buffer.concat([crc, payload]);
}

function corruptDetail(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    if (isOriginError(error, 'ORIGIN_HTTP_BODY_CORRUPT')) {
      expect(error.params.encoding).toBe('snappy');
      return String(error.params.detail);
    }
    throw error;
  }
  throw new Error('expected ORIGIN_HTTP_BODY_CORRUPT');
}

/** Runs of one repeated byte and stretches of random bytes: both compressed and stored chunks appear. */
const bodies = fc
  .array(
    fc.oneof(
      fc.uint8Array({ maxLength: 20_000 }),
      fc
        .tuple(fc.integer({ min: 0, max: 255 }), fc.integer({ min: 1, max: 70_000 }))
        .map(([byte, length]) => new Uint8Array(length).fill(byte)),
    ),
    { maxLength: 6 },
  )
  .map((parts) => Buffer.concat(parts));

describe('encodeSnappyFramed and SnappyFramedDecoder', () => {
  it('round-trip any data under any chunking of the stream', () => {
    fc.assert(
      fc.property(
        bodies,
        fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 20 }),
        (data, cuts) => {
          const stream = encodeSnappyFramed(data);
          const decoded = decodeInPieces(
            stream,
            cuts.map((cut) => Math.floor(cut * stream.length)),
          );
          expect(decoded.equals(data)).toBe(true);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('decode a stream fed one byte at a time', () => {
    const data = Buffer.alloc(150_000, 'abcdefgh');
    const stream = encodeSnappyFramed(data);
    const cuts = Array.from({ length: 2000 }, (_, i) => i);
    expect(decodeInPieces(stream, cuts).equals(data)).toBe(true);
  });

  it('write chunks of at most 64 KiB that the snappy package’s framed decoder reads', async () => {
    const data = Buffer.concat([Buffer.alloc(SNAPPY_MAX_CHUNK_DATA * 2 + 5, 'x'), Buffer.from('tail')]);
    const stream = encodeSnappyFramed(data);
    expect(stream.subarray(0, 10)).toEqual(Buffer.from(SNAPPY_STREAM_IDENTIFIER));
    const decompressor = new Decompressor();
    const decoded = Buffer.concat([decompressor.update(stream), await decompressor.finish()]);
    expect(decoded.equals(data)).toBe(true);
  });

  it('read what the snappy package’s framed compressor writes', async () => {
    const data = Buffer.alloc(300_000, 'the quick brown fox ');
    const compressor = new Compressor();
    const stream = Buffer.concat([compressor.update(data), await compressor.finish()]);
    expect(decodeInPieces(stream, [3, 12, 9000]).equals(data)).toBe(true);
  });

  it('encode no data as the stream identifier alone', () => {
    expect(encodeSnappyFramed(new Uint8Array(0))).toEqual(Buffer.from(SNAPPY_STREAM_IDENTIFIER));
    expect(decodeInPieces(encodeSnappyFramed(new Uint8Array(0)), []).length).toBe(0);
  });
});

describe('SnappyFramedDecoder', () => {
  it('skips padding and skippable chunks, even split across pushes, and ignores repeated identifiers', () => {
    const packed = Buffer.from('packed packed packed packed packed');
    const stream = Buffer.concat([
      SNAPPY_STREAM_IDENTIFIER,
      chunk(0x01, withCrc(Buffer.from('plain;'))),
      chunk(0xfe, Buffer.alloc(300)),
      chunk(0xfd, Buffer.from('application data the decoder does not know')),
      SNAPPY_STREAM_IDENTIFIER,
      chunk(0x00, withCrc(packed, compressSync(packed))),
    ]);
    for (const cuts of [[], [11], [30, 200, 345], Array.from({ length: stream.length }, (_, i) => i)]) {
      expect(decodeInPieces(stream, cuts).toString()).toBe('plain;packed packed packed packed packed');
    }
  });

  it('refuses a stream that does not start with the stream identifier', () => {
    const detail = corruptDetail(() =>
      new SnappyFramedDecoder().push(chunk(0x01, withCrc(Buffer.from('x')))),
    );
    expect(detail).toMatch(/stream identifier/);
    const bad = Buffer.from(SNAPPY_STREAM_IDENTIFIER);
    bad[9] = 0x5a;
    expect(corruptDetail(() => new SnappyFramedDecoder().push(bad))).toMatch(/not 'sNaPpY'/);
  });

  it('refuses reserved unskippable chunk types', () => {
    const stream = Buffer.concat([SNAPPY_STREAM_IDENTIFIER, chunk(0x02, Buffer.alloc(4))]);
    expect(corruptDetail(() => new SnappyFramedDecoder().push(stream))).toMatch(
      /reserved unskippable type 0x2/,
    );
    const last = Buffer.concat([SNAPPY_STREAM_IDENTIFIER, chunk(0x7f, Buffer.alloc(4))]);
    expect(corruptDetail(() => new SnappyFramedDecoder().push(last))).toMatch(/0x7f/);
  });

  it('refuses a checksum that does not match the uncompressed data', () => {
    const stored = Buffer.concat([
      SNAPPY_STREAM_IDENTIFIER,
      chunk(0x01, withCrc(Buffer.from('abc'), Buffer.from('abd'))),
    ]);
    expect(corruptDetail(() => new SnappyFramedDecoder().push(stored))).toMatch(
      /checksum mismatch .* byte 10/,
    );
    const packed = Buffer.from('aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa');
    const compressed = Buffer.concat([
      SNAPPY_STREAM_IDENTIFIER,
      chunk(0x00, withCrc(Buffer.from('bbbbbbbbbbbbbbbbbbbbbbbbbbbbbb'), compressSync(packed))),
    ]);
    expect(corruptDetail(() => new SnappyFramedDecoder().push(compressed))).toMatch(/checksum mismatch/);
  });

  it('refuses chunks longer than 64 KiB of data, before buffering them', () => {
    const tooLong = Buffer.alloc(4);
    tooLong.writeUInt32LE(((4 + SNAPPY_MAX_CHUNK_DATA + 1) << 8) | 0x01);
    const stream = Buffer.concat([SNAPPY_STREAM_IDENTIFIER, tooLong]);
    expect(corruptDetail(() => new SnappyFramedDecoder().push(stream))).toMatch(/has length 65541/);
    const declaresTooMuch = compressSync(Buffer.alloc(SNAPPY_MAX_CHUNK_DATA + 1));
    const block = Buffer.concat([
      SNAPPY_STREAM_IDENTIFIER,
      chunk(0x00, withCrc(Buffer.alloc(SNAPPY_MAX_CHUNK_DATA + 1), declaresTooMuch)),
    ]);
    expect(corruptDetail(() => new SnappyFramedDecoder().push(block))).toMatch(/invalid uncompressed length/);
  });

  it('refuses a compressed chunk that does not decompress', () => {
    const garbage = Buffer.from([0x05, 0xff, 0xff, 0xff]);
    const stream = Buffer.concat([SNAPPY_STREAM_IDENTIFIER, chunk(0x00, withCrc(Buffer.alloc(5), garbage))]);
    expect(corruptDetail(() => new SnappyFramedDecoder().push(stream))).toMatch(/does not decompress/);
  });

  it('refuses, at end, a stream truncated inside a chunk header, a chunk, or a skippable chunk', () => {
    const stream = encodeSnappyFramed(Buffer.alloc(1000, 'z'));
    for (const length of [2, 12, stream.length - 1]) {
      const decoder = new SnappyFramedDecoder();
      decoder.push(stream.subarray(0, length));
      expect(corruptDetail(() => decoder.end())).toMatch(/truncated inside the chunk at byte/);
    }
    const skippable = new SnappyFramedDecoder();
    skippable.push(Buffer.concat([SNAPPY_STREAM_IDENTIFIER, chunk(0x80, Buffer.alloc(10)).subarray(0, 9)]));
    expect(corruptDetail(() => skippable.end())).toMatch(/truncated inside the chunk at byte 10/);
  });

  it('stays failed after an error', () => {
    const decoder = new SnappyFramedDecoder();
    expect(() => decoder.push(Buffer.from('not snappy'))).toThrow();
    expect(() => decoder.push(SNAPPY_STREAM_IDENTIFIER)).toThrow(/stream identifier/);
    expect(() => decoder.end()).toThrow(/stream identifier/);
  });

  it('does not keep a reference to a pushed buffer', () => {
    const data = Buffer.alloc(5000, 'q');
    const stream = Buffer.from(encodeSnappyFramed(data));
    const decoder = new SnappyFramedDecoder();
    const first = stream.subarray(0, 100);
    const out = decoder.push(first);
    first.fill(0);
    out.push(...decoder.push(stream.subarray(100)));
    decoder.end();
    expect(Buffer.concat(out).equals(data)).toBe(true);
  });
});

describe('snappyBlockLength', () => {
  it('reads the leading varint of a raw block', () => {
    expect(snappyBlockLength(compressSync(Buffer.alloc(300_000)))).toEqual({
      length: 300_000,
      varintBytes: 3,
    });
    expect(snappyBlockLength(Uint8Array.of(0x00))).toEqual({ length: 0, varintBytes: 1 });
    expect(snappyBlockLength(Uint8Array.of(0xff, 0xff, 0xff, 0xff, 0x0f))).toEqual({
      length: 0xffffffff,
      varintBytes: 5,
    });
  });

  it('is undefined for a varint that is incomplete or longer than 32 bits', () => {
    expect(snappyBlockLength(Uint8Array.of())).toBeUndefined();
    expect(snappyBlockLength(Uint8Array.of(0x80, 0x80))).toBeUndefined();
    expect(snappyBlockLength(Uint8Array.of(0xff, 0xff, 0xff, 0xff, 0x10))).toBeUndefined();
  });
});

import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { connect } from 'node:net';
import { PassThrough, Readable } from 'node:stream';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { brotliCompressSync, createGzip, deflateRawSync, deflateSync, gzipSync } from 'node:zlib';

import { Compressor, compressSync } from 'snappy';
import { request } from 'undici';

import { isOriginError, OriginError } from '../../src/errors/origin-error';
import {
  bodyTooLargeError,
  declaredLengthTooLarge,
  readBody,
  readDecodedBody,
  type RequestBody,
  type RequestBodyStream,
} from '../../src/http/body-reader';
import { crc32c, maskCrc32c } from '../../src/formats/crc32c';
import { encodeSnappyFramed, SNAPPY_STREAM_IDENTIFIER } from '../../src/formats/snappy-framing';
import { startBodyServer, type BodyTestServer } from './body-test-server';

const LIMIT = 200_000;

/** Bodies made by the real encoders (tests/fixtures/http/content-encodings/generate.sh). */
const FIXTURES = join(__dirname, '..', 'fixtures', 'http', 'content-encodings');
const fixture = (name: string): Buffer => readFileSync(join(FIXTURES, name));

/** Half compressible text, half random bytes: exercises both compressed and stored snappy chunks. */
function sampleBody(size: number): Buffer {
  const text = Buffer.alloc(size >>> 1, '{"customer":{"name":"Ada","orders":[1,2,3]}}\n');
  return Buffer.concat([text, randomBytes(size - text.length)]);
}

async function post(
  server: BodyTestServer,
  body: Uint8Array | Readable,
  headers: Record<string, string> = {},
): Promise<{ status: number; bytes: Buffer; json: () => { code: string; params: Record<string, unknown> } }> {
  const response = await request(server.url, { method: 'POST', headers, body });
  const bytes = Buffer.from(await response.body.arrayBuffer());
  return {
    status: response.statusCode,
    bytes,
    json: () => JSON.parse(bytes.toString('utf8')) as { code: string; params: Record<string, unknown> },
  };
}

function chunk(type: number, data: Uint8Array): Buffer {
  const header = Buffer.alloc(4);
  header.writeUInt32LE((data.length << 8) | type);
  return Buffer.concat([header, data]);
}

function crcBytes(data: Uint8Array): Buffer {
  const crc = Buffer.alloc(4);
  crc.writeUInt32LE(maskCrc32c(crc32c(data)));
  return crc;
}

// consumeDecodedBody reads unencoded bodies from the request's events and hands encoded ones to
// readDecodedBody; both must behave alike on every case.
describe.each(['readDecodedBody', 'consumeDecodedBody'] as const)(
  '%s over a real HTTP connection',
  (reader) => {
    let server: BodyTestServer;

    beforeAll(async () => {
      server = await startBodyServer({ maxRequestBytes: LIMIT }, { echo: true, reader });
    });
    afterAll(async () => {
      await server.close();
    });
    beforeEach(() => {
      server.clearOutcomes();
    });

    it('yields an identity body as sent', async () => {
      const body = sampleBody(150_000);
      const response = await post(server, body);
      expect(response.status).toBe(200);
      expect(response.bytes.equals(body)).toBe(true);
    });

    it('treats Content-Encoding identity as no coding', async () => {
      const body = sampleBody(1000);
      const response = await post(server, body, { 'content-encoding': 'identity' });
      expect(response.bytes.equals(body)).toBe(true);
    });

    it('yields nothing for an empty body, whatever its Content-Encoding', async () => {
      for (const encoding of ['gzip', 'deflate', 'br', 'zstd', 'snappy', 'gzip, snappy']) {
        const response = await post(server, new Uint8Array(0), { 'content-encoding': encoding });
        expect(response.status).toBe(200);
        expect(response.bytes.length).toBe(0);
      }
    });

    it('decodes gzip, with the coding name trimmed and compared case-insensitively', async () => {
      const body = sampleBody(150_000);
      for (const encoding of ['gzip', ' GZIP ', 'x-gzip']) {
        const response = await post(server, gzipSync(body), { 'content-encoding': encoding });
        expect(response.status).toBe(200);
        expect(response.bytes.equals(body)).toBe(true);
      }
    });

    it('decodes multi-member gzip into the members one after the other', async () => {
      const first = Buffer.from('first member\n');
      const second = sampleBody(20_000);
      const response = await post(server, Buffer.concat([gzipSync(first), gzipSync(second)]), {
        'content-encoding': 'gzip',
      });
      expect(response.bytes.equals(Buffer.concat([first, second]))).toBe(true);
    });

    it('decodes snappy framing made by encodeSnappyFramed', async () => {
      const body = sampleBody(190_000);
      const response = await post(server, encodeSnappyFramed(body), { 'content-encoding': 'snappy' });
      expect(response.status).toBe(200);
      expect(response.bytes.equals(body)).toBe(true);
    });

    it('decodes snappy framing made by the snappy package’s own framed compressor', async () => {
      const body = sampleBody(190_000);
      const compressor = new Compressor();
      const framed = Buffer.concat([compressor.update(body), await compressor.finish()]);
      const response = await post(server, framed, { 'content-encoding': 'snappy' });
      expect(response.bytes.equals(body)).toBe(true);
    });

    it('decodes a hand-built framed stream with an uncompressed chunk, padding and a skippable chunk', async () => {
      const plain = Buffer.from('stored as is; ');
      const packed = Buffer.from('compressed compressed compressed compressed');
      const framed = Buffer.concat([
        SNAPPY_STREAM_IDENTIFIER,
        chunk(0x01, Buffer.concat([crcBytes(plain), plain])),
        chunk(0xfe, Buffer.alloc(7)),
        chunk(0x80, Buffer.from('skip me')),
        chunk(0x00, Buffer.concat([crcBytes(packed), compressSync(packed)])),
        SNAPPY_STREAM_IDENTIFIER,
      ]);
      const response = await post(server, framed, { 'content-encoding': 'snappy' });
      expect(response.status).toBe(200);
      expect(response.bytes.toString()).toBe('stored as is; compressed compressed compressed compressed');
    });

    it('decodes a raw snappy block, as Prometheus remote-write sends it', async () => {
      const body = sampleBody(190_000);
      const response = await post(server, compressSync(body), { 'content-encoding': 'snappy' });
      expect(response.status).toBe(200);
      expect(response.bytes.equals(body)).toBe(true);
    });

    it('decodes deflate in the zlib format and as raw deflate, br and zstd', async () => {
      const body = sampleBody(150_000);
      for (const [encoding, encoded] of [
        ['deflate', deflateSync(body)],
        ['DEFLATE', deflateRawSync(body)],
        ['br', brotliCompressSync(body)],
      ] as const) {
        const response = await post(server, encoded, { 'content-encoding': encoding });
        expect(response.status).toBe(200);
        expect(response.bytes.equals(body)).toBe(true);
      }
      const zstd = await post(server, fixture('records.json.zst'), { 'content-encoding': 'zstd' });
      expect(zstd.status).toBe(200);
      expect(zstd.bytes.equals(fixture('records.json'))).toBe(true);
    });

    it('undoes a list of codings from the last one back', async () => {
      const body = sampleBody(50_000);
      const response = await post(server, encodeSnappyFramed(gzipSync(body)), {
        'content-encoding': 'gzip, snappy',
      });
      expect(response.status).toBe(200);
      expect(response.bytes.equals(body)).toBe(true);
    });

    it('accepts a body of exactly maxRequestBytes, raw and decoded', async () => {
      const body = sampleBody(LIMIT);
      expect((await post(server, body)).bytes.equals(body)).toBe(true);
      expect((await post(server, gzipSync(body), { 'content-encoding': 'gzip' })).bytes.equals(body)).toBe(
        true,
      );
      expect((await post(server, compressSync(body), { 'content-encoding': 'snappy' })).bytes.length).toBe(
        LIMIT,
      );
    });

    it('answers 413 (raw) when the bytes received pass maxRequestBytes by one', async () => {
      const response = await post(server, sampleBody(LIMIT + 1));
      expect(response.status).toBe(413);
      expect(response.json()).toEqual({
        code: 'ORIGIN_HTTP_BODY_TOO_LARGE',
        params: { which: 'raw', limitMb: 0.2, limitBytes: LIMIT },
      });
    });

    it('leaves the connection usable for the 413 when the limit is passed mid-body', async () => {
      const response = await post(server, sampleBody(10 * LIMIT));
      expect(response.status).toBe(413);
      const outcome = await server.nextOutcome();
      expect(outcome.consumed).toBeLessThanOrEqual(LIMIT);
    });

    it('answers 413 (raw) for a chunked body without Content-Length', async () => {
      const parts = [sampleBody(LIMIT), Buffer.from('x')];
      const response = await post(server, Readable.from(parts));
      expect(response.status).toBe(413);
      expect(response.json().params.which).toBe('raw');
    });

    it('answers 413 (decoded) when the decoded bytes pass maxRequestBytes by one', async () => {
      const body = Buffer.alloc(LIMIT + 1, 'a');
      for (const [encoding, encoded] of [
        ['gzip', gzipSync(body)],
        ['deflate', deflateSync(body)],
        ['deflate', deflateRawSync(body)],
        ['br', brotliCompressSync(body)],
        ['snappy', encodeSnappyFramed(body)],
        ['snappy', compressSync(body)],
        ['gzip, br', brotliCompressSync(gzipSync(body))],
      ] as const) {
        expect(encoded.length).toBeLessThan(LIMIT);
        const response = await post(server, encoded, { 'content-encoding': encoding });
        expect(response.status).toBe(413);
        expect(response.json().params).toEqual({ which: 'decoded', limitMb: 0.2, limitBytes: LIMIT });
        const outcome = await server.nextOutcome();
        expect(outcome.consumed).toBeLessThanOrEqual(LIMIT);
      }
    });

    it('refuses a raw snappy block from its declared length, before reading the rest of the body', async () => {
      const body = Buffer.alloc(LIMIT + 1, 'a');
      const block = compressSync(body);
      // Only the head of the block is sent at first: the refusal must not wait for the rest.
      const rest = new PassThrough();
      const sent = post(server, rest, { 'content-encoding': 'snappy' });
      rest.write(block.subarray(0, 16));
      const outcome = await server.nextOutcome();
      expect(isOriginError(outcome.error, 'ORIGIN_HTTP_BODY_TOO_LARGE')).toBe(true);
      expect(outcome.consumed).toBe(0);
      rest.end(block.subarray(16));
      expect((await sent).status).toBe(413);
    });

    it('answers 400 for a corrupt or truncated gzip body', async () => {
      const gzipped = gzipSync(sampleBody(20_000));
      const flipped = Buffer.from(gzipped);
      flipped[flipped.length >>> 1] = flipped[flipped.length >>> 1]! ^ 0xff;
      for (const bad of [
        Buffer.from('this is not gzip'),
        flipped,
        gzipped.subarray(0, gzipped.length - 10),
      ]) {
        const response = await post(server, bad, { 'content-encoding': 'gzip' });
        expect(response.status).toBe(400);
        expect(response.json().code).toBe('ORIGIN_HTTP_BODY_CORRUPT');
        expect(response.json().params.encoding).toBe('gzip');
        const outcome = await server.nextOutcome();
        expect((outcome.error as OriginError).cause).toMatchObject({ code: expect.stringMatching(/^Z_/) });
      }
    });

    it('answers 400 for a snappy stream with a bad checksum', async () => {
      const framed = encodeSnappyFramed(Buffer.from('some data to checksum'));
      framed[framed.length - 1] = framed[framed.length - 1]! ^ 0x01;
      const response = await post(server, framed, { 'content-encoding': 'snappy' });
      expect(response.status).toBe(400);
      expect(response.json().code).toBe('ORIGIN_HTTP_BODY_CORRUPT');
      expect(response.json().params.detail).toMatch(/checksum mismatch/);
    });

    it('answers 400 for a truncated snappy stream', async () => {
      const framed = encodeSnappyFramed(sampleBody(100_000));
      const response = await post(server, framed.subarray(0, framed.length - 100), {
        'content-encoding': 'snappy',
      });
      expect(response.status).toBe(400);
      expect(response.json().params.detail).toMatch(/truncated/);
    });

    it('answers 400 for a bad stream identifier or a bad raw block', async () => {
      const badIdentifier = Buffer.from(encodeSnappyFramed(Buffer.from('data')));
      badIdentifier[9] = 0x5a;
      // A raw block carries no checksum; cutting its end leaves less data than its length varint declares.
      const raw = compressSync(sampleBody(1000));
      const truncatedRaw = raw.subarray(0, raw.length - 10);
      const badVarint = Buffer.from([0xff, 0xff, 0xff, 0xff, 0xff, 0xff]);
      for (const bad of [badIdentifier, truncatedRaw, badVarint]) {
        const response = await post(server, bad, { 'content-encoding': 'snappy' });
        expect(response.status).toBe(400);
        expect(response.json().code).toBe('ORIGIN_HTTP_BODY_CORRUPT');
      }
    });

    it('answers 415 for an unknown Content-Encoding', async () => {
      const response = await post(server, Buffer.from('data'), { 'content-encoding': 'compress' });
      expect(response.status).toBe(415);
      expect(response.json()).toEqual({
        code: 'ORIGIN_HTTP_ENCODING_UNSUPPORTED',
        params: { encoding: 'compress' },
      });
    });

    it('throws ORIGIN_HTTP_BODY_ABORTED when the client closes the connection mid-body', async () => {
      for (const encoding of ['identity', 'gzip', 'snappy']) {
        const socket = connect(Number(new URL(server.url).port), '127.0.0.1');
        await once(socket, 'connect');
        const partial =
          encoding === 'gzip' ? gzipSync(sampleBody(50_000)) : encodeSnappyFramed(sampleBody(50_000));
        socket.write(
          `POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Encoding: ${encoding}\r\nContent-Length: ${partial.length}\r\n\r\n`,
        );
        const started = once(server.http, 'request');
        socket.write(partial.subarray(0, partial.length >>> 1));
        await started;
        socket.destroy();
        const { error } = await server.nextOutcome();
        expect(isOriginError(error, 'ORIGIN_HTTP_BODY_ABORTED')).toBe(true);
      }
    });
  },
);

describe('readDecodedBody against a gzip bomb', () => {
  it('stops a 1 GB gzip bomb at a 10 MB limit with memory staying flat', async () => {
    const gzip = createGzip({ level: 9 });
    const compressed: Buffer[] = [];
    gzip.on('data', (part: Buffer) => compressed.push(part));
    const zeros = Buffer.alloc(1 << 20);
    for (let i = 0; i < 1024; i++) if (!gzip.write(zeros)) await once(gzip, 'drain');
    gzip.end();
    await once(gzip, 'end');
    const bomb = Buffer.concat(compressed);
    expect(bomb.length).toBeLessThan(2_000_000);

    const limit = 10_000_000;
    const server = await startBodyServer({ maxRequestBytes: limit, limitMb: 10 }, { echo: false });
    try {
      global.gc?.();
      const rssBefore = process.memoryUsage().rss;
      const response = await post(server, bomb, { 'content-encoding': 'gzip' });
      const outcome = await server.nextOutcome();
      expect(response.status).toBe(413);
      expect(response.json().params).toEqual({ which: 'decoded', limitMb: 10, limitBytes: limit });
      expect(outcome.consumed).toBeLessThanOrEqual(limit);
      expect(outcome.peakRss - rssBefore).toBeLessThan(100_000_000);
    } finally {
      await server.close();
    }
  });
});

describe('readDecodedBody without HTTP', () => {
  function bodyOf(chunks: AsyncIterable<Uint8Array>, headers: Record<string, string> = {}): RequestBody {
    return { headers, [Symbol.asyncIterator]: () => chunks[Symbol.asyncIterator]() };
  }

  it('throws ORIGIN_HTTP_ENCODING_UNSUPPORTED synchronously, before reading any body byte', () => {
    let touched = false;
    const body: RequestBody = {
      headers: { 'content-encoding': 'compress' },
      [Symbol.asyncIterator]: () => {
        touched = true;
        throw new Error('read');
      },
    };
    expect(() => readDecodedBody(body, { maxRequestBytes: 10 })).toThrow(OriginError);
    expect(touched).toBe(false);
  });

  it('pulls the body only as fast as the consumer reads it', async () => {
    let pulled = 0;
    async function* source(): AsyncGenerator<Uint8Array> {
      for (let i = 0; i < 1000; i++) {
        pulled++;
        yield Buffer.alloc(1024, i);
      }
    }
    const identity = readDecodedBody(bodyOf(source()), { maxRequestBytes: 10_000_000 });
    for await (const _ of identity) break;
    expect(pulled).toBe(1);

    pulled = 0;
    const gzipped = gzipSync(randomBytes(1000 * 1024));
    async function* gzipSource(): AsyncGenerator<Uint8Array> {
      for (let i = 0; i < gzipped.length; i += 1024) {
        pulled++;
        yield gzipped.subarray(i, i + 1024);
      }
    }
    const decoded = readDecodedBody(bodyOf(gzipSource(), { 'content-encoding': 'gzip' }), {
      maxRequestBytes: 10_000_000,
    });
    for await (const _ of decoded) break;
    expect(pulled).toBeLessThan(200);
  });

  it('throws the signal’s reason when the signal aborts while waiting for the body', async () => {
    const stream = new PassThrough();
    const body = Object.assign(stream, { headers: {} });
    const controller = new AbortController();
    const reason = new Error('origin destroyed');
    const iterator = readDecodedBody(body, { maxRequestBytes: 100, signal: controller.signal })[
      Symbol.asyncIterator
    ]();
    stream.write(Buffer.from('abc'));
    expect((await iterator.next()).value).toEqual(Buffer.from('abc'));
    const pending = iterator.next();
    controller.abort(reason);
    await expect(pending).rejects.toBe(reason);
    expect(stream.destroyed).toBe(false);
  });

  it('reports a failing body stream as aborted, keeping the cause', async () => {
    const failure = new Error('socket hang up');
    async function* failing(): AsyncGenerator<Uint8Array> {
      yield Buffer.from('abc');
      throw failure;
    }
    const chunks: Uint8Array[] = [];
    const read = async (): Promise<void> => {
      for await (const part of readDecodedBody(bodyOf(failing()), { maxRequestBytes: 100 }))
        chunks.push(part);
    };
    const error: unknown = await read().catch((caught: unknown) => caught);
    expect(isOriginError(error, 'ORIGIN_HTTP_BODY_ABORTED')).toBe(true);
    expect((error as OriginError).cause).toBe(failure);
    expect(chunks).toHaveLength(1);
  });

  it('reports a body that ends before it is complete as aborted', async () => {
    const cutShort: RequestBody = { ...bodyOf(Readable.from([Buffer.from('abc')])), complete: false };
    const read = async (): Promise<void> => {
      for await (const _ of readDecodedBody(cutShort, { maxRequestBytes: 100 }));
    };
    await expect(read()).rejects.toMatchObject({ code: 'ORIGIN_HTTP_BODY_ABORTED' });
  });

  it('rejects a maxRequestBytes that is not a non-negative integer', () => {
    expect(() => readDecodedBody(bodyOf(Readable.from([])), { maxRequestBytes: -1 })).toThrow(RangeError);
    expect(() => readDecodedBody(bodyOf(Readable.from([])), { maxRequestBytes: 1.5 })).toThrow(RangeError);
  });
});

describe('readBody onRawChunk', () => {
  function streamOf(chunks: Buffer[], headers: Record<string, string>): RequestBodyStream {
    return Object.assign(Readable.from(chunks), { headers }) as RequestBodyStream;
  }

  function read(
    body: RequestBodyStream,
    limit: number,
  ): Promise<{ raw: Buffer; decoded: Buffer; error: unknown }> {
    const raw: Buffer[] = [];
    const decoded: Buffer[] = [];
    return new Promise((resolve) => {
      readBody(
        body,
        { maxRequestBytes: limit, onRawChunk: (chunk) => raw.push(Buffer.from(chunk)) },
        (chunk) => decoded.push(Buffer.from(chunk)),
        (error) => resolve({ raw: Buffer.concat(raw), decoded: Buffer.concat(decoded), error }),
      );
    });
  }

  const text = Buffer.from('{"a":1}\n'.repeat(1000));

  it.each([
    ['identity', {}, text],
    ['gzip', { 'content-encoding': 'gzip' }, gzipSync(text)],
    ['snappy', { 'content-encoding': 'snappy' }, encodeSnappyFramed(text)],
  ])('sees a %s body as received, chunk by chunk, before it is decoded', async (_name, headers, sent) => {
    const chunks = [sent.subarray(0, 7), sent.subarray(7, 100), sent.subarray(100)];
    const { raw, decoded, error } = await read(streamOf(chunks, headers), 1_000_000);
    expect(error).toBeUndefined();
    expect(raw.equals(sent)).toBe(true);
    expect(decoded.equals(text)).toBe(true);
  });

  it('sees no chunk past the raw limit', async () => {
    const { raw, error } = await read(streamOf([text.subarray(0, 100), text.subarray(100)], {}), 150);
    expect(isOriginError(error, 'ORIGIN_HTTP_BODY_TOO_LARGE')).toBe(true);
    expect(raw.length).toBe(100);
  });
});

// Decisions 0090 and 0136: from a body's second chunk on, readBody hands its consumer at most 16 KiB at a time and
// pauses the stream once a turn's work took 1 ms, holding what is left of a chunk for the next turn. The consumer
// here spins past the budget on purpose, so that every slice ends a turn; what is checked is what it receives.
describe('readBody of a large body, in turns', () => {
  const spin = (ms: number): void => {
    const until = performance.now() + ms;
    while (performance.now() < until);
  };

  function readSlowly(
    chunks: Buffer[],
    headers: Record<string, string>,
    options: { failAt?: number } = {},
  ): Promise<{ received: Buffer[]; bytes: number; error: unknown }> {
    const body = Object.assign(Readable.from(chunks), { headers }) as RequestBodyStream;
    const received: Buffer[] = [];
    let seen = 0;
    return new Promise((resolve) => {
      readBody(
        body,
        { maxRequestBytes: 10_000_000 },
        (chunk) => {
          seen += chunk.length;
          if (options.failAt !== undefined && seen > options.failAt) throw new Error('consumer failed');
          received.push(Buffer.from(chunk));
          spin(1.2);
        },
        (error, bytes) => resolve({ received, bytes, error }),
      );
    });
  }

  it.each([
    ['identity', {}, (b: Buffer) => b],
    ['gzip', { 'content-encoding': 'gzip' }, (b: Buffer) => gzipSync(b)],
  ])(
    'gives a %s body whole and in order, in slices of at most 16 KiB after the first chunk',
    async (_, headers, encode) => {
      const text = randomBytes(300_000);
      const sent = encode(text);
      const cut = [1000, 65_536 + 1000, 65_536 * 2 + 1000, 65_536 * 3 + 1000].filter(
        (at) => at < sent.length,
      );
      const chunks = [0, ...cut].map((from, i) => sent.subarray(from, cut[i] ?? sent.length));
      const { received, bytes, error } = await readSlowly(chunks, headers);
      expect(error).toBeUndefined();
      expect(bytes).toBe(text.length);
      expect(Buffer.concat(received).equals(text)).toBe(true);
      expect(Math.max(...received.slice(1).map((chunk) => chunk.length))).toBeLessThanOrEqual(16 * 1024);
    },
  );

  it('ends the read with what the consumer throws in a later turn, and takes nothing after it', async () => {
    const text = randomBytes(200_000);
    const chunks = [text.subarray(0, 1000), text.subarray(1000, 100_000), text.subarray(100_000)];
    const { received, error } = await readSlowly(chunks, {}, { failAt: 60_000 });
    expect((error as Error).message).toBe('consumer failed');
    const taken = Buffer.concat(received);
    expect(taken.length).toBeLessThanOrEqual(60_000);
    expect(taken.equals(text.subarray(0, taken.length))).toBe(true);
  });
});

describe('declaredLengthTooLarge and bodyTooLargeError', () => {
  it('compares Content-Length with the limit, exactly the limit being allowed', () => {
    expect(declaredLengthTooLarge({ 'content-length': '100' }, 100)).toBe(false);
    expect(declaredLengthTooLarge({ 'content-length': '101' }, 100)).toBe(true);
    expect(declaredLengthTooLarge({}, 100)).toBe(false);
  });

  it('builds the 413 error with the limit in MB (10^6 bytes) and bytes', () => {
    const error = bodyTooLargeError('raw', { maxRequestBytes: 100_000_000 });
    expect(error.httpStatus).toBe(413);
    expect(error.params).toEqual({ which: 'raw', limitMb: 100, limitBytes: 100_000_000 });
    expect(error.message).toBe('The raw request body exceeds maxRequestSizeMb 100 (100000000 bytes).');
  });
});

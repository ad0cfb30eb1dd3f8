import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  brotliCompressSync,
  crc32,
  createDeflate,
  createDeflateRaw,
  createGzip,
  type Deflate,
  type DeflateRaw,
  type Gzip,
} from 'node:zlib';
import { SendResponse, type Pipeline } from 'rest-service-origin';
import { pack } from 'tar-stream';
import { encodeSnappyFramed, SNAPPY_STREAM_IDENTIFIER } from '../../src/formats/snappy-framing';
import { collectGarbage } from './collect-garbage';
import { send, startOrigin, type TestOrigin } from './origin-helpers';
import { answerOf, drainedOrClosed, rawConnection, streamRequest } from './raw-client';

const MB = 1_000_000;
/** Growth of resident memory a bomb may cause: far below what it would decode to (300 MB and more). */
const FLAT_RSS_BYTES = 250 * MB;

function rss(): number {
  collectGarbage();
  return process.memoryUsage().rss;
}

/**
 * The highest resident memory sampled (every 5 ms, and after a collection before) while `run` runs, less what it
 * was before: the peak a bomb caused, not what was left after it.
 */
async function peakRssGrowth<T>(run: () => Promise<T>): Promise<{ result: T; growth: number }> {
  const before = rss();
  let peak = before;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 5);
  try {
    const result = await run();
    return { result, growth: Math.max(peak, process.memoryUsage().rss) - before };
  } finally {
    clearInterval(sampler);
  }
}

/** Peak growth of resident memory a Content-Encoding bomb may cause under a 10 MB limit (it decodes to 300+ MB). */
const ENCODING_BOMB_RSS_BYTES = 100 * MB;

/** Bombs made by the real encoders (tests/fixtures/http/content-encodings/generate.sh): 1 GB of zeros each. */
const ENCODING_FIXTURES = join(__dirname, '..', 'fixtures', 'http', 'content-encodings');

/** `source` compressed with `stream` (gzip, zlib or raw deflate), a megabyte at a time. */
async function compressed(
  stream: Gzip | Deflate | DeflateRaw,
  source: AsyncIterable<Buffer>,
): Promise<Buffer> {
  const out: Buffer[] = [];
  stream.on('data', (chunk: Buffer) => out.push(chunk));
  const done = new Promise((resolve) => stream.on('end', resolve));
  for await (const chunk of source) {
    if (!stream.write(chunk)) await new Promise((resolve) => stream.once('drain', resolve));
  }
  stream.end();
  await done;
  return Buffer.concat(out);
}

/**
 * A zip archive of one deflated file of `bytes` zero bytes, written by hand: fflate's JavaScript deflate takes
 * seconds for what zlib does in a fraction of one.
 */
async function zipOfZeros(name: string, bytes: number): Promise<Buffer> {
  const data = await compressed(createDeflateRaw({ level: 1 }), repeatZeros(bytes));
  let crc = 0;
  for await (const zeros of repeatZeros(bytes)) crc = crc32(zeros, crc);
  const fileName = Buffer.from(name);
  const common = (header: Buffer, at: number): void => {
    header.writeUInt16LE(20, at); // version needed
    header.writeUInt16LE(0, at + 2); // flags
    header.writeUInt16LE(8, at + 4); // deflate
    header.writeUInt32LE(0x00210000, at + 6); // 1980-01-01 00:00
    header.writeUInt32LE(crc, at + 10);
    header.writeUInt32LE(data.length, at + 14);
    header.writeUInt32LE(bytes, at + 18);
    header.writeUInt16LE(fileName.length, at + 22);
  };
  const local = Buffer.alloc(30);
  local.writeUInt32LE(0x04034b50, 0);
  common(local, 4);
  const central = Buffer.alloc(46);
  central.writeUInt32LE(0x02014b50, 0);
  central.writeUInt16LE(20, 4); // version made by
  common(central, 6);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(1, 8);
  end.writeUInt16LE(1, 10);
  end.writeUInt32LE(central.length + fileName.length, 12);
  end.writeUInt32LE(local.length + fileName.length + data.length, 16);
  return Buffer.concat([local, fileName, data, central, fileName, end]);
}

/** `data` as one Zstandard frame of raw (stored) blocks: zstd as a plain wrapper, as some clients stack it. */
function zstdRawFrame(data: Buffer): Buffer {
  const parts: Buffer[] = [Buffer.from([0x28, 0xb5, 0x2f, 0xfd, 0x00, 0x00])]; // magic; no size, no checksum; 1 KiB window
  for (let at = 0; at < data.length || at === 0; at += 1024) {
    const block = data.subarray(at, at + 1024);
    const last = at + 1024 >= data.length ? 1 : 0;
    const header = Buffer.alloc(3);
    header.writeUIntLE((block.length << 3) | last, 0, 3); // block type 0: raw
    parts.push(header, block);
  }
  return Buffer.concat(parts);
}

/** One Zstandard frame (8 MiB window) of `blocks` RLE blocks, each 128 KiB of zeros from 4 bytes. */
function zstdRleFrame(blocks: number): Buffer {
  const parts: Buffer[] = [Buffer.from([0x28, 0xb5, 0x2f, 0xfd, 0x00, (23 - 10) << 3])];
  for (let i = 0; i < blocks; i++) {
    const header = Buffer.alloc(4);
    header.writeUIntLE(((128 * 1024) << 3) | (1 << 1) | (i === blocks - 1 ? 1 : 0), 0, 3); // type 1: RLE
    parts.push(header);
  }
  return Buffer.concat(parts);
}

async function* repeatZeros(bytes: number, zeros = Buffer.alloc(MB)): AsyncGenerator<Buffer> {
  for (let left = bytes; left > 0; left -= zeros.length)
    yield zeros.subarray(0, Math.min(left, zeros.length));
}

/** A tar stream holding one file of `bytes` zero bytes. */
async function* tarOfZeros(bytes: number): AsyncGenerator<Buffer> {
  const tar = pack();
  const entry = tar.entry({ name: 'big.json', size: bytes });
  void (async () => {
    for await (const zeros of repeatZeros(bytes)) {
      if (!entry.write(zeros)) await new Promise<void>((resolve) => entry.once('drain', () => resolve()));
    }
    entry.end(() => tar.finalize());
  })();
  for await (const chunk of tar) yield chunk as Buffer;
}

const sendErrors: Pipeline = (batch) => {
  new SendResponse().write(batch);
  SendResponse.forErrors({ statusCode: 400 }).write(batch);
};

/** Issue 12, scope 3: bombs and oversize inputs get the right 4xx at once, and memory stays flat. */
describe('bombs and oversize requests', () => {
  let running: TestOrigin | undefined;
  afterEach(async () => {
    await running?.stop();
    running = undefined;
  });

  it('answers 413 to a gzip Content-Encoding bomb (300 MB of zeros)', async () => {
    running = await startOrigin();
    const bomb = await compressed(createGzip({ level: 1 }), repeatZeros(300 * MB));
    const before = rss();
    const answer = await send(running.url, { body: bomb, headers: { 'Content-Encoding': 'gzip' } });
    expect(answer.status).toBe(413);
    expect(answer.text).toContain('ORIGIN_HTTP_BODY_TOO_LARGE - The decoded request body');
    expect(rss() - before).toBeLessThan(FLAT_RSS_BYTES);
  });

  it('answers 413 to snappy bombs: a framed stream of 200 MB of zeros, and a raw block declaring 4 GB', async () => {
    running = await startOrigin();
    const frame = encodeSnappyFramed(Buffer.alloc(65_536)).subarray(SNAPPY_STREAM_IDENTIFIER.length);
    const framed = Buffer.concat([SNAPPY_STREAM_IDENTIFIER, ...Array<Buffer>(3_100).fill(frame)]);
    const before = rss();
    const answer = await send(running.url, { body: framed, headers: { 'Content-Encoding': 'snappy' } });
    expect(answer.status).toBe(413);
    // A raw block whose length varint says 2^32 - 1 bytes.
    const raw = Buffer.from([0xff, 0xff, 0xff, 0xff, 0x0f, 0x00, 0x00]);
    const rawAnswer = await send(running.url, { body: raw, headers: { 'Content-Encoding': 'snappy' } });
    expect(rawAnswer.status).toBe(413);
    expect(rss() - before).toBeLessThan(FLAT_RSS_BYTES);
  });

  /** Issue 18 item 2: a bomb per Content-Encoding, each stopped at the decoded-size limit with memory flat. */
  it.each<[string, string, () => Promise<Buffer>]>([
    ['x-gzip', '300 MB of zeros, zlib', () => compressed(createGzip({ level: 1 }), repeatZeros(300 * MB))],
    [
      'deflate',
      '300 MB of zeros in the zlib format',
      () => compressed(createDeflate(), repeatZeros(300 * MB)),
    ],
    [
      'deflate',
      '300 MB of zeros as raw deflate',
      () => compressed(createDeflateRaw(), repeatZeros(300 * MB)),
    ],
    ['br', '1 GB of zeros, brotli -q 5', async () => readFileSync(join(ENCODING_FIXTURES, 'bomb.br'))],
    ['zstd', '1 GB of zeros, zstd -19', async () => readFileSync(join(ENCODING_FIXTURES, 'bomb.zst'))],
    ['zstd', '1 GB of zeros in RLE blocks (4 bytes each for 128 KiB)', async () => zstdRleFrame(8192)],
    [
      'gzip, br',
      'a gzip bomb of 300 MB inside brotli',
      async () => brotliCompressSync(await compressed(createGzip({ level: 1 }), repeatZeros(300 * MB))),
    ],
    [
      'br, zstd',
      'the brotli bomb of 1 GB inside zstd (hand-made frame of raw blocks)',
      async () => zstdRawFrame(readFileSync(join(ENCODING_FIXTURES, 'bomb.br'))),
    ],
  ])('answers 413 to a Content-Encoding %s bomb (%s) with memory flat', async (encoding, _what, make) => {
    running = await startOrigin({ http: { maxRequestSizeMb: 10 } });
    const bomb = await make();
    expect(bomb.length).toBeLessThan(2 * MB);
    const { result: answer, growth } = await peakRssGrowth(() =>
      send(running!.url, { body: bomb, headers: { 'Content-Encoding': encoding } }),
    );
    expect(answer.status).toBe(413);
    expect(answer.text).toContain('ORIGIN_HTTP_BODY_TOO_LARGE - The decoded request body');
    // Measured 0 to 25 MB: the decoders stop at the 10 MB limit, holding a window and a chunk or two each.
    expect(growth).toBeLessThan(ENCODING_BOMB_RSS_BYTES);
    // The origin goes on serving.
    expect((await send(running.url, { body: '{}' })).status).toBe(200);
  });

  it('answers 413 to a zip bomb and to a tar.gz bomb (300 MB of zeros each)', async () => {
    const zip = await zipOfZeros('big.json', 300 * MB);
    const tarGz = await compressed(createGzip({ level: 1 }), tarOfZeros(300 * MB));
    const before = rss();
    running = await startOrigin({ dataFormat: { format: 'json', compression: { format: 'archive' } } });
    const zipAnswer = await send(running.url, { body: zip });
    expect(zipAnswer.status).toBe(413);
    expect(zipAnswer.text).toContain('ORIGIN_ARCHIVE_TOO_LARGE');
    await running.stop();
    running = await startOrigin({
      dataFormat: { format: 'json', compression: { format: 'compressedArchive' } },
    });
    const tarAnswer = await send(running.url, { body: tarGz });
    expect(tarAnswer.status).toBe(413);
    expect(tarAnswer.text).toContain('ORIGIN_ARCHIVE_TOO_LARGE');
    expect(rss() - before).toBeLessThan(FLAT_RSS_BYTES);
  });

  it('answers 413 to a 500 MB line without a newline, declared or chunked, after at most 100 MB read', async () => {
    running = await startOrigin({ dataFormat: { format: 'delimited' } });
    const declaring = await rawConnection(running.url);
    const declared = answerOf(declaring);
    declaring.write(`POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: ${500 * MB}\r\n\r\nxxxx`);
    // Refused from Content-Length before the body is read.
    expect((await declared)?.status).toBe(413);
    declaring.destroy();
    const before = rss();
    const socket = await rawConnection(running.url);
    const answer = answerOf(socket);
    socket.write('POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\n');
    const piece = Buffer.concat([
      Buffer.from(`${MB.toString(16)}\r\n`),
      Buffer.alloc(MB, 'x'),
      Buffer.from('\r\n'),
    ]);
    let sent = 0;
    let answered = false;
    void answer.then(() => (answered = true));
    while (!answered && !socket.destroyed && sent < 500) {
      sent++;
      if (!socket.write(piece)) await drainedOrClosed(socket);
    }
    expect((await answer)?.status).toBe(413);
    expect(sent).toBeLessThan(500);
    socket.destroy();
    expect(rss() - before).toBeLessThan(FLAT_RSS_BYTES);
  });

  it('answers 400 to a 150 MB line when the size limit allows it, holding no more than the record limit', async () => {
    running = await startOrigin(
      { http: { maxRequestSizeMb: 200 }, dataFormat: { format: 'delimited' } },
      sendErrors,
    );
    const before = rss();
    const { answer } = await streamRequest(
      running.url,
      { 'Content-Type': 'text/csv' },
      150 * MB,
      Buffer.from('x'),
    );
    expect(answer?.status).toBe(400);
    expect(answer?.body).toContain('ORIGIN_DELIMITED_RECORD_TOO_LONG');
    expect(rss() - before).toBeLessThan(FLAT_RSS_BYTES);
  });

  it('answers 431 to 10,000 headers and to a 1 MB header line, and 414 to a 1 MB URL', async () => {
    running = await startOrigin();
    const headers = Array.from({ length: 10_000 }, (_, i) => `X-H${i}: v\r\n`).join('');
    const answers = [];
    for (const head of [
      `GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n${headers}\r\n`,
      `GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: ${'a'.repeat(MB)}\r\n\r\n`,
      `GET /${'a'.repeat(MB)} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`,
    ]) {
      const socket = await rawConnection(running.url);
      const answer = answerOf(socket);
      socket.write(head);
      answers.push((await answer)?.status);
      socket.destroy();
    }
    expect(answers).toEqual([431, 431, 414]);
    expect((await send(running.url, { body: '{}' })).status).toBe(200);
  });
});

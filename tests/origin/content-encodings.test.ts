import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ACCEPTED_CONTENT_ENCODINGS } from '../../src/http/content-encoding';
import { send, startOrigin, type TestOrigin } from './origin-helpers';

/** Bodies made by the real encoders (tests/fixtures/http/content-encodings/generate.sh). */
const FIXTURES = join(__dirname, '..', 'fixtures', 'http', 'content-encodings');
const fixture = (name: string): Buffer => readFileSync(join(FIXTURES, name));
/** A snappy framed file made by python-snappy (tests/fixtures/formats/compression/generate-tools.sh). */
const SNAPPY_TOOLS = join(__dirname, '..', 'fixtures', 'formats', 'compression', 'tools');

const linesOf = (text: string): unknown[] =>
  text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as unknown);

/** The records each fixture holds: what each tool's own decoding gave back (the generator checks it). */
const RECORDS = linesOf(fixture('records.json').toString('utf8'));
const CUSTOMERS = linesOf(readFileSync(join(SNAPPY_TOOLS, 'customers.json'), 'utf8'));

function recordsOf(answer: { json: unknown }): unknown[] {
  return (answer.json as { data: unknown[] }).data;
}

/** Issue 18 item 2: every common Content-Encoding, decoded from bodies made by the real encoders. */
describe('origin with each Content-Encoding', () => {
  let running: TestOrigin;
  beforeAll(async () => {
    running = await startOrigin({
      http: { maxRequestSizeMb: 1 },
      dataFormat: { format: 'json', json: { jsonContent: 'multipleObjects' } },
    });
  });
  afterAll(async () => {
    await running.stop();
  });

  it.each([
    ['gzip', 'records.json.gz', 'gzip -9'],
    ['x-gzip', 'records.json.gz', 'gzip -9'],
    ['deflate', 'records.json.zlib', 'zlib, the zlib format'],
    ['deflate', 'records.json.deflate', 'zlib, raw deflate'],
    ['br', 'records.json.br', 'brotli -q 11'],
    ['zstd', 'records.json.zst', 'zstd -19'],
    ['gzip, br', 'records.json.gz.br', 'gzip, then brotli'],
    ['zstd, deflate, gzip', 'records.json.zst.deflate.gz', 'zstd, then zlib, then gzip'],
    [' ZSTD ,identity, Deflate,GZIP', 'records.json.zst.deflate.gz', 'the same, spelt loosely'],
  ])('decodes Content-Encoding %s (%s, made by %s)', async (encoding, file) => {
    const answer = await send(running.url, {
      body: fixture(file),
      headers: { 'Content-Encoding': encoding },
    });
    expect(answer.status).toBe(200);
    expect(recordsOf(answer)).toEqual(RECORDS);
  });

  it('decodes Content-Encoding snappy (python-snappy framing)', async () => {
    const body = readFileSync(join(SNAPPY_TOOLS, 'customers.json.sz'));
    const answer = await send(running.url, { body, headers: { 'Content-Encoding': 'snappy' } });
    expect(answer.status).toBe(200);
    expect(recordsOf(answer)).toEqual(CUSTOMERS);
  });

  it.each([
    ['gzip', 'records.json.gz'],
    ['deflate', 'records.json.zlib'],
    ['deflate', 'records.json.deflate'],
    ['br', 'records.json.br'],
    ['zstd', 'records.json.zst'],
    ['gzip, br', 'records.json.gz.br'],
  ])(
    'answers 400 ORIGIN_HTTP_BODY_CORRUPT to a cut, a padded or a mislabelled %s body',
    async (encoding, file) => {
      const good = fixture(file);
      const plain = fixture('records.json');
      for (const bad of [
        good.subarray(0, good.length >>> 1),
        good.subarray(0, good.length - 3),
        Buffer.concat([good, Buffer.from('trailing bytes')]),
        plain.subarray(0, 2000),
      ]) {
        const answer = await send(running.url, { body: bad, headers: { 'Content-Encoding': encoding } });
        expect({ status: answer.status, text: answer.text }).toEqual({
          status: 400,
          text: expect.stringContaining('ORIGIN_HTTP_BODY_CORRUPT') as unknown,
        });
      }
    },
  );

  it('answers 400 to a zstd frame that needs a window over the 8 MiB RFC 9659 allows, before decoding', async () => {
    // Magic, a descriptor without single-segment or content size, and a 128 MiB window (log 27).
    const header = Buffer.from([0x28, 0xb5, 0x2f, 0xfd, 0x00, (27 - 10) << 3]);
    const answer = await send(running.url, {
      body: Buffer.concat([header, Buffer.alloc(100)]),
      headers: { 'Content-Encoding': 'zstd' },
    });
    expect(answer.status).toBe(400);
    expect(answer.text).toContain('ORIGIN_HTTP_BODY_CORRUPT');
  });

  it('answers 415 with Accept-Encoding to an unknown coding and to more than three stacked codings', async () => {
    for (const encoding of ['compress', 'gzip, lz4', 'gzip, br, zstd, deflate']) {
      const answer = await send(running.url, {
        body: fixture('records.json.gz'),
        headers: { 'Content-Encoding': encoding },
      });
      expect(answer.status).toBe(415);
      expect(answer.text).toContain('ORIGIN_HTTP_ENCODING_UNSUPPORTED');
      expect(answer.headers['accept-encoding']).toBe(ACCEPTED_CONTENT_ENCODINGS);
    }
    expect(ACCEPTED_CONTENT_ENCODINGS).toBe('gzip, x-gzip, deflate, br, zstd, snappy');
  });
});

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SendResponse, type Pipeline } from 'rest-service-origin';
import { injectOrigin, type ServedOrigin } from './origin-helpers';

const FIXTURES = join(__dirname, '..', 'fixtures', 'formats', 'avro');

const answerRecordsAndErrors: Pipeline = (batch) => {
  new SendResponse().write(batch);
  SendResponse.forErrors({ statusCode: 400 }).write(batch);
};

/**
 * The JSON a response says for a record in the fixtures' tagged form (tests/fixtures/formats/json/README.md): a
 * LIST_MAP is an object, a long its digits, bytes base64, dates epoch milliseconds, a DECIMAL its number. Compared
 * after `JSON.parse` on both sides, so a long past 2^53 rounds the same way on both.
 */
function responseJsonOf(tagged: unknown): unknown {
  if (Array.isArray(tagged)) return tagged.map(responseJsonOf);
  if (tagged === null || typeof tagged !== 'object') return tagged;
  const node = tagged as Record<string, unknown>;
  if ('$listMap' in node) {
    return Object.fromEntries(
      (node['$listMap'] as [string, unknown][]).map(([k, v]) => [k, responseJsonOf(v)]),
    );
  }
  if ('$bigint' in node) return JSON.parse(node['$bigint'] as string) as number;
  if ('$bytes' in node) return node['$bytes'];
  if ('$date' in node) return Date.parse(node['$date'] as string);
  if ('$typed' in node) {
    const { type, value } = node['$typed'] as { type: string; value: unknown };
    return type === 'DECIMAL' ? (JSON.parse(value as string) as number) : responseJsonOf(value);
  }
  return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, responseJsonOf(v)]));
}

function expectedData(name: string): unknown {
  const expected = JSON.parse(readFileSync(join(FIXTURES, `${name}.expected.json`), 'utf8')) as {
    records: unknown[];
  };
  return responseJsonOf(expected.records);
}

/** Issue 15 item 3: containers written by python-avro with every codec of the Avro specification. */
describe('origin with Avro containers of every codec', () => {
  let running: ServedOrigin | undefined;
  beforeAll(async () => {
    running = injectOrigin({ dataFormat: { format: 'avro' } }, answerRecordsAndErrors);
  });
  afterAll(async () => {
    await running?.stop();
  });

  it.each(['null', 'deflate', 'snappy', 'bzip2', 'xz', 'zstandard'])(
    'answers the records python-avro reads from its %s-codec file',
    async (codec) => {
      const body = readFileSync(join(FIXTURES, `${codec}-codec.input.bin`));
      const answer = await running!.send({ body });
      expect(answer.status).toBe(200);
      const data = (answer.json as { data: unknown[] }).data;
      expect(data).toHaveLength(6);
      // The null, deflate and snappy expectations were checked by hand; the others are python-avro's reading.
      expect(data).toEqual(expectedData(`${codec}-codec`));
    },
  );

  it.each(['bzip2', 'xz', 'zstandard'])(
    'refuses a %s block that decompresses past maxBlockSizeBytes, with the origin still serving',
    async (codec) => {
      const body = readFileSync(join(FIXTURES, `bomb-${codec}.avro`));
      expect(body.length).toBeLessThan(10_000);
      const answer = await running!.send({ body });
      expect(answer.status).toBe(400);
      expect(answer.text).toContain('ORIGIN_AVRO_BLOCK_TOO_LARGE');
      const after = await running!.send({ body: readFileSync(join(FIXTURES, 'null-codec.input.bin')) });
      expect(after.status).toBe(200);
    },
  );

  it.each(['bzip2', 'xz', 'zstandard'])(
    'keeps the earlier blocks and reports the corrupt one when %s data is damaged',
    async (codec) => {
      const body = Buffer.from(readFileSync(join(FIXTURES, `${codec}-codec.input.bin`)));
      // The last block's compressed data ends just before the final 16-byte sync marker.
      for (let i = 17; i < 25; i++) body[body.length - i] = (body[body.length - i] as number) ^ 0x5a;
      const answer = await running!.send({ body });
      expect(answer.status).toBe(207);
      const data = (answer.json as { data: unknown[] }).data;
      expect(data).toEqual((expectedData(`${codec}-codec`) as unknown[]).slice(0, 4));
      // bzip2 and xz find the damage by their checksums; python-avro writes zstandard frames without one, so
      // there the damaged data decodes to bytes that are not the records' (either way the block is malformed).
      expect(answer.text).toContain('ORIGIN_AVRO_MALFORMED');
    },
  );
});

/** The request's budget (maxRequestSizeMb) holds for what the blocks decompress to, all together. */
describe('origin with Avro containers over the request budget', () => {
  let running: ServedOrigin | undefined;
  beforeAll(async () => {
    running = injectOrigin(
      { http: { maxRequestSizeMb: 1 }, dataFormat: { format: 'avro' } },
      answerRecordsAndErrors,
    );
  });
  afterAll(async () => {
    await running?.stop();
  });

  it('answers 413 to ten 500 kB zstandard blocks, each under maxBlockSizeBytes', async () => {
    const body = readFileSync(join(FIXTURES, 'blocks-zstandard.avro'));
    expect(body.length).toBeLessThan(1_000);
    const answer = await running!.send({ body });
    expect(answer.status).toBe(413);
    expect((answer.json as { errorMessage: string }).errorMessage).toMatch(/^ORIGIN_AVRO_TOO_LARGE - /);
  });

  it.each(['bzip2', 'xz', 'zstandard'])(
    'answers 413 to a %s bomb block once past the budget, below maxBlockSizeBytes',
    async (codec) => {
      const answer = await running!.send({ body: readFileSync(join(FIXTURES, `bomb-${codec}.avro`)) });
      expect(answer.status).toBe(413);
      expect((answer.json as { errorMessage: string }).errorMessage).toMatch(/^ORIGIN_AVRO_TOO_LARGE - /);
    },
  );

  it('still answers a container within the budget', async () => {
    const answer = await running!.send({ body: readFileSync(join(FIXTURES, 'xz-codec.input.bin')) });
    expect(answer.status).toBe(200);
  });
});

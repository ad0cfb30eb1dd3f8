import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { gzipSync, zipSync } from 'fflate';
import { pack } from 'tar-stream';
import { createCompressionParser } from '../../../src/formats/compression/compression-parser';
import type { DataFormat, ParseResult } from '../../../src/formats/data-format';
import { delimitedFormat } from '../../../src/formats/delimited/delimited-format';
import { resolveFormatConfig } from '../../../src/formats/format-config';
import { jsonFormat } from '../../../src/formats/json/json-format';
import { concatResults, parseStream, parseWhole } from '../../../src/formats/parse-helpers';
import type { CompressionConfig } from '../../../src/formats/compression/compression-options';
import { toTagged } from '../fixture-cases';

const FIXTURES = join(__dirname, '..', '..', 'fixtures', 'formats', 'compression');
const fixture = (name: string): Buffer => readFileSync(join(FIXTURES, name));

function parse(
  format: DataFormat,
  options: unknown,
  compression: CompressionConfig,
  chunks: readonly Uint8Array[],
  maxDecodedBytes = 100_000_000,
): ParseResult {
  const parser = createCompressionParser(
    format,
    resolveFormatConfig(format, options),
    compression,
    { originState: new Map() },
    { maxDecodedBytes },
  );
  return concatResults([...chunks.map((c) => parser.push(c)), parser.end()]);
}

function split(bytes: Buffer, size: number): Buffer[] {
  const out: Buffer[] = [];
  for (let at = 0; at < bytes.length; at += size) out.push(bytes.subarray(at, at + size));
  return out;
}

const csvRecords = (result: ParseResult): unknown[] =>
  result.records.map((r) => ({ value: toTagged(r.value), ...r.attributes }));

const row = (id: string, item: string): unknown => ({
  $listMap: [
    ['id', id],
    ['item', item],
  ],
});
const ORDERS = [
  { value: row('1', 'apple'), filePathInsideArchive: 'orders', fileNameInsideArchive: '2024-01.csv' },
  { value: row('2', 'pear'), filePathInsideArchive: 'orders', fileNameInsideArchive: '2024-01.csv' },
  { value: row('3', 'plum'), filePathInsideArchive: 'orders', fileNameInsideArchive: '2024-02.csv' },
];
const CSV = { headerLine: 'withHeader' };

describe('compression parser over committed archives', () => {
  it.each(['mixed.zip', 'mixed-stored.zip'])('reads the CSV entries %s selects by pattern', (name) => {
    const result = parse(delimitedFormat, CSV, { format: 'archive', filePattern: '*.csv' }, [fixture(name)]);
    expect(result.failures).toEqual([]);
    expect(csvRecords(result)).toEqual(ORDERS);
  });

  it('reads the same CSV entries from a tar and a tar.gz', () => {
    const tar = parse(delimitedFormat, CSV, { format: 'archive', filePattern: '*.csv' }, [
      fixture('mixed.tar'),
    ]);
    const tgz = parse(delimitedFormat, CSV, { format: 'compressedArchive', filePattern: 'orders/*.csv' }, [
      fixture('mixed.tar.gz'),
    ]);
    expect(tar).toEqual({ records: expect.any(Array) as unknown, failures: [] });
    expect(csvRecords(tar)).toEqual(ORDERS);
    expect(csvRecords(tgz)).toEqual(ORDERS);
  });

  it('reads the JSON entries of a tar.gz, including one named by a PAX header', () => {
    const result = parse(jsonFormat, {}, { format: 'compressedArchive', filePattern: '*.json' }, [
      fixture('mixed.tar.gz'),
    ]);
    expect(result.failures).toEqual([]);
    expect(result.records.map((r) => [r.value, r.attributes?.['fileNameInsideArchive']])).toEqual([
      [{ id: 1, name: 'Ada' }, 'customers.json'],
      [{ id: 2, name: 'Grace' }, 'customers.json'],
      [{ source: 'fixture' }, 'info.json'],
      [{ deep: true }, `${'y'.repeat(150)}.json`],
    ]);
    expect(result.records[3]?.attributes?.['filePathInsideArchive']).toBe(`deep/${'x'.repeat(120)}`);
    expect(result.records[0]?.attributes?.['filePathInsideArchive']).toBe('');
  });

  it('a pattern with ? and a directory selects only that entry', () => {
    const result = parse(
      delimitedFormat,
      CSV,
      { format: 'compressedArchive', filePattern: 'orders/2024-0?.csv' },
      [fixture('mixed.zip')],
    );
    expect(result.records).toHaveLength(3);
    const none = parse(delimitedFormat, CSV, { format: 'compressedArchive', filePattern: '2024-0?.csv' }, [
      fixture('mixed.zip'),
    ]);
    expect(none.records).toHaveLength(3);
    const other = parse(jsonFormat, {}, { format: 'archive', filePattern: 'meta/*' }, [fixture('mixed.zip')]);
    expect(other.records.map((r) => r.value)).toEqual([{ source: 'fixture' }]);
  });

  it('gunzips a compressed file and names no entry', () => {
    const result = parse(delimitedFormat, CSV, { format: 'compressedFile', filePattern: '*' }, [
      fixture('orders.csv.gz'),
    ]);
    expect(result.failures).toEqual([]);
    expect(csvRecords(result)).toEqual([{ value: row('1', 'apple') }, { value: row('2', 'pear') }]);
  });

  it.each(['mixed.zip', 'mixed.tar', 'mixed.tar.gz'])(
    'gives the same for %s however it is chunked',
    (name) => {
      const mode = name.endsWith('.tar') ? 'archive' : 'compressedArchive';
      const compression = { format: mode, filePattern: '*' } as const;
      const input = fixture(name);
      const whole = parse(jsonFormat, {}, compression, [input]);
      fc.assert(
        fc.property(fc.integer({ min: 1, max: 700 }), (size) => {
          expect(parse(jsonFormat, {}, compression, split(input, size))).toEqual(whole);
        }),
        { numRuns: 40 },
      );
    },
  );

  it('reads every member of a multi-member gzip file', () => {
    const body = Buffer.concat([gzipSync(Buffer.from('{"a":1}\n')), gzipSync(Buffer.from('{"a":2}'))]);
    const packing = { compression: { format: 'compressedFile', filePattern: '*' } } as const;
    expect(parseWhole(jsonFormat, {}, body, undefined, packing)).toEqual({
      records: [{ value: { a: 1 } }, { value: { a: 2 } }],
      failures: [],
    });
  });

  it('is reachable through parseStream with a packing', async () => {
    const packing = {
      compression: { format: 'archive', filePattern: '*.csv' },
      maxDecodedBytes: 10_000,
    } as const;
    const result = await parseStream(
      delimitedFormat,
      CSV,
      split(fixture('mixed.tar'), 100),
      undefined,
      packing,
    );
    expect(csvRecords(result)).toEqual(ORDERS);
  });

  it.each(['mixed.zip', 'mixed.tar.gz'])('keeps no view of a chunk of %s after push', (name) => {
    const input = fixture(name);
    const compression = { format: 'compressedArchive', filePattern: '*' } as const;
    const parser = createCompressionParser(
      jsonFormat,
      resolveFormatConfig(jsonFormat, {}),
      compression,
      {
        originState: new Map(),
      },
      { maxDecodedBytes: 1_000_000 },
    );
    const reused = Buffer.alloc(37);
    const results: ParseResult[] = [];
    for (const chunk of split(input, reused.length)) {
      chunk.copy(reused);
      results.push(parser.push(reused.subarray(0, chunk.length)));
      reused.fill(0xee);
    }
    results.push(parser.end());
    expect(concatResults(results)).toEqual(parse(jsonFormat, {}, compression, [input]));
  });

  it('runs record indexes on across entries', () => {
    const zip = Buffer.from(
      zipSync({ 'a.json': Buffer.from('{"a":1}\n{"a":2}'), 'b.json': Buffer.from('{"b":1} {') }),
    );
    const result = parse(jsonFormat, {}, { format: 'archive', filePattern: '*' }, [zip]);
    expect(result.records).toHaveLength(3);
    expect(result.failures.map((f) => [f.code, f.recordIndex])).toEqual([['ORIGIN_JSON_MALFORMED', 3]]);
  });
});

describe('compression parser on hostile input', () => {
  it('stops a zip bomb at the decoded-size limit', () => {
    const bomb = Buffer.from(
      zipSync({ 'zeros.json': new Uint8Array(40_000_000), 'after.json': Buffer.from('{}') }, { level: 9 }),
    );
    expect(bomb.length).toBeLessThan(100_000);
    const result = parse(
      jsonFormat,
      {},
      { format: 'archive', filePattern: '*' },
      split(bomb, 1024),
      1_000_000,
    );
    expect(result.records).toEqual([]);
    expect(result.failures).toEqual([
      expect.objectContaining({ code: 'ORIGIN_ARCHIVE_TOO_LARGE', scope: 'stage', canContinue: false }),
    ]);
  });

  it('stops a gzip bomb at the decoded-size limit, counting every member', () => {
    const bomb = Buffer.from(gzipSync(new Uint8Array(20_000_000), { level: 9 }));
    const result = parse(jsonFormat, {}, { format: 'compressedFile', filePattern: '*' }, [bomb], 2_000_000);
    expect(result.failures.map((f) => f.code)).toEqual(['ORIGIN_ARCHIVE_TOO_LARGE']);
  });

  it('does not decompress zip entries the pattern leaves out', () => {
    const bomb = Buffer.from(
      zipSync({ 'zeros.bin': new Uint8Array(40_000_000), 'a.json': Buffer.from('{"a":1}') }, { level: 9 }),
    );
    const result = parse(jsonFormat, {}, { format: 'archive', filePattern: '*.json' }, [bomb], 1000);
    expect(result).toEqual({
      records: [
        { value: { a: 1 }, attributes: { filePathInsideArchive: '', fileNameInsideArchive: 'a.json' } },
      ],
      failures: [],
    });
  });

  it('treats path-traversal and absolute entry names as plain names', () => {
    const zip = Buffer.from(
      zipSync({ '../../etc/evil.json': Buffer.from('{"x":1}'), '/abs/root.json': Buffer.from('{"x":2}') }),
    );
    const result = parse(jsonFormat, {}, { format: 'archive', filePattern: '*.json' }, [zip]);
    expect(result.failures).toEqual([]);
    expect(result.records.map((r) => r.attributes)).toEqual([
      { filePathInsideArchive: '../../etc', fileNameInsideArchive: 'evil.json' },
      { filePathInsideArchive: '/abs', fileNameInsideArchive: 'root.json' },
    ]);
  });

  it('reads a tar written by tar-stream with a traversal name, without touching the disk', async () => {
    const tar = pack();
    tar.entry({ name: '../../../tmp/owned.json' }, '{"owned":false}');
    tar.finalize();
    const chunks: Buffer[] = [];
    for await (const chunk of tar) chunks.push(chunk as Buffer);
    const result = parse(jsonFormat, {}, { format: 'archive', filePattern: '*' }, chunks);
    expect(result.records).toEqual([
      {
        value: { owned: false },
        attributes: { filePathInsideArchive: '../../../tmp', fileNameInsideArchive: 'owned.json' },
      },
    ]);
  });

  it.each([
    ['zip', 'mixed.zip', 'archive'],
    ['tar', 'mixed.tar', 'archive'],
    ['tar.gz', 'mixed.tar.gz', 'compressedArchive'],
    ['gzip', 'orders.csv.gz', 'compressedFile'],
  ] as const)('reports a truncated %s as malformed', (_, name, mode) => {
    const input = fixture(name);
    const cut = input.subarray(0, Math.floor(input.length * 0.6));
    const result = parse(jsonFormat, {}, { format: mode, filePattern: 'nothing-matches' }, [cut]);
    expect(result.failures.filter((f) => f.scope === 'stage')).toEqual([
      expect.objectContaining({ code: 'ORIGIN_ARCHIVE_MALFORMED', scope: 'stage', canContinue: false }),
    ]);
  });

  it('reports a tar header with a wrong checksum', () => {
    const tar = Buffer.from(fixture('mixed.tar'));
    tar[512 + 2] = (tar[512 + 2] as number) ^ 0x01;
    const result = parse(jsonFormat, {}, { format: 'archive', filePattern: '*' }, [tar]);
    expect(result.failures).toEqual([
      expect.objectContaining({
        code: 'ORIGIN_ARCHIVE_MALFORMED',
        message: 'The tar body is malformed or truncated: a header checksum does not match.',
      }),
    ]);
  });

  it('refuses a body the mode does not allow', () => {
    const csv = Buffer.from('id,item\n1,apple\n');
    const result = parse(delimitedFormat, CSV, { format: 'archive', filePattern: '*' }, [csv]);
    expect(result.records).toEqual([]);
    expect(result.failures).toEqual([
      expect.objectContaining({
        code: 'ORIGIN_ARCHIVE_NOT_RECOGNIZED',
        message:
          'The body is not a zip or tar file (compression format archive); its first bytes are 69642c6974656d0a.',
      }),
    ]);
    const zipAsFile = parse(jsonFormat, {}, { format: 'compressedFile', filePattern: '*' }, [
      fixture('mixed.zip'),
    ]);
    expect(zipAsFile.failures.map((f) => f.code)).toEqual(['ORIGIN_ARCHIVE_NOT_RECOGNIZED']);
  });

  it('reports a corrupt deflate stream as malformed and never throws', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 1, maxLength: 600 }), fc.nat(), (noise, at) => {
        const input = Buffer.from(fixture('mixed.tar.gz'));
        input.set(noise.subarray(0, input.length - (at % input.length)), at % input.length);
        const result = parse(jsonFormat, {}, { format: 'compressedArchive', filePattern: '*' }, [input]);
        for (const f of result.failures) expect(typeof f.code).toBe('string');
      }),
      { numRuns: 200 },
    );
  });
});

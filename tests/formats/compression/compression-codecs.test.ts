import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { binaryFormat } from '../../../src/formats/binary/binary-format';
import { createCompressionParser } from '../../../src/formats/compression/compression-parser';
import type { CompressionConfig } from '../../../src/formats/compression/compression-options';
import type { DataFormat, ParseResult } from '../../../src/formats/data-format';
import { createDecompressor, DecompressError } from '../../../src/formats/decompressors';
import { resolveFormatConfig } from '../../../src/formats/format-config';
import { jsonFormat } from '../../../src/formats/json/json-format';
import { concatResults } from '../../../src/formats/parse-helpers';

/** Files made by the real tools (tests/fixtures/formats/compression/generate-tools.sh). */
const TOOLS = join(__dirname, '..', '..', 'fixtures', 'formats', 'compression', 'tools');
const tool = (name: string): Buffer => readFileSync(join(TOOLS, name));
const FILE_EXTENSIONS = ['gz', 'bz2', 'xz', 'zst', 'sz'];

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

const FILE: CompressionConfig = { format: 'compressedFile', filePattern: '*' };
const JSON_LINES = { jsonContent: 'multipleObjects' };

describe('compressed files of every codec', () => {
  it.each(FILE_EXTENSIONS)('gives the same records from a .%s file whatever its chunking', (ext) => {
    const body = tool(`customers-concatenated.json.${ext}`);
    const whole = parse(jsonFormat, JSON_LINES, FILE, [body]);
    expect(whole.failures).toEqual([]);
    expect(whole.records.map((r) => r.value)).toEqual([
      { id: 1, name: 'Ada' },
      { id: 2, name: 'Grace' },
      { id: 1, name: 'Ada' },
      { id: 2, name: 'Grace' },
    ]);
    for (const size of [1, 7, 100]) {
      expect(parse(jsonFormat, JSON_LINES, FILE, split(body, size))).toEqual(whole);
    }
  });

  it.each(FILE_EXTENSIONS)('stops a .%s bomb at the budget with memory flat', (ext) => {
    const before = process.memoryUsage().rss;
    const result = parse(
      binaryFormat,
      { maxDataSizeBytes: 2_000_000_000 },
      FILE,
      split(tool(`bomb.${ext}`), 65_536),
      1_000_000,
    );
    expect(result.records).toEqual([]);
    expect(result.failures).toMatchObject([
      { code: 'ORIGIN_ARCHIVE_TOO_LARGE', scope: 'stage', canContinue: false },
    ]);
    // The bz2 and zst bombs hold 1 GB, the xz one 200 MB: far more than this if they were decompressed whole.
    expect(process.memoryUsage().rss - before).toBeLessThan(150_000_000);
  });

  it.each(FILE_EXTENSIONS)('refuses a .%s file whose data is damaged', (ext) => {
    const body = Buffer.from(tool(`customers.json.${ext}`));
    // Past every header, inside the compressed data or its check.
    const at = Math.floor(body.length * 0.6);
    for (let i = at; i < at + 4; i++) body[i] = (body[i] as number) ^ 0xa5;
    const { failures } = parse(jsonFormat, JSON_LINES, FILE, [body]);
    expect(failures.at(-1)).toMatchObject({ code: 'ORIGIN_ARCHIVE_MALFORMED', scope: 'stage' });
  });

  it('names every accepted kind when a compressed file is not one', () => {
    const { failures } = parse(jsonFormat, JSON_LINES, FILE, [Buffer.from('{"plain": true}')]);
    expect(failures).toMatchObject([{ code: 'ORIGIN_ARCHIVE_NOT_RECOGNIZED' }]);
    expect(failures[0]?.message).toContain('a gzip, bzip2, xz, Zstandard or snappy-framed file');
  });
});

describe('the Zstandard frame check', () => {
  const collect = (bytes: Uint8Array, budget: number): unknown => {
    const decompressor = createDecompressor('zstandard', () => undefined, budget);
    try {
      decompressor.push(bytes);
      decompressor.end();
      return 'ok';
    } catch (error) {
      return error instanceof DecompressError ? [error.kind, error.detail] : error;
    }
  };

  it('refuses a frame that needs a window over 128 MiB before fzstd allocates it', () => {
    // Magic, a descriptor with no content size, a window descriptor of 2^41 bytes, then a block header.
    const frame = Uint8Array.of(0x28, 0xb5, 0x2f, 0xfd, 0x00, 0xf8, 0x01, 0x00, 0x00);
    expect(collect(frame, 1_000_000)).toEqual(['tooLarge', expect.stringContaining('window')]);
  });

  it('refuses a frame that declares more content than the budget', () => {
    // Single segment, an 8-byte content size of 2^40.
    const frame = Uint8Array.of(0x28, 0xb5, 0x2f, 0xfd, 0xe0, 0, 0, 0, 0, 0, 1, 0, 0, 0x01, 0x00, 0x00);
    expect(collect(frame, 1_000_000)).toEqual(['tooLarge', expect.stringContaining('declares')]);
  });

  it('reports a stream cut inside a frame as corrupt', () => {
    const body = tool('customers.json.zst');
    expect(collect(body.subarray(0, body.length - 3), 1_000_000)).toEqual(['corrupt', expect.any(String)]);
    expect(collect(body, 1_000_000)).toBe('ok');
  });
});

import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { avroFormat } from '../../src/formats/avro/avro-format';
import { binaryFormat } from '../../src/formats/binary/binary-format';
import type { CompressionConfig } from '../../src/formats/compression/compression-options';
import { createCompressionParser } from '../../src/formats/compression/compression-parser';
import type { DataFormat, Parser } from '../../src/formats/data-format';
import { datagramFormat } from '../../src/formats/datagram/datagram-format';
import { delimitedFormat } from '../../src/formats/delimited/delimited-format';
import { engineRecordFormat } from '../../src/formats/engine-record/engine-record-format';
import { resolveFormatConfig } from '../../src/formats/format-config';
import { jsonFormat } from '../../src/formats/json/json-format';
import { protobufFormat } from '../../src/formats/protobuf/protobuf-format';
import { xmlFormat } from '../../src/formats/xml/xml-format';

/**
 * One way of parsing an input the fuzzer can start from: a format with options (and, for archives, a packing) and
 * a valid input of that kind. Mutations start from `input`; random inputs use `options` only.
 */
export interface FuzzSeed {
  /** Where the seed comes from, for messages: the fixture path relative to the fixtures root. */
  readonly name: string;
  readonly format: DataFormat;
  /** The format's own options, as a fixture's `expected.json` holds them (defaults not applied). */
  readonly options: Record<string, unknown>;
  /** A compressed file or archive: the body is unpacked first (`dataFormat.compression`). */
  readonly compression?: CompressionConfig;
  readonly input: Buffer;
}

/**
 * A group of seeds fuzzed together (one per parser, or per packing): a mutation may splice bytes of one seed into
 * another, and `tokens` are byte strings that mean something to the parser (openers, escapes, huge varints), which
 * mutations insert to get past the first syntax check more often than random bytes would.
 */
export interface FuzzTarget {
  readonly name: string;
  readonly seeds: readonly FuzzSeed[];
  readonly tokens: readonly Buffer[];
  /**
   * Most records plus failures one input byte may yield, beyond a constant. 1 for line and element formats; Avro
   * may declare up to 65,536 zero-width records in one block of at least 18 bytes.
   */
  readonly outputsPerByte: number;
  /**
   * Most value nodes (values, keys, attributes) one input byte may yield, beyond a constant. Protobuf is the widest:
   * an empty delimited message is one byte and its record holds every field of the message type with its default.
   */
  readonly nodesPerByte: number;
}

/**
 * Most bytes a compressed fuzz input may decode to. Small, so that the fuzzer meets the limit often (the limit is
 * part of what it tries) and so that the output bound is meaningful.
 */
export const FUZZ_MAX_DECODED_BYTES = 1 << 20;

const FOLDER_FORMATS: Readonly<Record<string, DataFormat>> = {
  json: jsonFormat,
  binary: binaryFormat,
  xml: xmlFormat,
  delimited: delimitedFormat,
  avro: avroFormat,
  protobuf: protobufFormat,
  'engine-record': engineRecordFormat,
  datagram: datagramFormat,
};

const text = (...tokens: string[]): Buffer[] => tokens.map((t) => Buffer.from(t, 'utf8'));
const bytes = (...tokens: number[][]): Buffer[] => tokens.map((t) => Buffer.from(t));

/** Byte strings that upset any parser: extremes, huge varints (2^60, -1 as 64 bits), invalid UTF-8. */
const COMMON_TOKENS: Buffer[] = bytes(
  [0x00],
  [0xff],
  [0x7f],
  [0x80],
  [0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x20],
  [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01],
  [0xff, 0xff, 0xff, 0xff, 0x0f],
  [0xfe, 0xff, 0xff, 0xff, 0x0f],
  [0xc3],
  [0xed, 0xa0, 0x80],
  [0xef, 0xbb, 0xbf],
  [0xf0, 0x9f, 0x98],
  [0xff, 0xff, 0xff, 0xff],
  [0x7f, 0xff, 0xff, 0xff],
  [0x80, 0x00, 0x00, 0x00],
);

const TOKENS: Readonly<Record<string, Buffer[]>> = {
  json: text(
    '{',
    '}',
    '[',
    ']',
    '"',
    '\\',
    '\\u',
    '\\ud83d',
    ':',
    ',',
    '1e999',
    '-0',
    '9'.repeat(30),
    'null',
  ),
  binary: [],
  xml: text(
    '<',
    '>',
    '</',
    '/>',
    '<a>',
    '</a>',
    '<![CDATA[',
    ']]>',
    '<!--',
    '-->',
    '<?xml version="1.0"?>',
    '<!DOCTYPE a [<!ENTITY e "x">]>',
    '&e;',
    '&amp;',
    '&#x0;',
    '&#1114112;',
    ' x="1"',
    'xmlns:p="u"',
    'p:',
  ),
  delimited: text(',', '"', '""', '\n', '\r\n', '\r', '\t', '|', ';', '\\', '\\N', '#'),
  avro: [
    ...text('Obj\x01', 'avro.schema', 'avro.codec', '"null"', '{"type":"array","items":"long"}'),
    Buffer.alloc(16),
  ],
  protobuf: bytes([0x0a], [0x12], [0x08], [0x1a, 0x7f], [0x0b], [0x0c], [0x0d], [0x09], [0x0f]),
  'engine-record': text(
    '\xa1',
    '\n',
    '{"header":{},"value":',
    '{"type":"DECIMAL","value":"1"}',
    '{"type":"LIST_MAP","value":{}}',
    '"type"',
    '"value"',
  ),
  collectd: bytes([0x00, 0x00], [0x00, 0x06], [0x02, 0x00], [0x02, 0x10], [0x02, 0x00, 0x00, 0x04]),
  syslog: text('<', '>', '<165>', '1 ', '- ', '[', ']', '="', '\\]', 'Nov 22 05:51:25 '),
  netflow: bytes([0x00, 0x05], [0x00, 0x09], [0x00, 0x00], [0x00, 0x01], [0x01, 0x00], [0xff, 0xff]),
  raw: text('\n', '\r\n', '|', '\x00'),
  compression: [
    ...bytes([0x1f, 0x8b, 0x08, 0x00], [0x50, 0x4b, 0x03, 0x04], [0x50, 0x4b, 0x05, 0x06]),
    ...bytes([0x42, 0x5a, 0x68, 0x39], [0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00], [0x28, 0xb5, 0x2f, 0xfd]),
    ...bytes([0xff, 0x06, 0x00, 0x00, 0x73, 0x4e, 0x61, 0x50, 0x70, 0x59], [0x50, 0x2a, 0x4d, 0x18]),
    ...text('ustar\x0000', 'ustar  \x00', '../', 'PaxHeader'),
  ],
};

/** Every file under `dir`, as paths relative to `dir`. */
function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    return statSync(path).isDirectory() ? walk(path).map((p) => join(entry, p)) : [entry];
  });
}

/** The format folder a fixture path belongs to: `json/x` → json, `datagram/raw/x` → raw. */
function groupOf(path: string): string {
  const [first, second] = path.split(/[\\/]/);
  return first === 'datagram' ? (second ?? first) : (first ?? path);
}

/**
 * Seeds from the committed fixture pairs (`<name>.input.<ext>` beside `<name>.expected.json` whose `options` name
 * the format's options), grouped by parser. Syslog and NetFlow captures (`*.packet`) and the archives of
 * `compression/` are added with the options they were captured for.
 */
function fixtureSeeds(root: string): Map<string, FuzzSeed[]> {
  const groups = new Map<string, FuzzSeed[]>();
  const add = (group: string, seed: FuzzSeed): void => {
    const list = groups.get(group) ?? [];
    list.push(seed);
    groups.set(group, list);
  };
  const files = walk(root).sort();
  for (const file of files) {
    const folder = file.split(/[\\/]/)[0] ?? '';
    const format = FOLDER_FORMATS[folder];
    const full = join(root, file);
    if (format && file.endsWith('.expected.json')) {
      const stem = file.slice(0, -'.expected.json'.length);
      const input = files.find((f) => f.startsWith(`${stem}.input.`));
      const expected = JSON.parse(readFileSync(full, 'utf8')) as { options?: Record<string, unknown> };
      if (input === undefined || expected.options === undefined) continue;
      add(groupOf(file), {
        name: stem,
        format,
        options: expected.options,
        input: readFileSync(join(root, input)),
      });
    } else if (format === datagramFormat && file.endsWith('.packet')) {
      const packetFormat = groupOf(file) === 'syslog' ? 'syslog' : 'netflow';
      add(packetFormat, {
        name: relative(root, full),
        format,
        options: { packetFormat },
        input: readFileSync(full),
      });
    } else if (folder === 'compression') {
      const compression = compressionOf(file);
      if (compression === undefined) continue;
      add('compression', {
        name: file,
        format: delimitedFormat,
        options: { headerLine: 'withHeader' },
        compression,
        input: readFileSync(full),
      });
    }
  }
  return groups;
}

/** The packing a committed archive or compressed file is read with, by its name; undefined for other files. */
function compressionOf(file: string): CompressionConfig | undefined {
  if (/\.tar\.(gz|bz2|xz|zst)$/.test(file)) return { format: 'compressedArchive', filePattern: '*' };
  if (/\.(gz|bz2|xz|zst|sz)$/.test(file)) return { format: 'compressedFile', filePattern: '*' };
  if (/\.(zip|tar)$/.test(file)) return { format: 'archive', filePattern: '*' };
  return undefined;
}

/**
 * The fuzz targets: one per parser (and one for compressed files and archives), each with its committed fixtures
 * as seeds. `root` is `tests/fixtures/formats`. Throws when a parser has no seed, so that a fixture folder moved
 * away cannot silently leave a parser unfuzzed.
 */
export function loadFuzzTargets(root: string): FuzzTarget[] {
  const groups = fixtureSeeds(root);
  const names = ['json', 'binary', 'xml', 'delimited', 'avro', 'protobuf', 'engine-record'];
  names.push('collectd', 'netflow', 'syslog', 'raw', 'compression');
  return names.map((name) => {
    const seeds = groups.get(name);
    if (!seeds || seeds.length === 0) throw new Error(`no fuzz seed for ${name} under ${root}`);
    const outputsPerByte = name === 'avro' ? 65_536 : 1;
    const nodesPerByte = name === 'protobuf' ? 64 : 24 * outputsPerByte;
    return { name, seeds, tokens: [...COMMON_TOKENS, ...(TOKENS[name] ?? [])], outputsPerByte, nodesPerByte };
  });
}

/** A fresh parser for `seed`'s format, options and packing. `originState` may be shared to fuzz NetFlow's cache. */
export function parserForSeed(seed: FuzzSeed, originState = new Map<string, unknown>()): Parser {
  const config = resolveFormatConfig(seed.format, seed.options);
  if (seed.compression === undefined) return seed.format.createParser(config, { originState });
  return createCompressionParser(
    seed.format,
    config,
    seed.compression,
    { originState },
    {
      maxDecodedBytes: FUZZ_MAX_DECODED_BYTES,
    },
  );
}

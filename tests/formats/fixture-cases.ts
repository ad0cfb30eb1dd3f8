import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { avroFormat } from '../../src/formats/avro/avro-format';
import { binaryFormat } from '../../src/formats/binary/binary-format';
import { delimitedFormat } from '../../src/formats/delimited/delimited-format';
import { engineRecordFormat } from '../../src/formats/engine-record/engine-record-format';
import type { DataFormat, ParseFailure, ParseResult, Parser } from '../../src/formats/data-format';
import { datagramFormat } from '../../src/formats/datagram/datagram-format';
import { resolveFormatConfig } from '../../src/formats/format-config';
import { jsonFormat } from '../../src/formats/json/json-format';
import { protobufFormat } from '../../src/formats/protobuf/protobuf-format';
import { xmlFormat } from '../../src/formats/xml/xml-format';
import { isTypedField, type FieldValue, type ListMap } from '../../src/record/field';
import { isListMap, listMapEntries } from '../../src/record/list-map';

/** One fixture pair: `<name>.input.<ext>` and `<name>.expected.json` (see tests/fixtures/formats/json/README.md). */
export interface FixtureCase {
  readonly format: DataFormat;
  readonly name: string;
  readonly input: Buffer;
  readonly options: Record<string, unknown>;
  /** Record values in the tagged form. */
  readonly records: unknown[];
  readonly failures: ParseFailure[];
}

const ROOT = join(__dirname, '..', 'fixtures', 'formats');
const FORMATS: Record<string, DataFormat> = {
  json: jsonFormat,
  binary: binaryFormat,
  avro: avroFormat,
  protobuf: protobufFormat,
  xml: xmlFormat,
  delimited: delimitedFormat,
  'engine-record': engineRecordFormat,
  'datagram/collectd': datagramFormat,
  'datagram/raw': datagramFormat,
};

/** Every fixture pair of every format folder, sorted by name. */
export function loadFixtureCases(): FixtureCase[] {
  const cases: FixtureCase[] = [];
  for (const [folder, format] of Object.entries(FORMATS)) {
    const dir = join(ROOT, folder);
    const files = readdirSync(dir);
    for (const file of files.filter((f) => f.endsWith('.expected.json')).sort()) {
      const name = file.slice(0, -'.expected.json'.length);
      const inputFile = files.find(
        (f) => f.startsWith(name) && /^\.input\.(json|bin|xml|csv|txt)$/.test(f.slice(name.length)),
      );
      if (!inputFile) throw new Error(`fixture ${folder}/${name} has no input file`);
      const expected = JSON.parse(readFileSync(join(dir, file), 'utf8')) as {
        options: Record<string, unknown>;
        records: unknown[];
        failures: ParseFailure[];
      };
      cases.push({
        format,
        name: `${folder}/${name}`,
        input: readFileSync(join(dir, inputFile)),
        options: expected.options,
        records: expected.records,
        failures: expected.failures,
      });
    }
  }
  return cases;
}

/** A fresh parser for the fixture's format and options. */
export function parserFor(c: FixtureCase): Parser {
  return c.format.createParser(resolveFormatConfig(c.format, c.options), { originState: new Map() });
}

/** Pushes `chunks` in order into a fresh parser for `c`, then ends it; the results concatenated. */
export function parseChunks(c: FixtureCase, chunks: Iterable<Uint8Array>): ParseResult {
  const parser = parserFor(c);
  const results: ParseResult[] = [];
  for (const chunk of chunks) results.push(parser.push(chunk));
  results.push(parser.end());
  return {
    records: results.flatMap((r) => r.records),
    failures: results.flatMap((r) => r.failures),
  };
}

/**
 * A record value in the fixtures' tagged form: `bigint` → `{ "$bigint": "<digits>" }`, DECIMAL →
 * `{ "$decimal": "<text>" }`, `Uint8Array` → `{ "$bytes": "<base64>" }`, a STRING or MAP with field attributes →
 * `{ "$typed": { type, value, attributes } }`, LIST_MAP → `{ "$listMap": [[key, value], …] }`, `Date` →
 * `{ "$date": "<ISO>" }`, any other typed field (FLOAT, DATE, TIME, a DECIMAL with attributes, …) →
 * `{ "$typed": { type, value, attributes? } }` with its value tagged; everything else as JSON has it.
 */
export function toTagged(value: FieldValue): unknown {
  if (typeof value === 'bigint') return { $bigint: value.toString() };
  if (value instanceof Uint8Array) return { $bytes: Buffer.from(value).toString('base64') };
  if (isTypedField(value)) {
    if (value.type === 'DECIMAL' && !value.attributes) return { $decimal: value.value };
    if (value.type === 'LIST_MAP' && value.value && !value.attributes) {
      return { $listMap: listMapEntries(value.value as ListMap).map(([k, v]) => [k, toTagged(v)]) };
    }
    if ((value.type === 'STRING' || value.type === 'MAP') && value.attributes) {
      const typed = value.type === 'MAP' ? toTagged(value.value as FieldValue) : value.value;
      return { $typed: { type: value.type, value: typed, attributes: value.attributes } };
    }
    const inner = value.value;
    return {
      $typed: {
        type: value.type,
        value:
          inner instanceof Map
            ? toTagged(Object.fromEntries(inner) as FieldValue)
            : isListMap(inner)
              ? toTagged(Object.fromEntries(listMapEntries(inner)) as FieldValue)
              : toTagged(inner),
        ...(value.attributes ? { attributes: value.attributes } : {}),
      },
    };
  }
  if (value instanceof Date) return { $date: value.toISOString() };
  if (isListMap(value)) return { $listMap: listMapEntries(value).map(([k, v]) => [k, toTagged(v)]) };
  if (Array.isArray(value)) return value.map(toTagged);
  if (value !== null && typeof value === 'object' && !(value instanceof Date)) {
    const out: Record<string, unknown> = {};
    for (const [key, member] of Object.entries(value)) out[key] = toTagged(member);
    return out;
  }
  return value;
}

/** A parse result with its record values in the tagged form, for comparison with an expected file. */
export function tagged(result: ParseResult): { records: unknown[]; failures: ParseFailure[] } {
  return { records: result.records.map((r) => toTagged(r.value)), failures: result.failures };
}

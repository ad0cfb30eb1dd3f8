import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { delimitedFormat } from '../../../src/formats/delimited/delimited-format';
import { resolveFormatConfig } from '../../../src/formats/format-config';
import { parseWhole } from '../../../src/formats/parse-helpers';
import { listMapEntries, type ListMap } from '../../../src/record/list-map';

// Written by a real PostgreSQL from one table; see tests/fixtures/formats/delimited/postgres/generate.sh.
const DIR = join(__dirname, '..', '..', 'fixtures', 'formats', 'delimited', 'postgres');
const rows = JSON.parse(readFileSync(join(DIR, 'rows.json'), 'utf8')) as (string | null)[][];

function parse(file: string, options: Record<string, unknown>): (string | null)[][] {
  const result = parseWhole(delimitedFormat, options, readFileSync(join(DIR, file)));
  expect(result.failures).toEqual([]);
  return result.records.map(
    (r) => listMapEntries(r.value as ListMap).map(([, value]) => value) as (string | null)[],
  );
}

describe('PostgreSQL COPY output parses back to the table rows', () => {
  it('holds the cases the round trip is about', () => {
    const values = rows.flat();
    expect(values).toContain(null);
    expect(values).toContain('');
    for (const needle of ['"', ',', '\t', '\\', '\n', '\r\n', '😀']) {
      expect(values.some((v) => v?.includes(needle))).toBe(true);
    }
  });

  it('reads COPY (FORMAT csv) with postgresCsv, an unquoted empty value being NULL', () => {
    expect(
      parse('table.csv.txt', { delimiterFormatType: 'postgresCsv', parseNulls: true, nullConstant: '' }),
    ).toEqual(rows);
  });

  it('reads COPY (FORMAT text) with postgresText, \\N being NULL', () => {
    expect(parse('table.text.txt', { delimiterFormatType: 'postgresText', parseNulls: true })).toEqual(rows);
  });

  it('gives the same rows when the body arrives one byte at a time', () => {
    const bytes = readFileSync(join(DIR, 'table.text.txt'));
    const config = resolveFormatConfig(delimitedFormat, {
      delimiterFormatType: 'postgresText',
      parseNulls: true,
    });
    const parser = delimitedFormat.createParser(config, { originState: new Map() });
    const records = [...bytes].flatMap((b) => parser.push(Uint8Array.of(b)).records);
    records.push(...parser.end().records);
    expect(records.map((r) => listMapEntries(r.value as ListMap).map(([, value]) => value))).toEqual(rows);
  });
});

import fc from 'fast-check';
import { delimitedFormat } from '../../../src/formats/delimited/delimited-format';
import { parseWhole } from '../../../src/formats/parse-helpers';
import { listMapEntries, type ListMap } from '../../../src/record/list-map';

type Table = (string | null)[][];

/**
 * Each escape dialect's own writer, by the rules of the program that writes it: a table written so must read back
 * equal (issue 15: a CR that MySQL writes raw ended the record).
 */
interface Writer {
  readonly options: Record<string, unknown>;
  readonly nulls: boolean;
  write(table: Table): string;
}

/** MySQL/MariaDB `SELECT … INTO OUTFILE` defaults: escape `\`, tab, LF and NUL; NULL is `\N`; LF ends lines. */
const mysql: Writer = {
  options: { delimiterFormatType: 'mysql', parseNulls: true },
  nulls: true,
  write: (table) =>
    table
      .map((row) =>
        row
          .map((v) => (v === null ? '\\N' : v.replace(/[\\\t\n\0]/g, (c) => (c === '\0' ? '\\0' : `\\${c}`))))
          .join('\t'),
      )
      .map((line) => `${line}\n`)
      .join(''),
};

const PG_TEXT_ESCAPES: Record<string, string> = {
  '\\': '\\\\',
  '\b': '\\b',
  '\f': '\\f',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
  '\v': '\\v',
};

/** PostgreSQL `COPY … TO (FORMAT text)`: backslash escapes for `\` and control characters; NULL is `\N`. */
const postgresText: Writer = {
  options: { delimiterFormatType: 'postgresText', parseNulls: true },
  nulls: true,
  write: (table) =>
    table
      .map((row) =>
        row
          .map((v) => (v === null ? '\\N' : v.replace(/[\\\b\f\n\r\t\v]/g, (c) => PG_TEXT_ESCAPES[c] ?? c)))
          .join('\t'),
      )
      .map((line) => `${line}\n`)
      .join(''),
};

/** PostgreSQL `COPY … TO (FORMAT csv)`: quoted when needed and when empty; NULL is an unquoted empty value. */
const postgresCsv: Writer = {
  options: { delimiterFormatType: 'postgresCsv', parseNulls: true, nullConstant: '' },
  nulls: true,
  write: (table) =>
    table
      .map((row) =>
        row
          .map((v) => (v === null ? '' : v === '' || /[",\r\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v))
          .join(','),
      )
      .map((line) => `${line}\n`)
      .join(''),
};

/** Apache Commons CSV's printer (QuoteMode.MINIMAL), which the reference engine's presets come from. */
function commons(type: string, delimiter: string, lineEnd: string, trims: boolean): Writer {
  const special = new RegExp(`["\\r\\n${delimiter === '\t' ? '\\t' : delimiter}]`);
  return {
    options: { delimiterFormatType: type },
    nulls: false,
    write: (table) =>
      table
        .map((row) =>
          row
            .map((v, i) => {
              const value = v ?? '';
              const quote =
                special.test(value) ||
                (value === '' && i === 0) ||
                (trims && (value.startsWith(' ') || value.endsWith(' ')));
              return quote ? `"${value.replace(/"/g, '""')}"` : value;
            })
            .join(delimiter),
        )
        .map((line) => `${line}${lineEnd}`)
        .join(''),
  };
}

const WRITERS: Record<string, Writer> = {
  mysql,
  postgresText,
  postgresCsv,
  csv: commons('csv', ',', '\n', false),
  rfc4180: commons('rfc4180', ',', '\r\n', false),
  excel: commons('excel', ',', '\r\n', false),
  tdf: commons('tdf', '\t', '\n', true),
};

const character = fc.constantFrom(
  'a',
  'N',
  'n',
  '0',
  ' ',
  ',',
  '"',
  '\\',
  '\t',
  '\n',
  '\r',
  '\0',
  '\b',
  '\f',
  '\v',
  '\x1a',
  'é',
  '😀',
);

function tables(nulls: boolean): fc.Arbitrary<Table> {
  const value = fc.string({ unit: character, maxLength: 6 });
  return fc.integer({ min: 1, max: 4 }).chain((columns) =>
    fc.array(
      fc.array(nulls ? fc.option(value, { nil: null }) : value, { minLength: columns, maxLength: columns }),
      {
        minLength: 1,
        maxLength: 6,
      },
    ),
  );
}

function read(options: Record<string, unknown>, text: string): Table {
  const result = parseWhole(delimitedFormat, options, Buffer.from(text, 'utf8'));
  expect(result.failures).toEqual([]);
  return result.records.map((r) => listMapEntries(r.value as ListMap).map(([, v]) => v) as (string | null)[]);
}

describe('each escape dialect reads back what its own writer writes', () => {
  it.each(Object.entries(WRITERS))('%s: any table round-trips', (_, writer) => {
    fc.assert(
      fc.property(tables(writer.nulls), (table) => {
        expect(read(writer.options, writer.write(table))).toEqual(table);
      }),
      { numRuns: 400 },
    );
  });

  it('mysql: a value holding CR LF, a lone CR, or ending in CR stays in its record', () => {
    const table = [
      ['crlf\r\ninside', 'lone\rcr'],
      ['ends with cr\r', '\r'],
    ];
    expect(read(mysql.options, mysql.write(table))).toEqual(table);
  });
});

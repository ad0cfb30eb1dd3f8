import { delimitedFormat } from '../../../src/formats/delimited/delimited-format';
import { DelimitedParser } from '../../../src/formats/delimited/delimited-parser';
import { resolveFormatConfig } from '../../../src/formats/format-config';
import { parseWhole } from '../../../src/formats/parse-helpers';
import { listMapEntries, listMapToMap, type ListMap } from '../../../src/record/list-map';

function columns(options: Record<string, unknown>, text: string): unknown[][] {
  return parseWhole(delimitedFormat, options, Buffer.from(text)).records.map((r) => [
    ...listMapEntries(r.value as ListMap).map(([, value]) => value),
  ]);
}

describe('delimited format config', () => {
  it('accepts a delimiter character written as \\uNNNN and uses the character it names', () => {
    expect(columns({ delimiterFormatType: 'custom', delimiterCharacter: '\\u001F' }, 'a\u001fb\n')).toEqual([
      ['a', 'b'],
    ]);
  });

  it('refuses a delimiter character of more than one character, naming the option', () => {
    expect(() => resolveFormatConfig(delimitedFormat, { delimiterCharacter: ';;' })).toThrow(
      /delimiterCharacter/,
    );
  });

  it('refuses an unknown delimiter format type, listing the allowed ones', () => {
    expect(() => resolveFormatConfig(delimitedFormat, { delimiterFormatType: 'CSV' })).toThrow(
      /postgresText/,
    );
  });

  it('refuses a charset this Node.js build cannot decode when the parser is made', () => {
    const config = resolveFormatConfig(delimitedFormat, { charset: 'no-such-charset' });
    expect(() => delimitedFormat.createParser(config, { originState: new Map() })).toThrow(
      expect.objectContaining({ code: 'ORIGIN_CHARSET_UNSUPPORTED' }),
    );
  });

  it('ignores the custom delimiter unless the format type is custom', () => {
    expect(columns({ delimiterCharacter: ';' }, 'a;b,c\n')).toEqual([['a;b', 'c']]);
  });
});

describe('delimited records over maxRecordLengthChars', () => {
  it('reads past a long record without keeping it, then reads the next one', () => {
    const parser = new DelimitedParser(resolveFormatConfig(delimitedFormat, { maxRecordLengthChars: 100 }));
    const chunk = Buffer.alloc(64 * 1024, 'x,');
    let failures = 0;
    let held = 0;
    for (let i = 0; i < 32; i++) {
      failures += parser.push(chunk).failures.length;
      held = Math.max(held, parser.bufferedChars);
    }
    expect(held).toBeLessThan(1000);
    const tail = parser.push(Buffer.from('\nnext\n'));
    const end = parser.end();
    expect(failures).toBe(0);
    expect(tail.failures.map((f) => [f.code, f.excerpt.length, f.byteOffset])).toEqual([
      ['ORIGIN_DELIMITED_RECORD_TOO_LONG', 256, 0],
    ]);
    expect([...tail.records, ...end.records].map((r) => listMapToMap(r.value as ListMap))).toEqual([
      new Map([['0', 'next']]),
    ]);
  });
});

describe('delimited records', () => {
  it('reads a field by header name as a property, and every record of the header shares its key table', () => {
    const { records } = parseWhole(
      delimitedFormat,
      { headerLine: 'withHeader' },
      Buffer.from('name,first name\nLovelace,Ada\nHopper,Grace\n'),
    );
    const [one, two] = records.map((r) => r.value as ListMap);
    expect(one?.name).toBe('Lovelace');
    expect(one?.['first name']).toBe('Ada');
    expect(Object.getPrototypeOf(one)).toBe(Object.getPrototypeOf(two));
  });

  it('keys a record without header by column index, in column order', () => {
    const { records } = parseWhole(
      delimitedFormat,
      {},
      Buffer.from(Array.from({ length: 12 }, (_, i) => i).join(',')),
    );
    const row = records[0]?.value as ListMap;
    expect(row['11']).toBe('11');
    expect(listMapEntries(row).map(([key]) => key)).toEqual(Array.from({ length: 12 }, (_, i) => String(i)));
  });
});

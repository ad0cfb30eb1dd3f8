import fc from 'fast-check';
import { field, FIELD_TYPES, type FieldType, type FieldValue } from '../../src/record/field';
import { fieldValuesToJsonArray, fieldValueToJson } from '../../src/record/json-text';
import { listMapOf, ListMapShape, type ListMap } from '../../src/record/list-map';

describe('fieldValueToJson for every field type', () => {
  const cases: { [T in FieldType]: [FieldValue, string][] } = {
    BOOLEAN: [
      [true, 'true'],
      [field('BOOLEAN', false), 'false'],
    ],
    CHAR: [[field('CHAR', '"'), '"\\""']],
    BYTE: [[field('BYTE', -128), '-128']],
    SHORT: [[field('SHORT', 32767), '32767']],
    INTEGER: [
      [42, '42'],
      [field('INTEGER', -7), '-7'],
    ],
    LONG: [
      [2 ** 40, '1099511627776'],
      [12345678901234567890123n, '12345678901234567890123'],
      [-9007199254740993n, '-9007199254740993'],
      [field('LONG', 9223372036854775807n), '9223372036854775807'],
      [field('LONG', 5), '5'],
    ],
    FLOAT: [
      [field('FLOAT', Math.fround(0.1)), '0.1'],
      [field('FLOAT', Math.fround(3.4028234663852886e38)), '3.4028235e+38'],
      [field('FLOAT', 100), '100'],
      [field('FLOAT', 0.1), '0.1'],
      [field('FLOAT', Number.NaN), 'null'],
    ],
    DOUBLE: [
      [1.5, '1.5'],
      [0.1, '0.1'],
      [1e300, '1e+300'],
      [Number.NaN, 'null'],
      [Number.POSITIVE_INFINITY, 'null'],
      [field('DOUBLE', Number.NEGATIVE_INFINITY), 'null'],
    ],
    DECIMAL: [
      [field('DECIMAL', '-12.340'), '-12.340'],
      [
        field('DECIMAL', '123456789012345678901234567890.000000000000000000001'),
        '123456789012345678901234567890.000000000000000000001',
      ],
      [field('DECIMAL', '1E+3'), '1E+3'],
      [field('DECIMAL', '+1.5'), '1.5'],
      [field('DECIMAL', '.5'), '0.5'],
      [field('DECIMAL', '-.5'), '-0.5'],
      [field('DECIMAL', '5.'), '5'],
      [field('DECIMAL', '007.10'), '7.10'],
    ],
    DATE: [[field('DATE', new Date(Date.UTC(2024, 0, 2))), String(Date.UTC(2024, 0, 2))]],
    DATETIME: [
      [new Date(1700000000123), '1700000000123'],
      [new Date(Number.NaN), 'null'],
    ],
    TIME: [[field('TIME', new Date(3723004)), '3723004']],
    ZONED_DATETIME: [[field('ZONED_DATETIME', '2024-01-02T03:04:05+01:00'), '"2024-01-02T03:04:05+01:00"']],
    STRING: [
      ['héllo "x"\n\u2028', JSON.stringify('héllo "x"\n\u2028')],
      [field('STRING', ''), '""'],
    ],
    BYTE_ARRAY: [
      [new Uint8Array([0, 255, 7]), '"AP8H"'],
      [Buffer.from('hello'), '"aGVsbG8="'],
      [new Uint8Array(new Uint8Array([9, 1, 2, 3]).buffer, 1, 2), '"AQI="'],
      [field('BYTE_ARRAY', new Uint8Array()), '""'],
    ],
    MAP: [
      [{ a: 1, b: [new Date(2)] }, '{"a":1,"b":[2]}'],
      [field('MAP', { x: field('SHORT', 3) }), '{"x":3}'],
    ],
    LIST: [
      [[1, 'a', null], '[1,"a",null]'],
      [field('LIST', [1n, field('CHAR', 'c')]), '[1,"c"]'],
    ],
    LIST_MAP: [
      [
        listMapOf([
          ['2', 'two'],
          ['1', 'one'],
          ['a', [true]],
        ]),
        '{"2":"two","1":"one","a":[true]}',
      ],
      [
        listMapOf([
          ['b', 1],
          ['a', field('SHORT', 2)],
        ]),
        '{"b":1,"a":2}',
      ],
      [
        field(
          'LIST_MAP',
          listMapOf([
            ['z', 1],
            ['__proto__', 2],
          ]),
          { note: 'attributes' },
        ),
        '{"z":1,"__proto__":2}',
      ],
    ],
  };

  it('has cases for every engine field type', () => {
    expect(Object.keys(cases).sort()).toEqual([...FIELD_TYPES].sort());
  });

  for (const type of FIELD_TYPES) {
    it.each(cases[type])(`writes ${type} %p as %s`, (value, expected) => {
      expect(fieldValueToJson(value)).toBe(expected);
    });
    it(`writes a null ${type} field as null`, () => {
      expect(fieldValueToJson(field(type, null))).toBe('null');
    });
  }

  it('writes null as null', () => {
    expect(fieldValueToJson(null)).toBe('null');
  });

  it('does not write field attributes', () => {
    expect(fieldValueToJson({ d: field('DECIMAL', '1.0', { precision: '2', scale: '1' }) })).toBe(
      '{"d":1.0}',
    );
  });

  it('writes a typed value nested deep inside plain values exactly', () => {
    const value: FieldValue = { a: [{ b: { c: 10n } }], s: 'x', n: Number.NaN };
    expect(fieldValueToJson(value)).toBe('{"a":[{"b":{"c":10}}],"s":"x","n":null}');
  });

  it('writes object keys in the order JSON.stringify uses, including integer-like keys', () => {
    expect(fieldValueToJson({ b: 1n, 2: 'x', a: 1, 1: 'y' })).toBe('{"1":"y","2":"x","b":1,"a":1}');
  });

  it('writes a null-prototype object and an own __proto__ key', () => {
    const map = Object.create(null) as Record<string, FieldValue>;
    Object.defineProperty(map, '__proto__', {
      value: 1n,
      enumerable: true,
      writable: true,
      configurable: true,
    });
    expect(fieldValueToJson(map)).toBe('{"__proto__":1}');
  });

  it('refuses a DECIMAL whose text is not a decimal number', () => {
    for (const text of ['abc', 'NaN', '', '.', '1.2.3', '--1']) {
      expect(() => fieldValueToJson(field('DECIMAL', text))).toThrow(RangeError);
    }
  });

  it('refuses values that are not field values', () => {
    expect(() => fieldValueToJson({ f: (() => 1) as unknown as FieldValue })).toThrow(TypeError);
    expect(() => fieldValueToJson(new (class Foo {})() as unknown as FieldValue)).toThrow(/Foo/);
  });

  it('follows JSON.stringify for undefined slipped into a tree', () => {
    const value = { a: undefined, b: [undefined, 1n] } as unknown as FieldValue;
    expect(fieldValueToJson(value)).toBe('{"b":[null,1]}');
  });

  it('writes text that JSON.parse reads back for a tree of every type', () => {
    const tree: FieldValue = {
      l: [field('FLOAT', 1.5), field('DECIMAL', '2.25'), new Uint8Array([1]), new Date(3), 4n],
      m: listMapOf([['k', field('ZONED_DATETIME', 'z')]]),
    };
    expect(JSON.parse(fieldValueToJson(tree))).toEqual({ l: [1.5, 2.25, 'AQ==', 3, 4], m: { k: 'z' } });
  });
});

/** JSON.stringify's text of `value`, except that -0 is `-0.0` (decision 0060). */
function stringifyKeepingNegativeZero(value: unknown): string {
  const mark = '\u0000negative zero\u0000';
  const text = JSON.stringify(value, (_key, v: unknown) => (Object.is(v, -0) ? mark : v));
  return text.split(JSON.stringify(mark)).join('-0.0');
}

describe('fieldValueToJson on JSON-native trees', () => {
  it('gives JSON.stringify for any tree of JSON-native values, with -0 written -0.0', () => {
    fc.assert(
      fc.property(fc.jsonValue({ stringUnit: 'binary' }), (value) => {
        expect(fieldValueToJson(value as FieldValue)).toBe(stringifyKeepingNegativeZero(value));
      }),
      { numRuns: 1000 },
    );
  });

  it('gives the same text through the exact writer as through JSON.stringify', () => {
    // A bigint leaf sends the whole tree to the exact writer; it is written as its digits.
    fc.assert(
      fc.property(fc.jsonValue({ stringUnit: 'binary' }), (value) => {
        expect(fieldValueToJson([value as FieldValue, 1n])).toBe(
          `[${stringifyKeepingNegativeZero(value)},1]`,
        );
      }),
      { numRuns: 1000 },
    );
  });
});

describe('fieldValueToJson on -0', () => {
  it('writes a DOUBLE or FLOAT -0 as -0.0 and +0 as 0, on the native and the exact path', () => {
    expect(fieldValueToJson(-0)).toBe('-0.0');
    expect(fieldValueToJson(0)).toBe('0');
    expect(fieldValueToJson(field('DOUBLE', -0))).toBe('-0.0');
    expect(fieldValueToJson(field('FLOAT', -0))).toBe('-0.0');
    expect(fieldValueToJson(field('FLOAT', 0))).toBe('0');
    expect(fieldValueToJson({ a: -0, b: [0, -0] })).toBe('{"a":-0.0,"b":[0,-0.0]}');
    expect(fieldValueToJson({ a: -0, big: 1n })).toBe('{"a":-0.0,"big":1}');
    expect(fieldValuesToJsonArray([{ a: 1 }, { a: -0 }])).toBe('[{"a":1},{"a":-0.0}]');
    expect(Object.is(JSON.parse(fieldValueToJson(-0)), -0)).toBe(true);
  });
});

describe('fieldValueToJson on list-maps', () => {
  const make = (): ListMap => new ListMapShape(['name', 'b', 'a']).create(['x', 1, 2]);

  it('writes a list-map of string keys as JSON.stringify does', () => {
    expect(fieldValueToJson(make())).toBe('{"name":"x","b":1,"a":2}');
    expect(fieldValuesToJsonArray([make(), make()])).toBe(
      '[{"name":"x","b":1,"a":2},{"name":"x","b":1,"a":2}]',
    );
  });

  it('keeps the key order where JS would put integer-like keys first', () => {
    const m = listMapOf([
      ['b', 1],
      ['10', 2],
      ['2', 3],
    ]);
    expect(fieldValueToJson(m)).toBe('{"b":1,"10":2,"2":3}');
    expect(fieldValueToJson({ nested: [m] })).toBe('{"nested":[{"b":1,"10":2,"2":3}]}');
  });

  it('writes keys added later after the table keys, integer-like ones first among them', () => {
    const m = make();
    m.later = true;
    m['5'] = 'five';
    expect(fieldValueToJson(m)).toBe('{"name":"x","b":1,"a":2,"5":"five","later":true}');
  });

  it('leaves deleted keys out, and puts a re-added table key back in its place', () => {
    const m = make();
    delete m.name;
    expect(fieldValueToJson(m)).toBe('{"b":1,"a":2}');
    m.name = 'y';
    expect(fieldValueToJson(m)).toBe('{"name":"y","b":1,"a":2}');
  });

  it('writes keys named like methods and __proto__ as fields', () => {
    const m = listMapOf([
      ['toJSON', 1],
      ['__proto__', 2],
      ['get', 3],
    ]);
    expect(fieldValueToJson(m)).toBe('{"toJSON":1,"__proto__":2,"get":3}');
  });
});

describe('fieldValuesToJsonArray', () => {
  it('writes an array of the values', () => {
    expect(fieldValuesToJsonArray([])).toBe('[]');
    expect(fieldValuesToJsonArray([{ a: 1 }, 2n, field('DECIMAL', '1.10'), null])).toBe(
      '[{"a":1},2,1.10,null]',
    );
  });
});

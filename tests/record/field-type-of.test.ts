import fc from 'fast-check';
import { doubleValue, field, FIELD_TYPES, type FieldValue } from '../../src/record/field';
import { fieldTypeOf } from '../../src/record/field-type-of';
import { listMapOf } from '../../src/record/list-map';

describe('fieldTypeOf', () => {
  it.each<[string, FieldValue, string]>([
    ['null as STRING (the engine types an untyped null as STRING)', null, 'STRING'],
    ['true as BOOLEAN', true, 'BOOLEAN'],
    ['false as BOOLEAN', false, 'BOOLEAN'],
    ['0 as INTEGER', 0, 'INTEGER'],
    ['-0 as DOUBLE (only DOUBLE keeps its sign)', -0, 'DOUBLE'],
    ['the int32 maximum as INTEGER', 2147483647, 'INTEGER'],
    ['the int32 minimum as INTEGER', -2147483648, 'INTEGER'],
    ['one past the int32 maximum as LONG', 2147483648, 'LONG'],
    ['one below the int32 minimum as LONG', -2147483649, 'LONG'],
    ['the largest safe integer as LONG', Number.MAX_SAFE_INTEGER, 'LONG'],
    ['the smallest safe integer as LONG', Number.MIN_SAFE_INTEGER, 'LONG'],
    ['an integer past 2^53 as DOUBLE', 2 ** 53, 'DOUBLE'],
    ['a fraction as DOUBLE', 1.5, 'DOUBLE'],
    ['NaN as DOUBLE', Number.NaN, 'DOUBLE'],
    ['Infinity as DOUBLE', Number.POSITIVE_INFINITY, 'DOUBLE'],
    ['-Infinity as DOUBLE', Number.NEGATIVE_INFINITY, 'DOUBLE'],
    ['a string as STRING', 'x', 'STRING'],
    ['the empty string as STRING', '', 'STRING'],
    ['a bigint as LONG', 12345678901234567890n, 'LONG'],
    ['a Uint8Array as BYTE_ARRAY', new Uint8Array([1, 2]), 'BYTE_ARRAY'],
    ['a Buffer as BYTE_ARRAY', Buffer.from('ab'), 'BYTE_ARRAY'],
    ['a Date as DATETIME', new Date(0), 'DATETIME'],
    ['an array as LIST', [1, 'a'], 'LIST'],
    ['an empty array as LIST', [], 'LIST'],
    ['a plain object as MAP', { a: 1 }, 'MAP'],
    ['a null-prototype object as MAP', Object.create(null) as FieldValue, 'MAP'],
  ])('types %s', (_label, value, expected) => {
    expect(fieldTypeOf(value)).toBe(expected);
  });

  it.each(FIELD_TYPES)('says the type of a %s typed field, even when its value is null', (type) => {
    expect(fieldTypeOf(field(type, null))).toBe(type);
  });

  it('says the wrapper type, not the type of the wrapped value', () => {
    expect(fieldTypeOf(field('LONG', 5))).toBe('LONG');
    expect(fieldTypeOf(field('SHORT', 5))).toBe('SHORT');
    expect(fieldTypeOf(field('LIST_MAP', listMapOf([])))).toBe('LIST_MAP');
  });

  it('throws a TypeError for values that are not field values', () => {
    expect(() => fieldTypeOf(new Map() as unknown as FieldValue)).toThrow(TypeError);
    expect(() => fieldTypeOf(undefined as unknown as FieldValue)).toThrow(/undefined/);
    expect(() => fieldTypeOf((() => 1) as unknown as FieldValue)).toThrow(/function/);
    class Custom {}
    expect(() => fieldTypeOf(new Custom() as unknown as FieldValue)).toThrow(/Custom/);
  });
});

describe('doubleValue', () => {
  it('is typed DOUBLE for every number, wrapping only what the plain form would call INTEGER or LONG', () => {
    fc.assert(
      fc.property(fc.oneof(fc.double(), fc.integer(), fc.maxSafeInteger()), (n) => {
        const value = doubleValue(n);
        expect(fieldTypeOf(value)).toBe('DOUBLE');
        expect(typeof value === 'number').toBe(fieldTypeOf(n) === 'DOUBLE');
      }),
    );
  });

  it('keeps 2.0 a DOUBLE and -0 its sign', () => {
    expect(doubleValue(2)).toEqual(field('DOUBLE', 2));
    expect(Object.is(doubleValue(-0), -0)).toBe(true);
    expect(doubleValue(1.5)).toBe(1.5);
  });
});

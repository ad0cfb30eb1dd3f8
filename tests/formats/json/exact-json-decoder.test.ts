import fc from 'fast-check';
import {
  decodeJsonExact,
  exactInteger,
  findJsonSyntaxError,
  JsonSyntaxError,
} from '../../../src/formats/json/exact-json-decoder';
import { field, isTypedField, type FieldValue } from '../../../src/record/field';

/** The value JSON.parse would give: exact integers rounded back to doubles. */
function rounded(value: FieldValue): unknown {
  if (typeof value === 'bigint') return Number(value);
  if (isTypedField(value)) return Number(value.value);
  if (Array.isArray(value)) return value.map(rounded);
  if (
    value !== null &&
    typeof value === 'object' &&
    !(value instanceof Uint8Array) &&
    !(value instanceof Date)
  ) {
    const out: Record<string, unknown> = {};
    for (const [key, member] of Object.entries(value)) {
      Object.defineProperty(out, key, {
        value: rounded(member),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    return out;
  }
  return value;
}

function throwsSyntax(text: string): boolean {
  try {
    decodeJsonExact(text);
    return false;
  } catch (error) {
    if (error instanceof JsonSyntaxError) return true;
    throw error;
  }
}

function jsonParseThrows(text: string): boolean {
  try {
    JSON.parse(text);
    return false;
  } catch {
    return true;
  }
}

const JSONISH = [...'{}[]",:0123456789-+.eEtrufalsn \\/u\t\n\r\u0001é'];

describe('decodeJsonExact', () => {
  it('builds what JSON.parse builds for any JSON text, up to integer exactness', () => {
    fc.assert(
      fc.property(fc.json(), (text) => {
        const exact = rounded(decodeJsonExact(text));
        const reference = JSON.parse(text) as unknown;
        expect(exact).toEqual(reference);
        expect(JSON.stringify(exact)).toBe(JSON.stringify(reference));
      }),
      { numRuns: 1000 },
    );
  });

  it('rejects exactly the texts JSON.parse rejects', () => {
    const mutated = fc
      .tuple(fc.json(), fc.nat(), fc.constantFrom(...JSONISH), fc.boolean())
      .map(([text, at, c, replace]) => {
        const i = at % (text.length + 1);
        return text.slice(0, i) + c + text.slice(replace ? i + 1 : i);
      });
    const soup = fc.string({ unit: fc.constantFrom(...JSONISH), maxLength: 12 });
    fc.assert(
      fc.property(fc.oneof(mutated, soup), (text) => {
        expect(throwsSyntax(text)).toBe(jsonParseThrows(text));
      }),
      { numRuns: 3000 },
    );
  });

  it('keeps integers beyond 2^53 exact', () => {
    expect(decodeJsonExact('[9007199254740991, 9007199254740992, -9007199254740993]')).toEqual([
      9007199254740991,
      9007199254740992n,
      -9007199254740993n,
    ]);
  });

  it('handles nesting far deeper than the call stack allows', () => {
    const depth = 200_000;
    const text = `${'['.repeat(depth)}12345678901234567890${']'.repeat(depth)}`;
    let value = decodeJsonExact(text);
    for (let i = 0; i < depth; i++) value = (value as FieldValue[])[0] as FieldValue;
    expect(value).toEqual(field('DECIMAL', '12345678901234567890'));
  });

  it.each([
    ['{"a":1,}', 7, "unexpected character '}' where a property name in double quotes was expected"],
    ['[1 2]', 3, "unexpected character '2' after an array element, where ',' or ']' was expected"],
    ['{"a" 1}', 5, "unexpected character '1' after a property name, where ':' was expected"],
    ['"ab\\x"', 3, "invalid escape sequence '\\x'"],
    ['"\\u12g4"', 1, "invalid escape sequence '\\u12g4'"],
    ['"a\nb"', 2, 'unescaped control character U+000A in a string'],
    ['"open', 0, 'the string is not terminated'],
    ['-', 1, 'a number has no digits after its minus sign'],
    ['1.', 2, 'a number has no digits after its decimal point'],
    ['1e+', 3, 'a number has no digits in its exponent'],
    ['01', 1, "unexpected character '1' after the end of the value"],
    ['[', 1, 'the input ends where a value was expected'],
    ['', 0, 'the input ends where a value was expected'],
    ['{"a":1} x', 8, "unexpected character 'x' after the end of the value"],
    ['[😀]', 1, 'unexpected character U+1F600 where a value was expected'],
  ])('explains why %j is not JSON', (text, position, detail) => {
    expect(jsonParseThrows(text)).toBe(true);
    const error = findJsonSyntaxError(text);
    expect(error).toBeInstanceOf(JsonSyntaxError);
    expect({ position: error?.position, detail: error?.detail }).toEqual({ position, detail });
  });

  it('finds no syntax error in valid JSON', () => {
    expect(findJsonSyntaxError(' {"a": [1, 2.5e-3, "x", true, false, null]} ')).toBeUndefined();
  });
});

describe('exactInteger', () => {
  it.each([
    ['0', 0],
    ['-0', -0],
    ['2147483647', 2147483647],
    ['-2147483649', -2147483649],
    ['999999999999999', 999999999999999],
    ['9007199254740991', 9007199254740991],
    ['-9007199254740991', -9007199254740991],
  ])('keeps %s a number', (token, value) => {
    expect(exactInteger(token)).toBe(value);
  });

  it.each([
    ['9007199254740992', 9007199254740992n],
    ['-9007199254740992', -9007199254740992n],
    ['9223372036854775807', 9223372036854775807n],
    ['-9223372036854775808', -9223372036854775808n],
  ])('makes %s a bigint', (token, value) => {
    expect(exactInteger(token)).toBe(value);
  });

  it.each(['9223372036854775808', '-9223372036854775809', '1' + '0'.repeat(40)])(
    'makes %s a DECIMAL',
    (token) => {
      expect(exactInteger(token)).toEqual(field('DECIMAL', token));
    },
  );
});

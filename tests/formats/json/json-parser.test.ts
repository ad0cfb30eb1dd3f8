import fc from 'fast-check';
import { isOriginError } from '../../../src/errors/origin-error';
import type { ParseResult } from '../../../src/formats/data-format';
import { resolveFormatConfig } from '../../../src/formats/format-config';
import { jsonFormat } from '../../../src/formats/json/json-format';
import type { JsonFormatConfig } from '../../../src/formats/json/json-options';
import { JsonParser, hasLongDigitRun } from '../../../src/formats/json/json-parser';
import { parseWhole } from '../../../src/formats/parse-helpers';
import { field } from '../../../src/record/field';

const source = { originState: new Map<string, unknown>() };

function parser(options: Partial<JsonFormatConfig> = {}): JsonParser {
  return jsonFormat.createParser(resolveFormatConfig(jsonFormat, options), source) as JsonParser;
}

function parse(text: string | Uint8Array, options: Partial<JsonFormatConfig> = {}): ParseResult {
  return parseWhole(jsonFormat, options, typeof text === 'string' ? Buffer.from(text) : text);
}

function values(text: string, options: Partial<JsonFormatConfig> = {}): unknown[] {
  const result = parse(text, options);
  expect(result.failures).toEqual([]);
  return result.records.map((r) => r.value);
}

describe('JSON parser: values', () => {
  it('keeps the key order of objects', () => {
    const [value] = values('{"zeta":1,"alpha":2,"mid":{"y":1,"x":2}}');
    expect(JSON.stringify(value)).toBe('{"zeta":1,"alpha":2,"mid":{"y":1,"x":2}}');
  });

  it('types integers by magnitude on both decoding paths', () => {
    // The second object carries a 16-digit run, so it takes the exact decoder; both must agree on small values.
    const [plain, exact] = values(
      '{"a":1,"b":-2147483648,"c":4294967296} {"a":1,"b":-2147483648,"c":4294967296,"d":9007199254740993}',
    );
    expect(plain).toEqual({ a: 1, b: -2147483648, c: 4294967296 });
    expect(exact).toEqual({ a: 1, b: -2147483648, c: 4294967296, d: 9007199254740993n });
  });

  it('makes integers beyond the signed 64-bit range exact DECIMAL fields', () => {
    expect(values('[18446744073709551615, -9223372036854775809]')).toEqual([
      [field('DECIMAL', '18446744073709551615'), field('DECIMAL', '-9223372036854775809')],
    ]);
  });

  it('reads fractions and exponents as doubles, as JSON.parse does', () => {
    const text = '[0.1, 1e400, -1e-400, 12345678901234567890.5, 1.7976931348623157e308]';
    expect(values(text)).toEqual([JSON.parse(text)]);
  });

  it('takes a repeated key last-value-wins and keeps __proto__ as an own member, on both paths', () => {
    for (const extra of ['', ',"big":12345678901234567890']) {
      const [value] = values(`{"a":1,"__proto__":{"polluted":true},"a":2${extra}}`) as Record<
        string,
        unknown
      >[];
      expect(Object.keys(value!)).toEqual(extra ? ['a', '__proto__', 'big'] : ['a', '__proto__']);
      expect(value!['a']).toBe(2);
      expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
      expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
    }
  });

  it('decodes invalid UTF-8 with replacement characters', () => {
    expect(parse(Uint8Array.of(0x22, 0x61, 0xff, 0xc3, 0x22)).records).toEqual([{ value: 'a\ufffd\ufffd' }]);
  });

  it('decodes a value split inside a multi-byte character', () => {
    const bytes = Buffer.from('{"s":"😀é"}');
    const p = parser();
    const results = [
      p.push(bytes.subarray(0, 7)),
      p.push(bytes.subarray(7, 12)),
      p.push(bytes.subarray(12)),
      p.end(),
    ];
    expect(results.flatMap((r) => r.records)).toEqual([{ value: { s: '😀é' } }]);
  });
});

describe('JSON parser: failures', () => {
  it('reports the byte of a syntax error and keeps going in multipleObjects', () => {
    const result = parse('{"ok":1}\n{"bad": [1 2]}\n{"ok":2}');
    expect(result.records.map((r) => r.value)).toEqual([{ ok: 1 }, { ok: 2 }]);
    expect(result.failures).toEqual([
      expect.objectContaining({
        code: 'ORIGIN_JSON_MALFORMED',
        message:
          "Malformed JSON at byte 20: unexpected character '2' after an array element, where ',' or ']' was expected.",
        recordIndex: 1,
        byteOffset: 9,
        canContinue: true,
      }),
    ]);
  });

  it('ignores all input after a failure that cannot be continued from', () => {
    const p = parser({ jsonContent: 'arrayOfObjects' });
    const first = p.push(Buffer.from('[1] 2'));
    const later = p.push(Buffer.from(' [3] {"x":4}'));
    const last = p.end();
    expect([...first.records, ...later.records, ...last.records]).toEqual([{ value: 1 }]);
    expect([...first.failures, ...later.failures, ...last.failures]).toEqual([
      expect.objectContaining({
        code: 'ORIGIN_JSON_MALFORMED',
        byteOffset: 4,
        excerpt: '2 [3] {"x":4}',
        canContinue: false,
      }),
    ]);
  });

  it('counts offsets of a transcoded body in UTF-8 bytes of the transcoded text', () => {
    const body = Buffer.from('\ufeff{"é":1}\n{"x":}', 'utf16le');
    const result = parse(body, { charset: 'UTF-16LE' });
    expect(result.records).toEqual([{ value: { é: 1 } }]);
    // '{"é":1}\n' is 9 UTF-8 bytes (é takes 2), so the second value starts at byte 9 and its '}' is at byte 14.
    expect(result.failures).toEqual([
      expect.objectContaining({
        byteOffset: 9,
        message: "Malformed JSON at byte 14: unexpected character '}' where a value was expected.",
      }),
    ]);
  });

  it('refuses an unknown charset when the parser is made, as a configuration problem', () => {
    let thrown: unknown;
    try {
      parser({ charset: 'no-such-charset' });
    } catch (error) {
      thrown = error;
    }
    expect(isOriginError(thrown, 'ORIGIN_CHARSET_UNSUPPORTED')).toBe(true);
    expect((thrown as Error).message).toBe(
      "Charset 'no-such-charset' is not supported by this Node.js build.",
    );
  });

  it('counts maxObjectLengthChars in characters, not bytes', () => {
    const fourChars = '"😀😀"'; // 4 characters, 10 bytes
    expect(values(fourChars, { maxObjectLengthChars: 4 })).toEqual(['😀😀']);
    expect(parse(fourChars, { maxObjectLengthChars: 3 }).failures).toEqual([
      expect.objectContaining({ code: 'ORIGIN_JSON_OBJECT_TOO_LONG', canContinue: true }),
    ]);
  });
});

describe('JSON parser: bounded memory', () => {
  /** Feeds `total` bytes produced by `fill` in chunks of `size`, tracking the most the parser held. */
  function stream(p: JsonParser, chunks: Iterable<Uint8Array>): { result: ParseResult; maxBuffered: number } {
    let maxBuffered = 0;
    const records = [];
    const failures = [];
    for (const chunk of chunks) {
      const r = p.push(chunk);
      records.push(...r.records);
      failures.push(...r.failures);
      maxBuffered = Math.max(maxBuffered, p.bufferedBytes);
    }
    const r = p.end();
    return {
      result: { records: [...records, ...r.records], failures: [...failures, ...r.failures] },
      maxBuffered,
    };
  }

  it('skips a 32 MB over-long value without buffering it, then parses the next one', () => {
    const chunk = Buffer.alloc(64 * 1024, 'a'.charCodeAt(0));
    const chunks = function* () {
      yield Buffer.from('{"ok":1} {"blob":"');
      for (let i = 0; i < 512; i++) yield chunk;
      yield Buffer.from('"} {"ok":2}');
    };
    const { result, maxBuffered } = stream(parser({ maxObjectLengthChars: 4096 }), chunks());
    expect(result.records).toEqual([{ value: { ok: 1 } }, { value: { ok: 2 } }]);
    expect(result.failures).toEqual([
      expect.objectContaining({
        code: 'ORIGIN_JSON_OBJECT_TOO_LONG',
        recordIndex: 1,
        byteOffset: 9,
        canContinue: true,
      }),
    ]);
    expect(result.failures[0]?.excerpt).toBe(`{"blob":"${'a'.repeat(247)}`);
    // Within the limit the value's text is kept (at most 4 bytes a character); past it only the excerpt's head.
    expect(maxBuffered).toBeLessThanOrEqual(4096 * 4);
  });

  it('parses a 100 MB multipleObjects body chunk by chunk holding at most one value', () => {
    const line = Buffer.from(`${JSON.stringify({ id: 1, text: 'x'.repeat(900), list: [1, 2, 3] })}\n`);
    const perChunk = 64;
    const chunk = Buffer.concat(Array.from({ length: perChunk }, () => line));
    const count = Math.ceil((100 * 1024 * 1024) / chunk.length);
    // Chunks cut across values: each pushed piece is a chunk shifted by a third of a line.
    const shift = Math.floor(line.length / 3);
    const pieces = function* () {
      yield chunk.subarray(0, shift);
      for (let i = 0; i < count - 1; i++)
        yield Buffer.concat([chunk.subarray(shift), chunk.subarray(0, shift)]);
      yield chunk.subarray(shift);
    };
    const p = parser({ maxObjectLengthChars: 1024 });
    let records = 0;
    let maxBuffered = 0;
    for (const piece of pieces()) {
      const r = p.push(piece);
      expect(r.failures).toEqual([]);
      records += r.records.length;
      maxBuffered = Math.max(maxBuffered, p.bufferedBytes);
    }
    records += p.end().records.length;
    expect(records).toBe(count * perChunk);
    expect(maxBuffered).toBeLessThan(line.length);
  });
});

describe('parseAll on a whole, well-formed body', () => {
  const parser = (options: Partial<ConstructorParameters<typeof JsonParser>[0]> = {}) =>
    new JsonParser({
      jsonContent: 'arrayOfObjects',
      maxObjectLengthChars: 4096,
      maxNestingDepth: 500,
      charset: 'UTF-8',
      ignoreControlCharacters: false,
      ...options,
    });
  const pushed = (p: JsonParser, bytes: Buffer) => {
    const first = p.push(bytes);
    const last = p.end();
    return { records: [...first.records, ...last.records], failures: [...first.failures, ...last.failures] };
  };

  it.each([
    ['an array of objects', 'arrayOfObjects', '[{"a":1},{"b":[true,null,"x"]},3]'],
    ['one object', 'multipleObjects', '\ufeff {"a":{"b":"ü"}} '],
    ['a digit run inside a string', 'arrayOfObjects', '[{"phone":"12345678901234567"}]'],
    ['an integer beyond 2^53', 'arrayOfObjects', '[{"id":9007199254740993}]'],
    ['a negative one deep in an array', 'arrayOfObjects', '[{"a":{"b":[1,[-9007199254740993]]}}]'],
    ['one beyond 2^64', 'multipleObjects', '{"d":123456789012345678901234567890}'],
    ['one as the whole value', 'multipleObjects', '9007199254740993'],
    ['the largest safe integer', 'arrayOfObjects', '[9007199254740991,-9007199254740991]'],
    ['numbers past a double', 'arrayOfObjects', '[1e400,-1e400,12345678901234567890.5]'],
    ['several objects', 'multipleObjects', '{"a":1} {"a":2}'],
    ['a scalar where an array is expected', 'arrayOfObjects', '{"a":1}'],
  ] as const)('gives what push and end give for %s', (_, jsonContent, text) => {
    const bytes = Buffer.from(text);
    // A text longer than twice the depth limit is checked by a walk of its decoded value, a shorter one by a scan.
    for (const maxNestingDepth of [500, 5]) {
      const options = { jsonContent, maxNestingDepth };
      expect(parser(options).parseAll(bytes)).toEqual(pushed(parser(options), bytes));
    }
  });

  it('still reports an element over maxObjectLengthChars when the body is longer than the limit', () => {
    const bytes = Buffer.from(`[{"s":"${'x'.repeat(40)}"},{"a":1}]`);
    const result = parser({ maxObjectLengthChars: 30 }).parseAll(bytes);
    expect(result.records.map((r) => r.value)).toEqual([{ a: 1 }]);
    expect(result.failures.map((f) => f.code)).toEqual(['ORIGIN_JSON_OBJECT_TOO_LONG']);
  });
});

describe('JSON parser: nesting depth', () => {
  const nested = (depth: number): string => '['.repeat(depth) + ']'.repeat(depth);
  const big = { maxObjectLengthChars: 1_000_000 };

  it('refuses a value nested deeper than maxNestingDepth and goes on with the next one', () => {
    for (const chunk of [undefined, 7]) {
      const text = `${nested(501)} {"a":{"b":[1]}} ${nested(500)}`;
      const bytes = Buffer.from(text);
      const p = parser(big);
      const results: ParseResult[] = [];
      if (chunk === undefined) results.push(p.parseAll(bytes));
      else {
        for (let i = 0; i < bytes.length; i += chunk) results.push(p.push(bytes.subarray(i, i + chunk)));
        results.push(p.end());
      }
      const records = results.flatMap((r) => r.records.map((x) => x.value));
      const failures = results.flatMap((r) => r.failures);
      expect(records).toHaveLength(2);
      expect(records[0]).toEqual({ a: { b: [1] } });
      expect(failures).toEqual([
        expect.objectContaining({
          code: 'ORIGIN_JSON_TOO_DEEP',
          recordIndex: 0,
          byteOffset: 0,
          canContinue: true,
          message: expect.stringContaining('maxNestingDepth 500') as unknown,
        }),
      ]);
    }
  });

  it('takes the depth limit from maxNestingDepth, on the whole-body path too', () => {
    expect(parse(nested(3), { maxNestingDepth: 2 }).failures).toMatchObject([
      { code: 'ORIGIN_JSON_TOO_DEEP' },
    ]);
    expect(parse(nested(2), { maxNestingDepth: 2 }).failures).toEqual([]);
    expect(parse(`[${nested(3)}]`, { maxNestingDepth: 3, jsonContent: 'arrayOfObjects' }).failures).toEqual(
      [],
    );
    expect(
      parse(`[${nested(4)}]`, { maxNestingDepth: 3, jsonContent: 'arrayOfObjects' }).failures,
    ).toMatchObject([{ code: 'ORIGIN_JSON_TOO_DEEP' }]);
    // Brackets inside strings do not count.
    expect(parse('["[[[[[[[["]', { maxNestingDepth: 1 }).failures).toEqual([]);
  });

  it('refuses 10,000 levels with the length limit raised, instead of failing at render', () => {
    expect(parse(nested(10_000), big).failures).toMatchObject([{ code: 'ORIGIN_JSON_TOO_DEEP' }]);
  });
});

describe('hasLongDigitRun (the long-integer check of a short body parsed whole)', () => {
  it('finds a run of 16 digits wherever it lies, as /\\d{16}/ does', () => {
    // Digit runs of 10 to 20 around other characters, so that runs near 16 come often and at any offset.
    const digitsAndOthers = fc
      .array(fc.oneof(fc.stringMatching(/^[0-9]{10,20}$/), fc.stringMatching(/^[a",.\-e ]{1,3}$/)), {
        maxLength: 8,
      })
      .map((parts) => parts.join(''));
    fc.assert(
      fc.property(digitsAndOthers, (text) => {
        expect(hasLongDigitRun(text)).toBe(/\d{16}/.test(text));
      }),
      { numRuns: 2000 },
    );
  });

  it('sees runs of exactly 16 at every offset, and never one of 15', () => {
    for (let at = 0; at < 40; at++) {
      expect(hasLongDigitRun(`${'x'.repeat(at)}${'9'.repeat(16)}x`)).toBe(true);
      expect(hasLongDigitRun(`${'x'.repeat(at)}${'9'.repeat(15)}x${'9'.repeat(15)}`)).toBe(false);
    }
  });
});

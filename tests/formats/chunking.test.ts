import fc from 'fast-check';
import { parseWhole } from '../../src/formats/parse-helpers';
import { delimitedFormat } from '../../src/formats/delimited/delimited-format';
import { jsonFormat } from '../../src/formats/json/json-format';
import { listMapEntries, type ListMap } from '../../src/record/list-map';
import { loadFixtureCases, parseChunks, type FixtureCase } from './fixture-cases';

const cases = loadFixtureCases();
const named = cases.map((c) => [c.name, c] as const);

/** `input` cut at the given offsets (any order, repeats allowed: a repeat makes an empty chunk). */
function split(input: Buffer, cuts: number[]): Buffer[] {
  const points = [...cuts].sort((a, b) => a - b);
  const chunks: Buffer[] = [];
  let from = 0;
  for (const point of points) {
    chunks.push(input.subarray(from, point));
    from = point;
  }
  chunks.push(input.subarray(from));
  return chunks;
}

/** Whole-input result, the reference every chunking must match. */
function reference(c: FixtureCase) {
  return parseChunks(c, [c.input]);
}

describe('any chunking of a fixture gives the same records and failures', () => {
  it.each(named)('%s: parseAll equals one push', (_, c) => {
    expect(parseWhole(c.format, c.options, c.input)).toEqual(reference(c));
  });

  it.each(named)('%s: random split points', (_, c) => {
    const expected = reference(c);
    fc.assert(
      fc.property(fc.array(fc.nat({ max: c.input.length }), { maxLength: 12 }), (cuts) => {
        expect(parseChunks(c, split(c.input, cuts))).toEqual(expected);
      }),
      { numRuns: 150 },
    );
  });

  it.each(named.filter(([, c]) => c.input.length <= 4096))('%s: one byte per chunk', (_, c) => {
    const bytes = [...c.input].map((b) => Uint8Array.of(b));
    expect(parseChunks(c, bytes)).toEqual(reference(c));
  });

  it.each(named)('%s: every chunk copied into one reused buffer', (_, c) => {
    // The caller may reuse its buffer once push returns; the parser must have copied what it keeps.
    const scratch = new Uint8Array(7);
    const chunks = (function* () {
      for (let at = 0; at < c.input.length; at += scratch.length) {
        const part = c.input.subarray(at, at + scratch.length);
        scratch.fill(0x7b);
        scratch.set(part);
        yield scratch.subarray(0, part.length);
      }
    })();
    expect(parseChunks(c, chunks)).toEqual(reference(c));
  });
});

describe('any chunking of generated JSON gives the records JSON.parse gives', () => {
  const whitespace = fc.string({ unit: fc.constantFrom(' ', '\n', '\t', '\r'), maxLength: 3 });
  const body = fc.array(fc.tuple(fc.jsonValue(), whitespace, fc.boolean()), { maxLength: 8 });

  /** JSON.parse's value, with exact integers the parser made rounded back to doubles for comparison. */
  function rounded(value: unknown): unknown {
    if (typeof value === 'bigint') return Number(value);
    if (value !== null && typeof value === 'object' && 'type' in value && 'value' in value) {
      return Number((value as { value: string }).value);
    }
    if (Array.isArray(value)) return value.map(rounded);
    if (value !== null && typeof value === 'object') {
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, rounded(v)]));
    }
    return value;
  }

  it.each(['multipleObjects', 'arrayOfObjects'] as const)('%s', (jsonContent) => {
    fc.assert(
      fc.property(body, fc.array(fc.nat(), { maxLength: 10 }), (values, cuts) => {
        const texts = values.map(([v, ws, pretty]) => JSON.stringify(v, null, pretty ? 2 : undefined) + ws);
        const text = jsonContent === 'arrayOfObjects' ? `[${texts.join(',')}]` : texts.join(' ');
        const input = Buffer.from(text);
        const c = {
          format: jsonFormat,
          name: 'generated',
          input,
          options: { jsonContent, maxObjectLengthChars: 1_000_000 },
          records: [],
          failures: [],
        };
        const result = parseChunks(
          c,
          split(
            input,
            cuts.map((n) => n % (input.length + 1)),
          ),
        );
        expect(result.failures).toEqual([]);
        expect(result.records.map((r) => rounded(r.value))).toEqual(
          values.map(([v]) => JSON.parse(JSON.stringify(v))),
        );
      }),
      { numRuns: 300 },
    );
  });
});

describe('any chunking of generated CSV gives the rows it was written from', () => {
  const cell = fc.string({
    unit: fc.constantFrom('a', 'é', '😀', ',', '"', '\n', '\r', ' ', '|', '\\'),
    maxLength: 6,
  });
  const rows = fc.array(fc.array(cell, { minLength: 1, maxLength: 5 }), { minLength: 1, maxLength: 6 });

  /** RFC 4180 text of `table`: every cell quoted, so that empty rows and lone empty cells survive. */
  function toCsv(table: string[][], lineBreak: string): string {
    return (
      table.map((row) => row.map((v) => `"${v.replace(/"/g, '""')}"`).join(',')).join(lineBreak) + lineBreak
    );
  }

  it.each(['\n', '\r\n'])('rfc4180 with line break %j', (lineBreak) => {
    fc.assert(
      fc.property(rows, fc.array(fc.nat(), { maxLength: 10 }), (table, cuts) => {
        const input = Buffer.from(toCsv(table, lineBreak));
        const c = {
          format: delimitedFormat,
          name: 'generated',
          input,
          options: { delimiterFormatType: 'rfc4180', maxRecordLengthChars: 1_000_000 },
          records: [],
          failures: [],
        };
        const result = parseChunks(
          c,
          split(
            input,
            cuts.map((n) => n % (input.length + 1)),
          ),
        );
        expect(result.failures).toEqual([]);
        expect(
          result.records.map((r) => listMapEntries(r.value as ListMap).map(([, value]) => value)),
        ).toEqual(table);
      }),
      { numRuns: 300 },
    );
  });
});

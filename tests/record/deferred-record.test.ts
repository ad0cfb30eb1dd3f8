import fc from 'fast-check';
import { DataRecord } from '../../src/record/data-record';
import {
  DeferredRecord,
  deferredRequestRecord,
  deferredText,
  valueToWrite,
} from '../../src/record/deferred-record';
import { requestRecord } from '../../src/record/data-record';
import type { ParseResult } from '../../src/formats/data-format';
import { loadFixtureCases, parserFor, type FixtureCase } from '../formats/fixture-cases';

// Decision 0125: a large body's records keep their value as source text, decoded on first read. To every reader
// they are records like any other, and a parser that defers gives exactly the records and failures it gives
// without deferring.

const cases = loadFixtureCases().filter((c) => c.format.name === 'json' || c.format.name === 'delimited');

/** The fixture parsed in `chunks` by a parser asked to defer from the start; values decoded as a reader would. */
function deferredParse(
  c: FixtureCase,
  chunks: Iterable<Uint8Array>,
): { result: ParseResult; deferred: number } {
  const parser = parserFor(c);
  parser.deferValues!();
  const results: ParseResult[] = [];
  for (const chunk of chunks) results.push(parser.push(chunk));
  results.push(parser.end());
  let deferred = 0;
  const records = results.flatMap((r) => r.records);
  return {
    result: {
      records: records.map((record) => {
        if (record.deferred === undefined) return record;
        deferred++;
        expect(record.value).toBeNull();
        return { value: record.deferred.decode(deferredText(record.deferred)) };
      }),
      failures: results.flatMap((r) => r.failures),
    },
    deferred,
  };
}

function eagerParse(c: FixtureCase): ParseResult {
  const parser = parserFor(c);
  const first = parser.push(c.input);
  const last = parser.end();
  return { records: [...first.records, ...last.records], failures: [...first.failures, ...last.failures] };
}

describe('a parser asked to defer values gives the records and failures it gives otherwise', () => {
  it('covers both formats that defer', () => {
    expect(new Set(cases.map((c) => c.format.name))).toEqual(new Set(['json', 'delimited']));
  });

  it.each(cases.map((c) => [c.name, c] as const))('%s', (_, c) => {
    const expected = eagerParse(c);
    const whole = deferredParse(c, [c.input]);
    expect(whole.result).toEqual(expected);
    fc.assert(
      fc.property(fc.array(fc.nat({ max: c.input.length }), { maxLength: 8 }), (cuts) => {
        const points = [...cuts].sort((a, b) => a - b);
        const chunks: Buffer[] = [];
        let from = 0;
        for (const point of points) {
          chunks.push(c.input.subarray(from, point));
          from = point;
        }
        chunks.push(c.input.subarray(from));
        expect(deferredParse(c, chunks).result).toEqual(expected);
      }),
      { numRuns: 40 },
    );
  });

  it('defers the rows of an ordinary CSV body and the values of a JSON body', () => {
    const csv = cases.find((c) => c.format.name === 'delimited' && eagerParse(c).records.length > 2);
    const json = cases.find((c) => c.format.name === 'json' && eagerParse(c).records.length > 2);
    for (const c of [csv!, json!]) expect(deferredParse(c, [c.input]).deferred).toBeGreaterThan(0);
  });
});

const TEXT = '{"a":1,"b":{"c":"x"}}';
/** The text as a parser keeps it: a string, or its UTF-8 inside bytes shared with other records (decision 0135). */
const FORMS = [
  { form: 'a string', deferred: (decode: (text: string) => unknown) => ({ text: TEXT, decode }) },
  {
    form: 'bytes in an arena block',
    deferred: (decode: (text: string) => unknown) => {
      const bytes = Buffer.from(`xx${TEXT}yyy`);
      return { bytes, start: 2, end: 2 + TEXT.length, decode };
    },
  },
];

describe.each(FORMS)('DeferredRecord, its text kept as $form', ({ deferred }) => {
  const source = { requestId: 'req-1', baseAttributes: Object.freeze({ method: 'POST' }) };
  let decodes = 0;
  const decode = (text: string): { a: number; b: { c: string } } => {
    decodes++;
    return JSON.parse(text) as { a: number; b: { c: string } };
  };
  const make = (): DataRecord =>
    deferredRequestRecord(deferred(decode) as Parameters<typeof deferredRequestRecord>[0], source, 7, {
      extra: 'y',
    });

  beforeEach(() => {
    decodes = 0;
  });

  it('decodes its value on first read and keeps it, with the changes a stage makes', () => {
    const record = make() as DeferredRecord;
    expect(record.isDeferred).toBe(true);
    expect(decodes).toBe(0);
    expect(record.value).toEqual({ a: 1, b: { c: 'x' } });
    expect(record.isDeferred).toBe(false);
    record.set('/b/c', 'changed');
    expect(record.get('/b/c')).toBe('changed');
    expect((record.value as { b: { c: string } }).b.c).toBe('changed');
    expect(decodes).toBe(1);
  });

  it('takes an assigned value without decoding', () => {
    const record = make();
    record.value = 'replaced';
    expect(record.value).toBe('replaced');
    expect(decodes).toBe(0);
  });

  it('is written by a renderer without keeping the decoded value', () => {
    const record = make() as DeferredRecord;
    expect(valueToWrite(record)).toEqual({ a: 1, b: { c: 'x' } });
    expect(record.isDeferred).toBe(true);
    expect(valueToWrite(record)).toEqual(record.value);
    // Once read (and possibly changed), the kept value is what is written.
    record.set('/a', 2);
    expect(valueToWrite(record)).toEqual({ a: 2, b: { c: 'x' } });
  });

  it('has the header of the request record it stands for, and clones into an ordinary record', () => {
    const record = make();
    const plain = requestRecord({ a: 1, b: { c: 'x' } }, source, 7, { extra: 'y' });
    expect(record.header.sourceId).toBe(plain.header.sourceId);
    expect(record.header.attributes).toEqual(plain.header.attributes);
    const copy = record.clone();
    expect(copy).toBeInstanceOf(DataRecord);
    expect(copy).not.toBeInstanceOf(DeferredRecord);
    expect(copy.value).toEqual(record.value);
    expect(copy.header.sourceId).toBe('req-1::7');
  });

  it('shows its value to JSON.stringify and to a spread of its value, like any record', () => {
    const record = make();
    expect(JSON.parse(JSON.stringify({ value: record.value }))).toEqual({ value: { a: 1, b: { c: 'x' } } });
    expect('value' in record).toBe(true);
    expect(new DataRecord(1).value).toBe(1);
    expect(Object.keys(new DataRecord(1))).toEqual(['value']);
  });
});

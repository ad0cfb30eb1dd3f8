import fc from 'fast-check';
import {
  ENGINE_RECORD_MAGIC_JSON_V1,
  writeEngineRecords,
} from '../../../src/formats/engine-record/engine-record-codec';
import {
  engineRecordFormat,
  readEngineRecords,
} from '../../../src/formats/engine-record/engine-record-format';
import { parseStream, parseWhole } from '../../../src/formats/parse-helpers';
import { DataRecord, type FieldView } from '../../../src/record/data-record';
import {
  field,
  type FieldAttributes,
  type FieldType,
  type FieldValue,
  type PlainMap,
  type TypedValueOf,
} from '../../../src/record/field';
import { isListMap, listMapEntries, listMapOf } from '../../../src/record/list-map';

/** A field in a form that compares exactly: every node as its typed view, LONG as bigint, bytes as hex. */
function canonical(view: FieldView | undefined): unknown {
  if (view === undefined) throw new Error('no field');
  const { type, value, attributes } = view;
  const attrs = attributes === undefined ? undefined : { ...attributes };
  if (value === null) return { type, value: null, attrs };
  switch (type) {
    case 'LONG':
      return { type, value: BigInt(value), attrs };
    case 'BYTE_ARRAY':
      return { type, value: Buffer.from(value).toString('hex'), attrs };
    case 'DATE':
    case 'DATETIME':
    case 'TIME':
      return { type, value: value.getTime(), attrs };
    case 'MAP':
      return {
        type,
        value: Object.keys(value).map((k) => [k, canonical(viewOf(value[k] as FieldValue))]),
        attrs,
      };
    case 'LIST':
      return { type, value: value.map((item) => canonical(viewOf(item))), attrs };
    case 'LIST_MAP': {
      const entries = isListMap(value) ? listMapEntries(value) : [...value];
      return { type, value: entries.map(([k, item]) => [k, canonical(viewOf(item))]), attrs };
    }
    default:
      return { type, value, attrs };
  }
}

function viewOf(node: FieldValue): FieldView | undefined {
  return new DataRecord(node).field('/');
}

function canonicalRecord(record: DataRecord): unknown {
  const { header } = record;
  return {
    value: canonical(record.field('/')),
    attributes: header.attributes(),
    sourceId: header.sourceId,
    error: [header.errorCode, header.errorMessage, header.errorStage, header.errorTimestamp],
    isErrorRecord: header.isErrorRecord,
  };
}

const text = fc.string({ unit: 'binary', maxLength: 12 });
const key = fc.oneof(text, fc.constantFrom('__proto__', '0', '10', '2', 'constructor', 'a/b', ''));
const attributes: fc.Arbitrary<FieldAttributes | undefined> = fc.option(
  fc.dictionary(key, text, { maxKeys: 3 }),
  { nil: undefined },
);
const anyDouble = fc.double();
const anyDate = fc.date();

const scalarOf: { [T in FieldType]?: fc.Arbitrary<TypedValueOf[T]> } = {
  BOOLEAN: fc.boolean(),
  CHAR: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 1 }),
  BYTE: fc.integer({ min: -128, max: 127 }),
  SHORT: fc.integer({ min: -32768, max: 32767 }),
  INTEGER: fc.integer(),
  LONG: fc.oneof(fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }), fc.maxSafeInteger()),
  FLOAT: fc.float().map((f) => f),
  DOUBLE: anyDouble,
  DECIMAL: fc.tuple(fc.bigInt(), fc.nat({ max: 6 })).map(([digits, scale]) => {
    const s = (digits < 0n ? -digits : digits).toString().padStart(scale + 1, '0');
    const sign = digits < 0n ? '-' : '';
    return scale === 0 ? `${sign}${s}` : `${sign}${s.slice(0, -scale)}.${s.slice(-scale)}`;
  }),
  DATE: anyDate,
  DATETIME: anyDate,
  TIME: anyDate,
  ZONED_DATETIME: fc.constantFrom('2024-03-01T10:00:00+01:00[Europe/Paris]', '1970-01-01T00:00:00Z'),
  STRING: text,
  BYTE_ARRAY: fc.uint8Array({ maxLength: 16 }),
};

const typedScalar: fc.Arbitrary<FieldValue> = fc.oneof(
  ...Object.entries(scalarOf).map(([type, arb]) =>
    fc
      .tuple(fc.option(arb as fc.Arbitrary<TypedValueOf[FieldType]>), attributes)
      .map(([value, attrs]) => field(type as FieldType, value, attrs)),
  ),
);

const plainScalar: fc.Arbitrary<FieldValue> = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.integer(),
  fc.maxSafeInteger(),
  anyDouble,
  fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }),
  text,
  fc.uint8Array({ maxLength: 8 }),
  anyDate,
);

const tree = fc.letrec<{ node: FieldValue }>((tie) => ({
  node: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    plainScalar,
    typedScalar,
    fc.array(tie('node'), { maxLength: 4 }),
    fc.dictionary(key, tie('node'), { maxKeys: 4 }) as fc.Arbitrary<PlainMap>,
    fc
      .tuple(fc.uniqueArray(fc.tuple(key, tie('node')), { selector: ([k]) => k, maxLength: 4 }), attributes)
      .map(([entries, attrs]) => field('LIST_MAP', listMapOf(entries), attrs)),
    fc
      .uniqueArray(fc.tuple(key, tie('node')), { selector: ([k]) => k, maxLength: 4 })
      .map((entries) => listMapOf(entries)),
    fc
      .tuple(fc.dictionary(key, tie('node'), { maxKeys: 3 }), attributes)
      .map(([map, attrs]) => field('MAP', map as PlainMap, attrs)),
    fc
      .tuple(fc.array(tie('node'), { maxLength: 3 }), attributes)
      .map(([list, attrs]) => field('LIST', list, attrs)),
  ),
})).node;

const record = fc
  .record({
    value: tree,
    sourceId: text,
    attrs: fc.dictionary(key, text, { maxKeys: 4 }),
    error: fc.option(
      fc.record({ code: text, message: text, stage: text, timestamp: fc.integer({ min: 0, max: 2 ** 45 }) }),
    ),
  })
  .map(({ value, sourceId, attrs, error }) => {
    const made = new DataRecord(value, { sourceId, attributes: attrs });
    return error === null ? made : DataRecord.createErrorRecord(made, error);
  });

describe('Engine Record format', () => {
  it('reads back exactly what was written, for records of every field type', () => {
    fc.assert(
      fc.property(fc.array(record, { maxLength: 4 }), (records) => {
        const { records: read, failures } = readEngineRecords(writeEngineRecords(records));
        expect(failures).toEqual([]);
        expect(read.map(canonicalRecord)).toEqual(records.map(canonicalRecord));
      }),
      { numRuns: 300 },
    );
  });

  it('gives the same records however the body is cut into chunks', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(record, { maxLength: 3 }),
        fc.array(fc.nat(), { maxLength: 6 }),
        async (rs, cuts) => {
          const body = writeEngineRecords(rs);
          const points = [...new Set(cuts.map((c) => c % (body.length + 1)))].sort((a, b) => a - b);
          const chunks = [...points, body.length].map((end, i) =>
            body.subarray(i === 0 ? 0 : points[i - 1], end),
          );
          const streamed = await parseStream(engineRecordFormat, {}, chunks);
          const whole = parseWhole(engineRecordFormat, {}, body);
          expect(streamed.failures).toEqual([]);
          expect(streamed.records.map((r) => canonical(viewOf(r.value)))).toEqual(
            whole.records.map((r) => canonical(viewOf(r.value))),
          );
        },
      ),
      { numRuns: 100 },
    );
  });

  it('reads an error record back as an error record with its original value and header', () => {
    const original = new DataRecord(
      { id: 7n, price: field('DECIMAL', '1.50') },
      { attributes: { path: '/x' } },
    );
    const error = DataRecord.createErrorRecord(original, {
      code: 'ORIGIN_JSON_MALFORMED',
      message: 'ORIGIN_JSON_MALFORMED - bad',
      stage: 'rest-origin',
      timestamp: 1_700_000_000_000,
    });
    const [read] = readEngineRecords(writeEngineRecords([error])).records;
    expect(read?.header.isErrorRecord).toBe(true);
    expect(read?.header.errorCode).toBe('ORIGIN_JSON_MALFORMED');
    expect(read?.header.errorMessage).toBe('ORIGIN_JSON_MALFORMED - bad');
    expect(read?.header.errorStage).toBe('rest-origin');
    expect(read?.header.errorTimestamp).toBe(1_700_000_000_000);
    expect(read?.header.getAttribute('path')).toBe('/x');
    expect(read?.field('/price')).toEqual({ type: 'DECIMAL', value: '1.50', attributes: undefined });
    expect(read?.get('/id')).toBe(7n);
  });

  it('writes the magic byte 0xA1 and one line per record', () => {
    const body = writeEngineRecords([new DataRecord('a'), new DataRecord(field('FLOAT', NaN))]);
    expect(body[0]).toBe(ENGINE_RECORD_MAGIC_JSON_V1);
    const lines = body.subarray(1).toString('utf8').split('\n');
    expect(lines).toHaveLength(3);
    expect(JSON.parse(lines[1] ?? '')).toEqual({
      header: { sourceId: '', values: {} },
      value: { type: 'FLOAT', value: 'NaN' },
    });
  });

  it('refuses a body with a wrong magic byte as a whole', () => {
    const body = Buffer.from('{"header":{},"value":{"type":"STRING","value":"x"}}\n');
    expect(parseWhole(engineRecordFormat, {}, body)).toEqual({
      records: [],
      failures: [
        expect.objectContaining({
          code: 'ORIGIN_ENGINE_RECORD_MAGIC_INVALID',
          scope: 'stage',
          canContinue: false,
        }),
      ],
    });
  });

  it('refuses a later format version by its own code', () => {
    const body = Buffer.concat([Buffer.from([0xa2]), Buffer.from('anything')]);
    const { failures } = parseWhole(engineRecordFormat, {}, body);
    expect(failures.map((f) => [f.code, f.scope])).toEqual([
      ['ORIGIN_ENGINE_RECORD_VERSION_UNSUPPORTED', 'stage'],
    ]);
  });

  it('keeps the records before a truncated one and reports the cut', () => {
    const body = writeEngineRecords([new DataRecord('first'), new DataRecord('second')]);
    const cut = body.subarray(0, body.length - 5);
    const { records, failures } = parseWhole(engineRecordFormat, {}, cut);
    expect(records.map((r) => r.value)).toEqual(['first']);
    expect(failures).toEqual([
      expect.objectContaining({
        code: 'ORIGIN_ENGINE_RECORD_TRUNCATED',
        recordIndex: 1,
        byteOffset: body.indexOf('\n') + 1,
        canContinue: false,
      }),
    ]);
  });

  it('reports a malformed record and goes on with the next line', () => {
    const good = writeEngineRecords([new DataRecord('ok')])
      .subarray(1)
      .toString('utf8');
    const body = Buffer.concat([
      Buffer.from([0xa1]),
      Buffer.from('{"header":{},"value":{"type":"WIDGET","value":1}}\n' + good),
    ]);
    const { records, failures } = parseWhole(engineRecordFormat, {}, body);
    expect(records.map((r) => r.value)).toEqual(['ok']);
    expect(failures).toEqual([
      expect.objectContaining({
        code: 'ORIGIN_ENGINE_RECORD_MALFORMED',
        recordIndex: 0,
        byteOffset: 1,
        canContinue: true,
        message: expect.stringContaining('unknown type "WIDGET"') as unknown,
      }),
    ]);
  });

  it('refuses a malformed value of a typed field as a failed record, not a crash later', () => {
    const malformed: [string, unknown][] = [
      ['DECIMAL', '12;340'],
      ['DECIMAL', ''],
      ['DECIMAL', '.'],
      ['DECIMAL', '1e'],
      ['CHAR', ''],
      ['CHAR', 'ab'],
      ['BYTE', 128],
      ['BYTE', -129],
      ['SHORT', 32768],
      ['INTEGER', 2 ** 31],
      ['INTEGER', -(2 ** 31) - 1],
      ['LONG', '9223372036854775808'],
      ['LONG', '-9223372036854775809'],
      ['DATE', 1.5],
      ['DATETIME', 'yesterday'],
      ['TIME', true],
      ['ZONED_DATETIME', 'next tuesday'],
      ['ZONED_DATETIME', '2024-03-01 10:00'],
      ['ZONED_DATETIME', '2024-03-01T10:00:00'],
    ];
    const good = writeEngineRecords([new DataRecord('ok')])
      .subarray(1)
      .toString('utf8');
    for (const [type, value] of malformed) {
      const line = JSON.stringify({ header: {}, value: { type, value } });
      const body = Buffer.concat([Buffer.from([0xa1]), Buffer.from(`${line}\n${good}`)]);
      const { records, failures } = parseWhole(engineRecordFormat, {}, body);
      expect({ type, value, read: records.map((r) => r.value) }).toEqual({ type, value, read: ['ok'] });
      expect(failures).toEqual([
        expect.objectContaining({
          code: 'ORIGIN_ENGINE_RECORD_MALFORMED',
          recordIndex: 0,
          canContinue: true,
        }),
      ]);
    }
  });

  it('refuses a record nested deeper than 500 levels as a failed record', () => {
    const nestedList = (depth: number): unknown => {
      let value: unknown = { type: 'LIST', value: [] };
      for (let i = 1; i < depth; i++) value = { type: 'LIST', value: [value] };
      return value;
    };
    const line = (depth: number): string => `${JSON.stringify({ header: {}, value: nestedList(depth) })}\n`;
    const body = Buffer.concat([Buffer.from([0xa1]), Buffer.from(line(501) + line(500))]);
    const { records, failures } = parseWhole(engineRecordFormat, {}, body);
    expect(records).toHaveLength(1);
    expect(failures).toEqual([
      expect.objectContaining({
        code: 'ORIGIN_ENGINE_RECORD_MALFORMED',
        recordIndex: 0,
        canContinue: true,
        message: expect.stringContaining('nests deeper than 500') as unknown,
      }),
    ]);
  });

  it('reads the edge values of every typed field', () => {
    const edges: [FieldType, unknown][] = [
      ['DECIMAL', '-12.340'],
      ['DECIMAL', '+.5e-3'],
      ['CHAR', 'é'],
      ['CHAR', '👍🏽'],
      ['BYTE', -128],
      ['SHORT', 32767],
      ['INTEGER', -(2 ** 31)],
      ['LONG', '-9223372036854775808'],
      ['DATE', 'NaN'],
      ['ZONED_DATETIME', '2024-03-01T10:00+01:00[Europe/Paris]'],
      ['ZONED_DATETIME', '+12024-03-01T10:00:00.123456789-05:30'],
    ];
    for (const [type, value] of edges) {
      const line = JSON.stringify({ header: {}, value: { type, value } });
      const body = Buffer.concat([Buffer.from([0xa1]), Buffer.from(`${line}\n`)]);
      const { failures } = parseWhole(engineRecordFormat, {}, body);
      expect({ type, value, failures }).toEqual({ type, value, failures: [] });
    }
  });

  it('gives no records and no failures for an empty body', () => {
    expect(parseWhole(engineRecordFormat, {}, Buffer.alloc(0))).toEqual({ records: [], failures: [] });
  });

  it('refuses options, since the format has none of its own', () => {
    expect(() => parseWhole(engineRecordFormat, { charset: 'UTF-8' }, Buffer.alloc(0))).toThrow(/charset/);
  });
});

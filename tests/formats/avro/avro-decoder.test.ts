import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import avro from 'avsc';
import fc from 'fast-check';
import { avroFormat } from '../../../src/formats/avro/avro-format';
import { AvroDecodeError, AvroDecoder } from '../../../src/formats/avro/avro-decoder';
import { parseWhole } from '../../../src/formats/parse-helpers';
import { TypedField, type FieldValue } from '../../../src/record/field';
import { isListMap, listMapEntries, type ListMap } from '../../../src/record/list-map';
import { avroFieldValue, avroTypeFor, avroWriterTypeFor } from './avsc-oracle';

// ---------------------------------------------------------------------------------------------------------------
// Comparing values: toEqual takes a Buffer for a Uint8Array and ignores the order of a Map, both of which matter
// here, so values are compared as tagged trees.

/** `value` as a tree that says everything toEqual should compare: types, Map order, -0, the byte array class. */
function tagged(value: unknown): unknown {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'bigint') return { bigint: value.toString() };
  if (typeof value === 'number') return { number: Object.is(value, -0) ? '-0' : String(value) };
  if (value instanceof TypedField) {
    return {
      typed: value.type,
      value: tagged(value.value),
      attributes: value.attributes === undefined ? 'none' : { ...value.attributes },
    };
  }
  if (value instanceof Map) return { map: [...value].map(([k, v]) => [k, tagged(v)]) };
  if (isListMap(value)) return { listMap: listMapEntries(value).map(([k, v]) => [k, tagged(v)]) };
  if (value instanceof Date) return { date: String(value.getTime()) };
  if (Array.isArray(value)) return value.map(tagged);
  if (ArrayBuffer.isView(value)) {
    return {
      bytes: value.constructor.name,
      data: [...new Uint8Array(value.buffer, value.byteOffset, value.byteLength)],
    };
  }
  if (typeof value === 'object') {
    const proto = Object.getPrototypeOf(value) as unknown;
    const entries = Object.keys(value).map((k) => [k, tagged((value as Record<string, unknown>)[k])]);
    return {
      object: entries,
      proto: proto === null ? 'null' : proto === Object.prototype ? 'Object' : 'other',
    };
  }
  throw new Error(`unexpected value ${String(value)}`);
}

/** The values the old path (avsc's decode, then the walk into record values) reads from `count` data in `bytes`. */
function oracleDecode(schema: avro.Schema, bytes: Buffer, count: number): FieldValue[] {
  const type = avroTypeFor(schema);
  const values: FieldValue[] = [];
  let offset = 0;
  for (let i = 0; i < count; i++) {
    const decoded = type.decode(bytes, offset);
    if (decoded.offset < 0) throw new Error('the oracle ran out of bytes');
    values.push(avroFieldValue(type, decoded.value));
    offset = decoded.offset;
  }
  if (offset !== bytes.length) throw new Error('the oracle left bytes');
  return values;
}

// ---------------------------------------------------------------------------------------------------------------
// Writing data: avsc's own encoder, or one that splits arrays and maps into several blocks, some with negative
// counts followed by their size in bytes (which avsc reads but never writes).

const varintType = avro.Type.forSchema('long');
const stringType = avro.Type.forSchema('string');

function varint(n: number): Buffer {
  return varintType.toBuffer(n);
}

/** A deterministic generator of numbers in [0, 1) (mulberry32). */
function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function inBlocks(items: Buffer[], next: () => number): Buffer {
  const parts: Buffer[] = [];
  for (let at = 0; at < items.length;) {
    const n = 1 + Math.floor(next() * (items.length - at));
    const body = Buffer.concat(items.slice(at, at + n));
    if (next() < 0.5) parts.push(varint(n), body);
    else parts.push(varint(-n), varint(body.length), body);
    at += n;
  }
  parts.push(varint(0));
  return Buffer.concat(parts);
}

/** `value` of the writer type `type` (from avroWriterTypeFor) in Avro binary, arrays and maps in random blocks. */
function encodeInBlocks(type: avro.Type, value: unknown, next: () => number): Buffer {
  if (type instanceof avro.types.RecordType) {
    const datum = value as Record<string, unknown>;
    return Buffer.concat(type.fields.map((f) => encodeInBlocks(f.type, datum[f.name], next)));
  }
  if (type instanceof avro.types.WrappedUnionType) {
    if (value === null) return varint(type.types.findIndex((t) => t.typeName === 'null'));
    const [branch, inner] = Object.entries(value as Record<string, unknown>)[0] ?? [];
    const index = type.types.findIndex((t) => t.branchName === branch);
    return Buffer.concat([varint(index), encodeInBlocks(type.types[index] as avro.Type, inner, next)]);
  }
  if (type instanceof avro.types.ArrayType) {
    return inBlocks(
      (value as unknown[]).map((item) => encodeInBlocks(type.itemsType, item, next)),
      next,
    );
  }
  if (type instanceof avro.types.MapType) {
    const datum = value as Record<string, unknown>;
    const values = type.valuesType as avro.Type;
    return inBlocks(
      Object.keys(datum).map((k) =>
        Buffer.concat([stringType.toBuffer(k), encodeInBlocks(values, datum[k], next)]),
      ),
      next,
    );
  }
  return type.toBuffer(value);
}

/** `values` written back to back, by avsc when `seed` is even, else with arrays and maps in random blocks. */
function encodeAll(writer: avro.Type, values: unknown[], seed: number): Buffer {
  if (seed % 2 === 0) return Buffer.concat(values.map((v) => writer.toBuffer(v)));
  const next = prng(seed);
  return Buffer.concat(values.map((v) => encodeInBlocks(writer, v, next)));
}

// ---------------------------------------------------------------------------------------------------------------
// Random values of a writer type.

const MAX_VALUE_DEPTH = 4;
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

const longValues = fc.oneof(
  fc.bigInt({ min: INT64_MIN, max: INT64_MAX }),
  fc.bigInt({ min: -300n, max: 300n }),
  fc.constantFrom(
    0n,
    -1n,
    2n ** 31n,
    -(2n ** 31n) - 1n,
    2n ** 49n - 1n,
    2n ** 49n,
    -(2n ** 49n),
    2n ** 53n - 1n,
    2n ** 53n,
    2n ** 53n + 1n,
    -(2n ** 53n) - 1n,
    2n ** 62n,
    INT64_MAX,
    INT64_MIN,
    INT64_MIN + 1n,
  ),
);

const stringValues = fc.oneof(
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  fc.string({ unit: 'binary', maxLength: 8 }),
  fc.string({ unit: 'grapheme-ascii', minLength: 10, maxLength: 18 }),
  fc.constantFrom(
    '',
    'a',
    'Zürich',
    'abcdefghijkl',
    'abcdefghijklm',
    'abcdefghijklmnop',
    'abcdefghijklmnopq',
  ),
);

const keyValues = stringValues.filter((k) => k !== '__proto__');

function valueOf(type: avro.Type, depth = 0): fc.Arbitrary<unknown> {
  const deep = depth >= MAX_VALUE_DEPTH;
  if (type instanceof avro.types.RecordType) {
    const model: Record<string, fc.Arbitrary<unknown>> = {};
    for (const f of type.fields) model[f.name] = valueOf(f.type, depth + 1);
    return fc.record(model);
  }
  if (type instanceof avro.types.WrappedUnionType) {
    const hasNull = type.types.some((t) => t.typeName === 'null');
    if (deep && hasNull) return fc.constant(null);
    return fc.oneof(
      ...type.types.map((t) =>
        t.typeName === 'null'
          ? fc.constant(null)
          : valueOf(t, depth + 1).map((v) => ({ [t.branchName as string]: v })),
      ),
    );
  }
  if (type instanceof avro.types.ArrayType) {
    return deep ? fc.constant([]) : fc.array(valueOf(type.itemsType, depth + 1), { maxLength: 6 });
  }
  if (type instanceof avro.types.MapType) {
    if (deep) return fc.constant({});
    return fc
      .uniqueArray(fc.tuple(keyValues, valueOf(type.valuesType as avro.Type, depth + 1)), {
        maxLength: 5,
        selector: ([k]) => k,
      })
      .map((entries) => Object.fromEntries(entries));
  }
  if (type instanceof avro.types.EnumType) return fc.constantFrom(...type.symbols);
  if (type instanceof avro.types.FixedType) {
    return fc.uint8Array({ minLength: type.size, maxLength: type.size }).map((b) => Buffer.from(b));
  }
  switch (type.typeName) {
    case 'null':
      return fc.constant(null);
    case 'boolean':
      return fc.boolean();
    case 'int':
      return fc.oneof(fc.integer(), fc.integer({ min: -100, max: 100 }));
    case 'abstract:long':
      return longValues;
    case 'long':
      // Only timestamp-millis keeps avsc's number long: milliseconds a Date can hold.
      return fc.integer({ min: -8.64e15, max: 8.64e15 });
    case 'float':
      return fc.float();
    case 'double':
      return fc.double();
    case 'bytes':
      return fc.uint8Array({ maxLength: 20 }).map((b) => Buffer.from(b));
    case 'string':
      return stringValues;
    default:
      throw new Error(`no values for ${type.typeName}`);
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Schemas.

const BENCH_SCHEMA: avro.Schema = {
  type: 'record',
  name: 'Order',
  namespace: 'bench',
  fields: [
    { name: 'id', type: 'long' },
    { name: 'name', type: 'string' },
    { name: 'email', type: 'string' },
    { name: 'active', type: 'boolean' },
    { name: 'score', type: 'double' },
    { name: 'count', type: 'int' },
    { name: 'tags', type: { type: 'array', items: 'string' } },
    {
      name: 'address',
      type: {
        type: 'record',
        name: 'Address',
        fields: [
          { name: 'city', type: 'string' },
          { name: 'zip', type: 'string' },
          { name: 'line', type: 'string' },
        ],
      },
    },
    { name: 'note', type: ['null', 'string'], default: null },
    { name: 'counts', type: { type: 'map', values: 'int' } },
  ],
};

/** The writer schema of the fixture containers (written by Python's avro). */
function fixtureSchema(): avro.Schema {
  const input = readFileSync(
    join(__dirname, '..', '..', 'fixtures', 'formats', 'avro', 'null-codec.input.bin'),
  );
  const [record] = parseWhole(avroFormat, {}, input).records;
  return JSON.parse(record?.attributes?.['avroSchema'] ?? '') as avro.Schema;
}

const LOGICAL_SCHEMA: avro.Schema = {
  type: 'record',
  name: 'Logical',
  fields: [
    { name: 'price', type: { type: 'bytes', logicalType: 'decimal', precision: 12, scale: 3 } },
    { name: 'wholes', type: { type: 'bytes', logicalType: 'decimal', precision: 5 } },
    {
      name: 'amount',
      type: { type: 'fixed', name: 'Amount', size: 9, logicalType: 'decimal', precision: 20, scale: 4 },
    },
    { name: 'again', type: 'Amount' },
    { name: 'day', type: { type: 'int', logicalType: 'date' } },
    { name: 'time', type: { type: 'int', logicalType: 'time-millis' } },
    { name: 'stamp', type: { type: 'long', logicalType: 'timestamp-millis' } },
    { name: 'micros', type: { type: 'long', logicalType: 'timestamp-micros' } },
    { name: 'timeMicros', type: { type: 'long', logicalType: 'time-micros' } },
    { name: 'local', type: { type: 'long', logicalType: 'local-timestamp-millis' } },
    { name: 'uuid', type: { type: 'string', logicalType: 'uuid' } },
    { name: 'duration', type: { type: 'fixed', name: 'Duration', size: 12, logicalType: 'duration' } },
    { name: 'maybeDay', type: ['null', { type: 'int', logicalType: 'date' }] },
    { name: 'stamps', type: { type: 'array', items: { type: 'long', logicalType: 'timestamp-millis' } } },
  ],
};

const LINKED_LIST: avro.Schema = {
  type: 'record',
  name: 'Node',
  fields: [
    { name: 'value', type: 'long' },
    { name: 'next', type: ['null', 'Node'] },
  ],
};

const TREE: avro.Schema = {
  type: 'record',
  name: 'Tree',
  fields: [
    { name: 'label', type: 'string' },
    { name: 'children', type: { type: 'array', items: 'Tree' } },
    { name: 'byName', type: { type: 'map', values: 'Tree' } },
  ],
};

const MUTUAL: avro.Schema = {
  type: 'record',
  name: 'A',
  fields: [
    {
      name: 'b',
      type: [
        'null',
        {
          type: 'record',
          name: 'B',
          fields: [
            { name: 'a', type: ['null', 'A'] },
            { name: 'kind', type: { type: 'enum', name: 'Kind', symbols: ['X', 'Y', 'Z'] } },
          ],
        },
      ],
    },
    { name: 'kinds', type: { type: 'array', items: 'Kind' } },
  ],
};

const UNIONS: avro.Schema = {
  type: 'record',
  name: 'Unions',
  fields: [
    { name: 'any', type: ['null', 'boolean', 'int', 'long', 'float', 'double', 'bytes', 'string'] },
    { name: 'noNull', type: ['string', 'long'] },
    { name: 'nullLast', type: ['int', 'null'] },
    {
      name: 'complex',
      type: [
        'null',
        { type: 'record', name: 'Point', fields: [{ name: 'x', type: 'float' }] },
        { type: 'array', items: 'Point' },
        { type: 'map', values: ['null', 'double'] },
        { type: 'fixed', name: 'Four', size: 4 },
        { type: 'enum', name: 'Dir', symbols: ['N', 'S'] },
      ],
    },
    { name: 'empty', type: { type: 'record', name: 'Empty', fields: [] } },
    { name: 'empties', type: { type: 'array', items: 'Empty' } },
    { name: 'nulls', type: { type: 'array', items: 'null' } },
    { name: 'zero', type: { type: 'fixed', name: 'Zero', size: 0 } },
  ],
};

const SCHEMAS: [string, avro.Schema][] = [
  ['the bench schema', BENCH_SCHEMA],
  ['the fixture schema', fixtureSchema()],
  ['every logical type', LOGICAL_SCHEMA],
  ['a recursive list', LINKED_LIST],
  ['a recursive tree through an array and a map', TREE],
  ['mutually recursive records and a referenced enum', MUTUAL],
  ['unions of every kind and zero-width values', UNIONS],
  ['a top-level long', 'long'],
  ['a top-level union', ['null', 'string', 'long']],
];

/** Random writer schemas: nested records, arrays, maps, unions, enums, fixed and logical types. */
const PRIMITIVES = ['null', 'boolean', 'int', 'long', 'float', 'double', 'bytes', 'string'] as const;
const LEAVES: unknown[] = [
  ...PRIMITIVES,
  { type: 'bytes', logicalType: 'decimal', precision: 12, scale: 3 },
  { type: 'fixed', size: 6, logicalType: 'decimal', precision: 14, scale: 2 },
  { type: 'int', logicalType: 'date' },
  { type: 'int', logicalType: 'time-millis' },
  { type: 'long', logicalType: 'timestamp-millis' },
  { type: 'long', logicalType: 'timestamp-micros' },
  { type: 'long', logicalType: 'local-timestamp-micros' },
  { type: 'string', logicalType: 'uuid' },
  { type: 'enum', symbols: ['A', 'B', 'C'] },
  { type: 'enum', symbols: ['ONLY'] },
  { type: 'fixed', size: 3 },
];

const randomSchemas = fc
  .letrec((tie) => ({
    schema: fc.oneof(
      { maxDepth: 3, depthIdentifier: 'schema' },
      fc.constantFrom(...LEAVES),
      tie('record'),
      tie('array'),
      tie('map'),
      tie('union'),
    ),
    record: fc
      .array(tie('schema'), { maxLength: 5 })
      .map((types) => ({ type: 'record', fields: types.map((type, i) => ({ name: `f${i}`, type })) })),
    array: tie('schema').map((items) => ({ type: 'array', items })),
    map: tie('schema').map((values) => ({ type: 'map', values })),
    union: fc
      .tuple(
        fc.uniqueArray(fc.constantFrom(...PRIMITIVES), { minLength: 1, maxLength: 4 }),
        fc.option(fc.oneof(tie('record'), tie('array'), tie('map')), { nil: undefined }),
      )
      .map(([names, extra]) => (extra === undefined ? names : [...names, extra])),
  }))
  .schema.map(named);

/** `schema` with a fresh name on every record, enum and fixed (the generators make them without). */
function named(schema: unknown): avro.Schema {
  let count = 0;
  const walk = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(walk);
    if (node === null || typeof node !== 'object') return node;
    const copy: Record<string, unknown> = { ...(node as Record<string, unknown>) };
    if (copy['type'] === 'record' || copy['type'] === 'enum' || copy['type'] === 'fixed')
      copy['name'] = `N${count++}`;
    if (Array.isArray(copy['fields'])) {
      copy['fields'] = (copy['fields'] as { name: string; type: unknown }[]).map((f) => ({
        ...f,
        type: walk(f.type),
      }));
    }
    if (copy['items'] !== undefined) copy['items'] = walk(copy['items']);
    if (copy['values'] !== undefined) copy['values'] = walk(copy['values']);
    return copy;
  };
  return walk(schema) as avro.Schema;
}

/** A LINKED_LIST value of `depth` nodes. */
function listOf(depth: number): Buffer {
  const parts: Buffer[] = [];
  for (let i = 0; i < depth; i++) parts.push(varint(i), varint(i === depth - 1 ? 0 : 1));
  return Buffer.concat(parts);
}

/** A schema, values of it, and the seed that picks how they are written. */
function casesOf(schemas: fc.Arbitrary<avro.Schema>): fc.Arbitrary<[avro.Schema, unknown[], number]> {
  return schemas.chain((schema) =>
    fc.tuple(
      fc.constant(schema),
      fc.array(valueOf(avroWriterTypeFor(schema)), { minLength: 1, maxLength: 4 }),
      fc.nat(),
    ),
  );
}

/** The error `run` throws, or undefined. */
function thrownBy(run: () => unknown): unknown {
  try {
    run();
    return undefined;
  } catch (error) {
    return error;
  }
}

// ---------------------------------------------------------------------------------------------------------------

describe('AvroDecoder', () => {
  it.each(SCHEMAS)('reads %s exactly as avsc and the old record walk did', (_, schema) => {
    fc.assert(
      fc.property(casesOf(fc.constant(schema)), ([, values, seed]) => {
        const bytes = encodeAll(avroWriterTypeFor(schema), values, seed);
        const decoded = new AvroDecoder(schema).decodeBlock(bytes, values.length);
        expect(tagged(decoded)).toEqual(tagged(oracleDecode(schema, bytes, values.length)));
      }),
      { numRuns: 150 },
    );
  });

  it('reads random schemas exactly as avsc and the old record walk did', () => {
    fc.assert(
      fc.property(casesOf(randomSchemas), ([schema, values, seed]) => {
        const bytes = encodeAll(avroWriterTypeFor(schema), values, seed);
        const decoded = new AvroDecoder(schema).decodeBlock(bytes, values.length);
        expect(tagged(decoded)).toEqual(tagged(oracleDecode(schema, bytes, values.length)));
      }),
      { numRuns: 400 },
    );
  });

  it('measures a schema of named records that each use the previous one twice once per type', () => {
    // Each level doubles the paths through the schema: walking them all took 2^n steps (n = 26: 12 s).
    let schema: unknown = { type: 'record', name: 'R0', fields: [{ name: 'x', type: 'int' }] };
    for (let i = 1; i <= 60; i++) {
      schema = {
        type: 'record',
        name: `R${i}`,
        fields: [
          { name: 'a', type: schema },
          { name: 'b', type: `R${i - 1}` },
        ],
      };
    }
    const decoder = new AvroDecoder({ type: 'array', items: schema });
    // Each item is 2^60 ints wide at least: a count of 1 cannot fit in 2 bytes.
    expect(() => decoder.decodeBlock(Uint8Array.of(2, 0), 1)).toThrow(AvroDecodeError);
    expect(decoder.decodeBlock(Uint8Array.of(0), 1)).toEqual([[]]);
  });

  it('reads many distinct and repeated short strings like avsc', () => {
    // Enough strings to collide in the decoder's string cache, each read several times.
    const strings = Array.from({ length: 5000 }, (_, i) =>
      i % 7 === 0 ? `é${i}` : (i * 7919).toString(36).repeat(1 + (i % 4)),
    );
    const values = [...strings, ...strings.slice().reverse(), ...strings];
    const bytes = Buffer.concat(values.map((s) => stringType.toBuffer(s)));
    expect(new AvroDecoder('string').decodeBlock(bytes, values.length)).toEqual(values);
  });

  it('reads invalid UTF-8 as U+FFFD, as avsc does', () => {
    for (const text of [[0xff], [0x41, 0xc3], [0xe2, 0x82], [0xed, 0xa0, 0x80], Array(20).fill(0xc0)]) {
      const bytes = Buffer.concat([varint(text.length), Buffer.from(text)]);
      const [value] = new AvroDecoder('string').decodeBlock(bytes, 1);
      expect(value).toBe(stringType.decode(bytes, 0).value);
      expect(value).toContain('\ufffd');
    }
  });

  it('reads every long as a bigint, small ones too', () => {
    const bytes = Buffer.concat([0n, 1n, -1n, 63n, -64n].map((n) => avroWriterTypeFor('long').toBuffer(n)));
    expect(new AvroDecoder('long').decodeBlock(bytes, 5)).toEqual([0n, 1n, -1n, 63n, -64n]);
  });

  it('reads bytes and fixed into fresh plain Uint8Arrays that do not share the input', () => {
    const schema: avro.Schema = {
      type: 'record',
      name: 'R',
      fields: [
        { name: 'b', type: 'bytes' },
        { name: 'f', type: { type: 'fixed', name: 'F', size: 2 } },
      ],
    };
    const bytes = avroWriterTypeFor(schema).toBuffer({ b: Buffer.from([1, 2, 3]), f: Buffer.from([4, 5]) });
    const [record] = new AvroDecoder(schema).decodeBlock(bytes, 1);
    const fields = record as ListMap;
    bytes.fill(0);
    for (const [name, expected] of [
      ['b', [1, 2, 3]],
      ['f', [4, 5]],
    ] as const) {
      const value = fields[name] as Uint8Array;
      expect(Object.getPrototypeOf(value)).toBe(Uint8Array.prototype);
      expect([...value]).toEqual(expected);
    }
  });

  it('shares one frozen attributes object among the decimals of one type', () => {
    const schema: avro.Schema = { type: 'bytes', logicalType: 'decimal', precision: 6, scale: 2 };
    const bytes = Buffer.concat([varint(2), Buffer.from([0x30, 0x39]), varint(2), Buffer.from([0xcf, 0xc7])]);
    const [a, b] = new AvroDecoder(schema).decodeBlock(bytes, 2) as TypedField<'DECIMAL'>[];
    expect(a).toEqual(new TypedField('DECIMAL', '123.45', { precision: '6', scale: '2' }));
    expect(b?.value).toBe('-123.45');
    expect(b?.attributes).toBe(a?.attributes);
    expect(Object.isFrozen(a?.attributes)).toBe(true);
  });

  it.each([
    ['date on a string', { type: 'string', logicalType: 'date' }, stringType.toBuffer('x'), 'x'],
    [
      'decimal on a string',
      { type: 'string', logicalType: 'decimal', precision: 4 },
      stringType.toBuffer('7'),
      '7',
    ],
    ['time-millis on a long', { type: 'long', logicalType: 'time-millis' }, varint(5), 5n],
    ['timestamp-millis on an int', { type: 'int', logicalType: 'timestamp-millis' }, varint(5), 5],
    ['date on a long', { type: 'long', logicalType: 'date' }, varint(-3), -3n],
  ])('ignores %s and reads the underlying type', (_, schema, bytes, expected) => {
    expect(new AvroDecoder(schema).decodeBlock(bytes, 1)).toEqual([expected]);
  });

  it('makes a map key named __proto__ a member, not the prototype', () => {
    const bytes = Buffer.concat([
      varint(2),
      stringType.toBuffer('__proto__'),
      varint(7),
      stringType.toBuffer('a'),
    ]);
    const [map] = new AvroDecoder({ type: 'map', values: 'int' }).decodeBlock(
      Buffer.concat([bytes, varint(8), varint(0)]),
      1,
    );
    expect(Object.getPrototypeOf(map)).toBe(Object.prototype);
    expect(Object.keys(map as object)).toEqual(['__proto__', 'a']);
    expect(Object.getOwnPropertyDescriptor(map, '__proto__')?.value).toBe(7);
    expect((map as Record<string, number>)['a']).toBe(8);
  });

  it('reads a list nested 1,000 deep and refuses one nested deeper', () => {
    const decoder = new AvroDecoder(LINKED_LIST);
    expect(decoder.decodeBlock(listOf(1000), 1)).toHaveLength(1);
    expect(thrownBy(() => decoder.decodeBlock(listOf(1001), 1))).toMatchObject({
      kind: 'invalid',
      detail: 'records nest over 1000 deep',
    });
  });

  it('turns a call stack that runs out inside the data into an AvroDecodeError', () => {
    const decoder = new AvroDecoder(LINKED_LIST);
    const deep = listOf(1000);
    const short = listOf(50);
    const outcomes = new Set<string>();
    // Recurses until the stack is full, then decodes on the way back up: near the top of the stack the decoder's
    // own recursion is what runs out. Levels where not even a short list fits are skipped: there the stack is full
    // before the data has any say.
    const probe = (): void => {
      try {
        probe();
      } catch (error) {
        if (!(error instanceof RangeError)) throw error;
      }
      try {
        decoder.decodeBlock(short, 1);
      } catch (error) {
        if (error instanceof RangeError || error instanceof AvroDecodeError) return;
        throw error;
      }
      try {
        decoder.decodeBlock(deep, 1);
        outcomes.add('decoded');
      } catch (error) {
        outcomes.add(error instanceof AvroDecodeError ? error.detail : String(error));
      }
    };
    probe();
    expect([...outcomes].sort()).toEqual(['decoded', 'the value nests too deeply']);
  });

  it('refuses a record that holds itself without end instead of overflowing the stack', () => {
    const schema: avro.Schema = { type: 'record', name: 'R', fields: [{ name: 'r', type: 'R' }] };
    expect(thrownBy(() => new AvroDecoder(schema).decodeBlock(new Uint8Array(0), 1))).toMatchObject({
      kind: 'invalid',
    });
  });

  it.each([
    ['a negative string length', 'string', [varint(-2)], 'invalid'],
    ['a string longer than the bytes left', 'string', [varint(2 ** 40)], 'truncated'],
    ['a union branch past the last', ['null', 'int'], [varint(2)], 'invalid'],
    ['a negative union branch', ['null', 'int', 'string'], [varint(-1)], 'invalid'],
    ['an enum index past the last', { type: 'enum', name: 'E', symbols: ['A'] }, [varint(1)], 'invalid'],
    ['a varint over 10 bytes', 'int', [Buffer.alloc(11, 0x80)], 'invalid'],
    ['a long over 64 bits', 'long', [Buffer.from([...Array(9).fill(0xff), 0x02])], 'invalid'],
    ['an array count larger than the bytes left', { type: 'array', items: 'int' }, [varint(1e9)], 'invalid'],
    [
      'a huge negative array count',
      { type: 'array', items: 'string' },
      [varint(-(2 ** 50)), varint(1)],
      'invalid',
    ],
    [
      'a map count larger than the bytes left',
      { type: 'map', values: 'null' },
      [varint(5), varint(1)],
      'invalid',
    ],
    ['an endless array of nulls', { type: 'array', items: 'null' }, [varint(2 ** 40)], 'invalid'],
    ['a float cut short', 'float', [Buffer.from([0, 0])], 'truncated'],
    ['no bytes at all', 'boolean', [], 'truncated'],
  ])('throws an AvroDecodeError on %s', (_, schema, parts, kind) => {
    const error = thrownBy(() => new AvroDecoder(schema).decodeBlock(Buffer.concat(parts), 1));
    expect(error).toBeInstanceOf(AvroDecodeError);
    expect(error).toMatchObject({ kind, recordIndex: 0 });
  });

  it('allows 65,536 zero-width array items per block, not more', () => {
    const decoder = new AvroDecoder({ type: 'array', items: 'null' });
    const [array] = decoder.decodeBlock(Buffer.concat([varint(65_536), varint(0)]), 1);
    expect(array).toHaveLength(65_536);
    const twoBlocks = Buffer.concat([varint(40_000), varint(40_000), varint(0)]);
    expect(thrownBy(() => decoder.decodeBlock(twoBlocks, 1))).toMatchObject({ kind: 'invalid' });
  });

  it('says which value is bad and when bytes follow the last value', () => {
    const decoder = new AvroDecoder(['null', 'int']);
    expect(thrownBy(() => decoder.decodeBlock(Buffer.from([0, 2, 6, 9]), 3))).toMatchObject({
      kind: 'invalid',
      recordIndex: 2,
    });
    expect(thrownBy(() => decoder.decodeBlock(Buffer.from([0, 2, 6, 0]), 2))).toMatchObject({
      kind: 'trailing',
    });
  });

  it('throws only AvroDecodeError on every truncation of a value', () => {
    fc.assert(
      fc.property(casesOf(fc.constantFrom(...SCHEMAS.map(([, s]) => s))), ([schema, values, seed]) => {
        const bytes = encodeAll(avroWriterTypeFor(schema), values.slice(0, 1), seed);
        const decoder = new AvroDecoder(schema);
        for (let cut = 0; cut < bytes.length; cut++) {
          const error = thrownBy(() => decoder.decodeBlock(bytes.subarray(0, cut), 1));
          expect(error).toBeInstanceOf(AvroDecodeError);
          expect((error as AvroDecodeError).kind).not.toBe('trailing');
        }
      }),
      { numRuns: 100 },
    );
  });

  it('returns values or throws AvroDecodeError on random bytes, never another error', () => {
    const decoders = [...SCHEMAS.map(([, s]) => s), UNIONS].map((s) => new AvroDecoder(s));
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), fc.integer({ min: 1, max: 3 }), (bytes, count) => {
        for (const decoder of decoders) {
          const error = thrownBy(() => decoder.decodeBlock(bytes, count));
          if (error !== undefined) expect(error).toBeInstanceOf(AvroDecodeError);
        }
      }),
      { numRuns: 2000 },
    );
  });

  it("throws avsc's error for an invalid schema", () => {
    expect(
      () => new AvroDecoder({ type: 'record', name: 'R', fields: [{ name: 'x', type: 'nope' }] }),
    ).toThrow(/nope/);
  });
});

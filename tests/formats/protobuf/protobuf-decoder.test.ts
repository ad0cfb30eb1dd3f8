import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import protobuf from 'protobufjs';
// fromDescriptor / toDescriptor on the reflection classes, as the protobuf format loads descriptor sets.
import 'protobufjs/ext/descriptor/index.js';
import type {} from 'protobufjs/ext/descriptor';
import {
  MAX_PROTOBUF_DEPTH,
  ProtobufDecodeError,
  protobufDecoder,
  protobufInput,
} from '../../../src/formats/protobuf/protobuf-decoder';
import { field, TypedField, type FieldValue } from '../../../src/record/field';
import { isListMap, listMapEntries, listMapKeys, type ListMap } from '../../../src/record/list-map';
import { protobufFieldValue } from './protobufjs-oracle';

// ---------------------------------------------------------------------------------------------------------------
// Schemas: the fixture descriptor set, and proto2/proto3 files made here and loaded as the product loads them
// (through a FileDescriptorSet).

const LONG_KEY_TYPES = new Set(['int64', 'uint64', 'sint64', 'fixed64', 'sfixed64']);
const FIXTURES = join(__dirname, '..', '..', 'fixtures', 'formats', 'protobuf');

const PROTO3 = `
syntax = "proto3";
package t3;
enum Color { RED = 0; GREEN = 1; BLUE = 2; }
message Scalars {
  double f_double = 1; float f_float = 2; int32 f_int32 = 3; uint32 f_uint32 = 4; sint32 f_sint32 = 5;
  fixed32 f_fixed32 = 6; sfixed32 f_sfixed32 = 7; int64 f_int64 = 8; uint64 f_uint64 = 9; sint64 f_sint64 = 10;
  fixed64 f_fixed64 = 11; sfixed64 f_sfixed64 = 12; bool f_bool = 13; string f_string = 14; bytes f_bytes = 15;
  Color f_enum = 16;
  repeated double r_double = 21; repeated float r_float = 22; repeated int32 r_int32 = 23;
  repeated uint32 r_uint32 = 24; repeated sint32 r_sint32 = 25; repeated fixed32 r_fixed32 = 26;
  repeated sfixed32 r_sfixed32 = 27; repeated int64 r_int64 = 28; repeated uint64 r_uint64 = 29;
  repeated sint64 r_sint64 = 30; repeated fixed64 r_fixed64 = 31; repeated sfixed64 r_sfixed64 = 32;
  repeated bool r_bool = 33; repeated string r_string = 34; repeated bytes r_bytes = 35; repeated Color r_enum = 36;
  repeated int32 u_int32 = 37 [packed = false]; repeated double u_double = 38 [packed = false];
  repeated sint64 u_sint64 = 39 [packed = false];
  optional int32 o_int32 = 41; optional int64 o_int64 = 42; optional string o_string = 43; optional float o_float = 44;
  optional bytes o_bytes = 45; optional Color o_enum = 46; optional bool o_bool = 47; optional double o_double = 48;
  optional Node o_node = 49;
}
message Maps {
  map<int32, string> m_int32 = 1; map<uint32, int32> m_uint32 = 2; map<sint32, bool> m_sint32 = 3;
  map<fixed32, double> m_fixed32 = 4; map<sfixed32, float> m_sfixed32 = 5; map<int64, string> m_int64 = 6;
  map<uint64, uint64> m_uint64 = 7; map<sint64, sint64> m_sint64 = 8; map<fixed64, fixed64> m_fixed64 = 9;
  map<sfixed64, bytes> m_sfixed64 = 10; map<bool, string> m_bool = 11; map<string, string> m_string = 12;
  map<string, Node> m_node = 13; map<string, Color> m_enum = 14; map<string, int64> m_long = 15;
}
message Node {
  string name = 1; Node child = 2; repeated Node children = 3;
  oneof pick { int32 n = 4; string s = 5; Node node = 6; bytes b = 7; int64 l = 8; }
  Color color = 9; map<string, Node> index = 10; int32 mid = 5000; string far = 536870911;
}
message Empty {}
`;

const PROTO2 = `
syntax = "proto2";
package t2;
enum Closed { ONE = 1; TWO = 2; FIVE = 5; }
message Defaults {
  optional int32 d_int32 = 1 [default = -7]; optional uint32 d_uint32 = 2 [default = 4000000000];
  optional int64 d_int64 = 3 [default = -5000000000]; optional uint64 d_uint64 = 4 [default = 18446744073709551615];
  optional sint64 d_sint64 = 5 [default = 42]; optional fixed64 d_fixed64 = 6 [default = 9007199254740991];
  optional double d_double = 7 [default = 2.5]; optional float d_float = 8 [default = -0.5];
  optional bool d_bool = 9 [default = true]; optional string d_string = 10 [default = "hello"];
  optional bytes d_bytes = 11 [default = "ab"]; optional Closed d_enum = 12 [default = FIVE];
  optional double d_inf = 13 [default = inf]; optional double d_nan = 14 [default = nan];
  optional Closed closed = 15; repeated Closed r_closed = 16; repeated Closed p_closed = 17 [packed = true];
  repeated int32 r_int32 = 18; repeated sint64 p_sint64 = 19 [packed = true];
  optional group G = 20 { optional int32 x = 1; optional string y = 2; }
  repeated group RG = 21 { optional int64 z = 1; optional Defaults inner = 2; }
  optional Defaults nested = 22; map<int32, Closed> m_closed = 23; optional string s = 24;
  oneof choice { string c_text = 25; Closed c_enum = 26; Defaults c_message = 27; }
}
message Required { required int32 a = 1; optional string b = 2; required Defaults d = 3; }
`;

/** The message types of `source`, loaded the way the product loads a descriptor set. */
function loadProto(source: string, syntax: 'proto2' | 'proto3'): protobuf.Root {
  const parsed = protobuf.parse(source, { keepCase: true }).root;
  parsed.resolveAll();
  const descriptor = parsed.toDescriptor(syntax);
  // Encoded and read back, as a .desc file is.
  const set = descriptor.$type.encode(descriptor).finish();
  const root = protobuf.Root.fromDescriptor(set, { keepCase: true });
  root.resolveAll();
  return root;
}

const shop = protobuf.Root.fromDescriptor(readFileSync(join(FIXTURES, 'shop.desc')), { keepCase: true });
shop.resolveAll();
const proto3 = loadProto(PROTO3, 'proto3');
const proto2 = loadProto(PROTO2, 'proto2');
const ORDER = shop.lookupType('shop.Order');
const SCALARS = proto3.lookupType('t3.Scalars');
const MAPS = proto3.lookupType('t3.Maps');
const NODE = proto3.lookupType('t3.Node');
const DEFAULTS = proto2.lookupType('t2.Defaults');
const REQUIRED = proto2.lookupType('t2.Required');
// Not among the random types: protobufjs mis-reads groups and field number 0 in a type without fields.
const EMPTY = proto3.lookupType('t3.Empty');
const TYPES = [ORDER, SCALARS, MAPS, NODE, DEFAULTS, REQUIRED];

// ---------------------------------------------------------------------------------------------------------------
// Comparison: what protobufjs + the old walk give against what the decoder gives.

/** Throws, naming the path, where `actual` differs from `expected` (bigint ≠ number, Map order, Buffer ≠ Uint8Array). */
function assertSame(actual: unknown, expected: unknown, path = '$'): void {
  const fail = (why: string): never => {
    throw new Error(`${path}: ${why}`);
  };
  if (typeof actual !== typeof expected) fail(`${typeof actual} where ${typeof expected} was expected`);
  if (actual === null || expected === null || typeof actual !== 'object') {
    if (!Object.is(actual, expected)) fail(`${String(actual)} where ${String(expected)} was expected`);
    return;
  }
  const exp = expected as object;
  // List-maps of one key list differ in prototype (each shape makes its own): compared by keys and values.
  if (isListMap(actual) !== isListMap(exp)) fail('a list-map and something else');
  if (isListMap(actual) && isListMap(exp)) {
    const keys = listMapKeys(actual);
    assertSame(keys, listMapKeys(exp), `${path} keys`);
    for (const key of keys) assertSame(actual[key], exp[key], `${path}.${key}`);
    return;
  }
  if (Object.getPrototypeOf(actual) !== Object.getPrototypeOf(exp)) {
    fail(`a ${actual.constructor.name} where a ${exp.constructor.name} was expected`);
  }
  if (actual instanceof TypedField) {
    const e = exp as TypedField;
    if (actual.type !== e.type) fail(`type ${actual.type} where ${e.type} was expected`);
    assertSame(actual.attributes, e.attributes, `${path}.attributes`);
    assertSame(actual.value, e.value, `${path}<${actual.type}>`);
  } else if (actual instanceof Uint8Array) {
    if (Buffer.compare(actual, exp as Uint8Array) !== 0) fail('other bytes');
  } else if (Array.isArray(actual)) {
    const e = exp as unknown[];
    if (actual.length !== e.length) fail(`${actual.length} items where ${e.length} were expected`);
    actual.forEach((v, i) => assertSame(v, e[i], `${path}[${i}]`));
  } else {
    const keys = Object.keys(actual);
    assertSame(keys, Object.keys(exp), `${path} keys`);
    for (const key of keys) {
      assertSame(
        (actual as Record<string, unknown>)[key],
        (exp as Record<string, unknown>)[key],
        `${path}.${key}`,
      );
    }
  }
}

type Outcome = { value: FieldValue } | { error: unknown };

function oracle(type: protobuf.Type, bytes: Uint8Array): Outcome {
  try {
    // A plain Uint8Array, as the parser held the bytes when protobufjs decoded them.
    return { value: protobufFieldValue(type, type.decode(new Uint8Array(bytes))) };
  } catch (error) {
    return { error };
  }
}

function decoded(type: protobuf.Type, bytes: Uint8Array): Outcome {
  try {
    return { value: protobufDecoder(type).decode(bytes) };
  } catch (error) {
    return { error };
  }
}

/** The decoder agrees with protobufjs: the same value, or both refuse the bytes (the decoder with its own error). */
function assertAgrees(type: protobuf.Type, bytes: Uint8Array): void {
  const expected = oracle(type, bytes);
  const actual = decoded(type, bytes);
  if ('error' in actual && !(actual.error instanceof ProtobufDecodeError)) throw actual.error;
  if ('error' in expected) {
    if ('value' in actual) {
      throw new Error(`decoded ${hex(bytes)} that protobufjs refuses (${String(expected.error)})`);
    }
    return;
  }
  if ('error' in actual) {
    throw new Error(`refused ${hex(bytes)} that protobufjs reads: ${String(actual.error)}`);
  }
  assertSame(actual.value, expected.value);
}

function hex(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString('hex');
}

// ---------------------------------------------------------------------------------------------------------------
// A small wire writer, so that field order, packing, duplicates and unknown fields are under the test's control.

type Bytes = number[];

function varint(value: bigint, padding = 0): Bytes {
  let rest = BigInt.asUintN(64, value);
  const out: Bytes = [];
  do {
    out.push(Number(rest & 0x7fn));
    rest >>= 7n;
  } while (rest > 0n);
  // An overlong encoding (extra zero groups) is valid as long as it stays within 10 bytes.
  for (let i = 0; i < padding && out.length < 10; i++) out.push(0);
  return out.map((b, i) => (i < out.length - 1 ? b | 0x80 : b));
}

function tag(number: number, wireType: number): Bytes {
  return varint(BigInt(number) * 8n + BigInt(wireType));
}

function lengthDelimited(payload: Bytes): Bytes {
  return [...varint(BigInt(payload.length)), ...payload];
}

function fixed(width: 4 | 8, write: (view: DataView) => void): Bytes {
  const view = new DataView(new ArrayBuffer(width));
  write(view);
  return [...new Uint8Array(view.buffer)];
}

const WIRE_TYPE: Record<string, number> = {
  double: 1,
  float: 5,
  int32: 0,
  uint32: 0,
  sint32: 0,
  fixed32: 5,
  sfixed32: 5,
  int64: 0,
  uint64: 0,
  sint64: 0,
  fixed64: 1,
  sfixed64: 1,
  bool: 0,
  string: 2,
  bytes: 2,
};

const INT32 = { min: -(2 ** 31), max: 2 ** 31 - 1 };
const I64 = { min: -(2n ** 63n), max: 2n ** 63n - 1n };
const U64 = { min: 0n, max: 2n ** 64n - 1n };
const padding = fc.oneof(
  { weight: 6, arbitrary: fc.constant(0) },
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 4 }) },
);

/** The wire bytes of one value of scalar type `type` (no tag). */
function scalarArb(type: string): fc.Arbitrary<Bytes> {
  switch (type) {
    case 'double':
      return fc.oneof(
        fc.double().map((v) => fixed(8, (d) => d.setFloat64(0, v, true))),
        fc.uint8Array({ minLength: 8, maxLength: 8 }).map((b) => [...b]),
      );
    case 'float':
      return fc.oneof(
        fc.float().map((v) => fixed(4, (d) => d.setFloat32(0, v, true))),
        fc.uint8Array({ minLength: 4, maxLength: 4 }).map((b) => [...b]),
      );
    case 'int32':
      return fc.tuple(fc.integer(INT32), padding).map(([v, p]) => varint(BigInt(v), p));
    case 'uint32':
      return fc
        .tuple(fc.integer({ min: 0, max: 2 ** 32 - 1 }), padding)
        .map(([v, p]) => varint(BigInt(v), p));
    case 'sint32':
      return fc.integer(INT32).map((v) => varint(BigInt(((v << 1) ^ (v >> 31)) >>> 0)));
    case 'fixed32':
    case 'sfixed32':
      return fc.integer({ min: 0, max: 2 ** 32 - 1 }).map((v) => fixed(4, (d) => d.setUint32(0, v, true)));
    case 'int64':
      return fc.tuple(fc.bigInt(I64), padding).map(([v, p]) => varint(v, p));
    case 'uint64':
      return fc.bigInt(U64).map((v) => varint(v));
    case 'sint64':
      return fc.bigInt(I64).map((v) => varint((v << 1n) ^ (v >> 63n)));
    case 'fixed64':
    case 'sfixed64':
      return fc.bigInt(U64).map((v) => fixed(8, (d) => d.setBigUint64(0, v, true)));
    case 'bool':
      return fc
        .tuple(fc.oneof(fc.constantFrom(0n, 1n), fc.bigInt(U64)), padding)
        .map(([v, p]) => varint(v, p));
    case 'string':
      return fc
        .oneof(
          {
            weight: 8,
            arbitrary: fc.string({ unit: 'grapheme', maxLength: 12 }).map((s) => [...Buffer.from(s)]),
          },
          {
            weight: 2,
            arbitrary: fc
              .string({ unit: 'binary', minLength: 9, maxLength: 40 })
              .map((s) => [...Buffer.from(s)]),
          },
          // Not UTF-8: proto3 refuses it, proto2 reads U+FFFD.
          { weight: 1, arbitrary: fc.uint8Array({ maxLength: 12 }).map((b) => [...b]) },
        )
        .map(lengthDelimited);
    case 'bytes':
      return fc.uint8Array({ maxLength: 16 }).map((b) => lengthDelimited([...b]));
    default:
      throw new Error(`no arbitrary for ${type}`);
  }
}

function enumArb(type: protobuf.Enum): fc.Arbitrary<Bytes> {
  const named = Object.values(type.values);
  return fc
    .oneof(
      { weight: 4, arbitrary: fc.constantFrom(...named) },
      { weight: 1, arbitrary: fc.integer({ min: -3, max: 40 }) },
    )
    .map((v) => varint(BigInt(v)));
}

/** A field (or group) no schema here declares, of any wire type, groups nested one level. */
function unknownArb(taken: ReadonlySet<number>, nested = true): fc.Arbitrary<Bytes> {
  const number = fc
    .oneof(fc.integer({ min: 1, max: 60 }), fc.constantFrom(1000, 2 ** 29 - 1))
    .filter((n) => !taken.has(n));
  const plain = fc.oneof(
    fc.tuple(number, fc.bigInt(U64)).map(([n, v]) => [...tag(n, 0), ...varint(v)]),
    fc.tuple(number, fc.uint8Array({ minLength: 8, maxLength: 8 })).map(([n, b]) => [...tag(n, 1), ...b]),
    fc
      .tuple(number, fc.uint8Array({ maxLength: 10 }))
      .map(([n, b]) => [...tag(n, 2), ...lengthDelimited([...b])]),
    fc.tuple(number, fc.uint8Array({ minLength: 4, maxLength: 4 })).map(([n, b]) => [...tag(n, 5), ...b]),
  );
  if (!nested) return plain;
  const group = fc
    .tuple(number, fc.array(fc.oneof(plain, unknownArb(new Set(), false)), { maxLength: 3 }))
    .map(([n, inner]) => [...tag(n, 3), ...inner.flat(), ...tag(n, 4)]);
  return fc.oneof({ weight: 4, arbitrary: plain }, { weight: 1, arbitrary: group });
}

const MAX_DEPTH = 3;
const messageArbs = new Map<string, fc.Arbitrary<Bytes>>();

/** The bytes of one message of `type`: fields in any order, repeated, packed or not, with unknown fields. */
function messageArb(type: protobuf.Type, depth: number): fc.Arbitrary<Bytes> {
  const key = `${type.fullName}@${depth}`;
  const cached = messageArbs.get(key);
  if (cached) return cached;
  const taken = new Set(type.fieldsArray.map((f) => f.id));
  const parts: fc.Arbitrary<Bytes>[] = [unknownArb(taken)];
  for (const f of type.fieldsArray) {
    const part = fieldArb(f, depth);
    if (part) parts.push(part);
  }
  // A known field number with another wire type than its own.
  parts.push(
    fc
      .tuple(fc.constantFrom(...taken), fc.constantFrom(0, 1, 5))
      .map(([n, wireType]) => [
        ...tag(n, wireType),
        ...(wireType === 0 ? [1] : wireType === 1 ? [0, 0, 0, 0, 0, 0, 0, 0] : [0, 0, 0, 0]),
      ]),
  );
  const arb = fc
    .array(fc.oneof(...parts), { maxLength: depth === 0 ? 14 : 5 })
    .map((chunks) => chunks.flat());
  messageArbs.set(key, arb);
  return arb;
}

/** The wire bytes of one value of field `f`'s type (no tag); undefined when too deep for a message. */
function valueArb(f: protobuf.FieldBase, type: string, depth: number): fc.Arbitrary<Bytes> | undefined {
  const resolved = f.resolvedType;
  if (resolved instanceof protobuf.Type) {
    if (depth >= MAX_DEPTH) return undefined;
    return fc.constant(null).chain(() => messageArb(resolved, depth + 1));
  }
  if (resolved instanceof protobuf.Enum) return enumArb(resolved);
  return scalarArb(type);
}

/** One occurrence of field `f` on the wire, tag included. */
function fieldArb(f: protobuf.FieldBase, depth: number): fc.Arbitrary<Bytes> | undefined {
  const value = valueArb(f, f.type, depth);
  if (!value) return undefined;
  const group = f instanceof protobuf.Field && f.delimited;
  if (f instanceof protobuf.MapField) {
    const key = scalarArb(f.keyType).map((b) => [...tag(1, WIRE_TYPE[f.keyType]!), ...b]);
    const specialKeys =
      f.keyType === 'string'
        ? fc
            .constantFrom('__proto__', 'constructor', '0', '7', '-1', '')
            .map((k) => [...tag(1, 2), ...lengthDelimited([...Buffer.from(k)])])
        : key;
    const wireType =
      f.resolvedType instanceof protobuf.Type
        ? 2
        : f.resolvedType instanceof protobuf.Enum
          ? 0
          : WIRE_TYPE[f.type]!;
    const val = (f.resolvedType instanceof protobuf.Type ? value.map(lengthDelimited) : value).map((b) => [
      ...tag(2, wireType),
      ...b,
    ]);
    const freeForm = fc
      .array(fc.oneof(key, val, unknownArb(new Set([1, 2]), false)), { maxLength: 4 })
      .map((c) => c.flat());
    // protobufjs files an entry without a key under "0" for a 64-bit key type, and one with the key 0 under that
    // key's 8-character hash, so the oracle cannot tell which of the two came last: such entries always carry a
    // key here (the missing 64-bit key has a test of its own).
    const keyed = LONG_KEY_TYPES.has(f.keyType)
      ? fc.tuple(key, freeForm).map(([k, rest]) => [...k, ...rest])
      : freeForm;
    const entry = fc.oneof(
      { weight: 6, arbitrary: fc.tuple(fc.oneof(key, specialKeys), val).map(([k, v]) => [...k, ...v]) },
      { weight: 2, arbitrary: keyed },
    );
    return entry.map((e) => [...tag(f.id, 2), ...lengthDelimited(e)]);
  }
  if (group) return value.map((b) => [...tag(f.id, 3), ...b, ...tag(f.id, 4)]);
  if (f.resolvedType instanceof protobuf.Type)
    return value.map((b) => [...tag(f.id, 2), ...lengthDelimited(b)]);
  const wireType = f.resolvedType instanceof protobuf.Enum ? 0 : WIRE_TYPE[f.type]!;
  const single = value.map((b) => [...tag(f.id, wireType), ...b]);
  if (!f.repeated || wireType === 2) return single;
  // Packable: a packed run is accepted whatever the field's own packing option says.
  const packed = fc
    .array(value, { maxLength: 5 })
    .map((values) => [...tag(f.id, 2), ...lengthDelimited(values.flat())]);
  return fc.oneof(single, packed);
}

// ---------------------------------------------------------------------------------------------------------------

describe('protobuf decoder', () => {
  it.each(TYPES.map((t) => [t.fullName, t] as const))(
    'decodes random %s messages exactly as protobufjs and the old record walk do',
    (_, type) => {
      fc.assert(
        fc.property(messageArb(type, 0), (bytes) => assertAgrees(type, new Uint8Array(bytes))),
        { numRuns: 400 },
      );
    },
  );

  it('decodes messages written by protobufjs itself as protobufjs reads them', () => {
    const order = ORDER.fromObject({
      id: '-9223372036854775808',
      customer: 'Zoë',
      status: 2,
      ship_to: { street: 'Main St.', city: 'Zürich', floor: -3 },
      items: [{ sku: 'a', quantity: 4294967295, unit_price: -0 }, {}],
      tags: ['x', '', 'z'],
      counts: { a: -1, ['__proto__']: 5, '10': 3, '2': 2 },
      voucher_id: '9007199254740993',
      signature: Buffer.from([0, 255]),
      big_counter: '18446744073709551615',
      delta: '-1',
      stamp: '1',
      weight: 3.4028234663852886e38,
      gift: true,
      history: ['0', '-1', '9223372036854775807'],
      notes: { '-9223372036854775808': 'min', '0': 'zero', '18': 'x' },
    });
    assertAgrees(ORDER, ORDER.encode(order).finish());
    const fixture = readFileSync(join(FIXTURES, 'single-full.input.bin'));
    assertAgrees(ORDER, fixture);
  });

  it('agrees with protobufjs on every prefix of a message: equal, or refused by both', () => {
    const samples = fc.sample(fc.oneof(...TYPES.map((t) => messageArb(t, 0).map((b) => [t, b] as const))), {
      numRuns: 60,
      seed: 19,
    });
    samples.push([ORDER, [...readFileSync(join(FIXTURES, 'single-full.input.bin'))]]);
    for (const [type, bytes] of samples) {
      for (let end = 0; end <= bytes.length; end++) assertAgrees(type, new Uint8Array(bytes.slice(0, end)));
    }
  });

  it('never throws anything but its decode error on arbitrary bytes, and agrees where both read them', () => {
    fc.assert(
      fc.property(fc.constantFrom(...TYPES), fc.uint8Array({ maxLength: 64 }), (type, bytes) => {
        const actual = decoded(type, bytes);
        if ('error' in actual) {
          expect(actual.error).toBeInstanceOf(ProtobufDecodeError);
          return;
        }
        const expected = oracle(type, bytes);
        if ('value' in expected) assertSame(actual.value, expected.value);
      }),
      { numRuns: 3000 },
    );
  });

  it('reads a message that is a range of a larger input, copying bytes out of it', () => {
    const message = [...tag(15, 2), ...lengthDelimited([1, 2, 3])];
    const input = new Uint8Array([9, 9, ...message, 9]);
    const value = protobufDecoder(SCALARS).decode(protobufInput(input), 2, 2 + message.length);
    const bytes = value.f_bytes as Uint8Array;
    expect(Object.getPrototypeOf(bytes)).toBe(Uint8Array.prototype);
    expect([...bytes]).toEqual([1, 2, 3]);
    expect(bytes.buffer).not.toBe(input.buffer);
    expect(() => protobufDecoder(SCALARS).decode(input, 2, input.length + 1)).toThrow(RangeError);
    // Byte numbers in errors count from the start of the message.
    const cut = protobufInput(new Uint8Array([9, 9, ...tag(14, 2), 5, 0x61]));
    expect(() => protobufDecoder(SCALARS).decode(cut, 2, 5)).toThrow(
      'the message ends inside a value at byte 1',
    );
  });

  it('builds every message of a type as a list-map of one shape, nested ones included', () => {
    const top = protobufDecoder(NODE).decode(new Uint8Array([...tag(2, 2), ...lengthDelimited([])]));
    const other = protobufDecoder(NODE).decode(new Uint8Array(0));
    expect(isListMap(top) && isListMap(top.child)).toBe(true);
    expect(Object.getPrototypeOf(other)).toBe(Object.getPrototypeOf(top));
    expect(Object.getPrototypeOf(top.child)).toBe(Object.getPrototypeOf(top));
    expect(listMapKeys(top)).toEqual(NODE.fieldsArray.map((f) => f.name));
  });

  it('gives each record its own empty lists, maps and default bytes', () => {
    const decoder = protobufDecoder(DEFAULTS);
    const first = decoder.decode(new Uint8Array(0));
    const second = decoder.decode(new Uint8Array(0));
    for (const name of ['r_closed', 'm_closed', 'd_bytes']) expect(first[name]).not.toBe(second[name]);
    expect([...(first.d_bytes as Uint8Array)]).toEqual([...Buffer.from('ab')]);
  });

  it('reads absent fields as their defaults, and a 64-bit map key that is not sent as 0', () => {
    const value = protobufDecoder(DEFAULTS).decode(new Uint8Array(0));
    expect(value.d_int64).toBe(-5000000000n);
    expect(value.d_fixed64).toBe(9007199254740991n);
    expect(value.d_enum).toBe('FIVE');
    expect(value.closed).toBe('ONE');
    expect(value.c_text).toBeNull();
    const noKey = protobufDecoder(MAPS).decode(
      new Uint8Array([...tag(15, 2), ...lengthDelimited([...tag(2, 0), 1])]),
    );
    expect(noKey.m_long).toEqual({ '': 1n });
    const longKey = protobufDecoder(MAPS).decode(
      new Uint8Array([...tag(7, 2), ...lengthDelimited([...tag(2, 0), 5])]),
    );
    expect(longKey.m_uint64).toEqual({ '0': 5n });
  });

  it('reads an absent proto3 optional scalar as its type zero, and an absent optional message as null', () => {
    const value = protobufDecoder(SCALARS).decode(new Uint8Array(0));
    expect(value.o_int32).toBe(0);
    expect(value.o_int64).toBe(0n);
    expect(value.o_string).toBe('');
    expect(value.o_bool).toBe(false);
    expect(value.o_float).toEqual(field('FLOAT', 0));
    expect(value.o_double).toEqual(field('DOUBLE', 0));
    expect(value.o_bytes).toEqual(new Uint8Array(0));
    expect(value.o_enum).toBe('RED');
    expect(value.o_node).toBeNull();
  });

  it('reads a field whose descriptor name looks like code as a name, never running it', () => {
    const name = "a'); globalThis.pwned = 1; ('`\n";
    const root = new protobuf.Root();
    const type = new protobuf.Type('Hostile').add(new protobuf.Field(name, 1, 'string'));
    root.add(type);
    root.resolveAll();
    const value = protobufDecoder(type).decode(new Uint8Array([10, 2, 104, 105]));
    expect(listMapEntries(value)).toEqual([[name, 'hi']]);
    expect((globalThis as { pwned?: unknown }).pwned).toBeUndefined();
  });

  it('keeps a map key named __proto__ as a member, not as a prototype', () => {
    const entry = [
      ...tag(1, 2),
      ...lengthDelimited([...Buffer.from('__proto__')]),
      ...tag(2, 2),
      ...lengthDelimited([0x78]),
    ];
    const value = protobufDecoder(MAPS).decode(new Uint8Array([...tag(12, 2), ...lengthDelimited(entry)]));
    const members = value.m_string as Record<string, unknown>;
    expect(Object.getPrototypeOf(members)).toBe(Object.prototype);
    expect(Object.keys(members)).toEqual(['__proto__']);
    expect(Object.getOwnPropertyDescriptor(members, '__proto__')?.value).toBe('x');
  });

  it('keeps the member of a oneof read last and unsets the others', () => {
    const bytes = [...tag(4, 0), 7, ...tag(5, 2), ...lengthDelimited([0x61]), ...tag(8, 0), 3];
    const value = protobufDecoder(NODE).decode(new Uint8Array(bytes));
    expect([value.n, value.s, value.node, value.l]).toEqual([null, null, null, 3n]);
  });

  it('merges a singular message field that occurs twice, as protobuf does', () => {
    const child = (payload: Bytes) => [...tag(2, 2), ...lengthDelimited(payload)];
    const bytes = [
      ...child([...tag(1, 2), ...lengthDelimited([0x61]), ...tag(3, 2), ...lengthDelimited([])]),
      ...child([...tag(9, 0), 2, ...tag(3, 2), ...lengthDelimited([])]),
    ];
    const fields = protobufDecoder(NODE).decode(new Uint8Array(bytes)).child as ListMap;
    expect([fields.name, fields.color, (fields.children as unknown[]).length]).toEqual(['a', 'BLUE', 2]);
  });

  it('refuses messages nested deeper than the limit, and reads them up to it', () => {
    const nest = (levels: number): Bytes => {
      let bytes: Bytes = [];
      for (let i = 0; i < levels; i++) bytes = [...tag(2, 2), ...lengthDelimited(bytes)];
      return bytes;
    };
    expect(() => protobufDecoder(NODE).decode(new Uint8Array(nest(MAX_PROTOBUF_DEPTH)))).not.toThrow();
    assertAgrees(NODE, new Uint8Array(nest(MAX_PROTOBUF_DEPTH)));
    expect(() => protobufDecoder(NODE).decode(new Uint8Array(nest(MAX_PROTOBUF_DEPTH + 1)))).toThrow(
      new ProtobufDecodeError(`messages nest deeper than ${MAX_PROTOBUF_DEPTH} levels`),
    );
    assertAgrees(NODE, new Uint8Array(nest(MAX_PROTOBUF_DEPTH + 1)));
    const groups = (levels: number): Bytes => {
      let bytes: Bytes = [];
      for (let i = 0; i < levels; i++) bytes = [...tag(40, 3), ...bytes, ...tag(40, 4)];
      return bytes;
    };
    expect(() => protobufDecoder(NODE).decode(new Uint8Array(groups(MAX_PROTOBUF_DEPTH + 5)))).toThrow(
      ProtobufDecodeError,
    );
    assertAgrees(NODE, new Uint8Array(groups(MAX_PROTOBUF_DEPTH + 5)));
  });

  it.each([
    [
      'a varint longer than 10 bytes',
      [...tag(3, 0), ...Array<number>(10).fill(0x80), 1],
      /longer than 10 bytes/,
    ],
    [
      'an unknown varint longer than 10 bytes',
      [...tag(50, 0), ...Array<number>(11).fill(0x80), 1],
      /longer than 10 bytes/,
    ],
    ['a varint cut short', [...tag(8, 0), 0x80], /ends inside a value/],
    ['a length past the end', [...tag(14, 2), 5, 0x61], /ends inside a value at byte 1$/],
    ['a huge length', [...tag(15, 2), 0xff, 0xff, 0xff, 0xff, 0x07], /ends inside a value at byte 1$/],
    ['a length of 2^31', [...tag(15, 2), 0x80, 0x80, 0x80, 0x80, 0x08], /invalid length/],
    ['wire type 6', [...tag(3, 6)], /invalid wire type 6/],
    ['wire type 7', [...tag(50, 7)], /invalid wire type 7/],
    ['a stray end-group tag', [...tag(50, 4)], /invalid wire type 4/],
    ['field number 0', [0x02, 0x00], /illegal tag: field number 0/],
    ['a group without its end', [...tag(50, 3), ...tag(1, 0), 1], /ends inside a value/],
    ['a group ended by another number', [...tag(50, 3), ...tag(51, 4)], /invalid end group tag/],
    ['a tag past 32 bits', [0x80, 0x80, 0x80, 0x80, 0x10], /invalid tag encoding/],
    ['a packed double run that splits a value', [...tag(21, 2), 3, 0, 0, 0], /whole number of values/],
    ['a proto3 string that is not UTF-8', [...tag(14, 2), 2, 0xc3, 0x28], /invalid UTF-8/],
  ])('refuses %s with a short detail', (_, bytes, detail) => {
    const input = new Uint8Array(bytes);
    expect(() => protobufDecoder(SCALARS).decode(input)).toThrow(detail);
    expect(() => protobufDecoder(SCALARS).decode(input)).toThrow(ProtobufDecodeError);
  });

  it('reads a proto2 string that is not UTF-8 with replacement characters', () => {
    const value = protobufDecoder(DEFAULTS).decode(new Uint8Array([...tag(24, 2), 2, 0xc3, 0x28]));
    expect(value.s).toBe('\ufffd(');
  });

  it('refuses a proto2 message without a required field, and an end group inside a group field', () => {
    expect(() => protobufDecoder(REQUIRED).decode(new Uint8Array([...tag(1, 0), 1]))).toThrow(
      "missing required 'd'",
    );
    expect(() => protobufDecoder(DEFAULTS).decode(new Uint8Array([...tag(20, 3), ...tag(1, 0), 1]))).toThrow(
      'missing end group',
    );
  });

  it('reads a message type without fields as protoc does, where protobufjs does not', () => {
    const group = [...tag(5, 3), ...tag(1, 0), 1, ...tag(5, 4)];
    expect(listMapEntries(protobufDecoder(EMPTY).decode(new Uint8Array(group)))).toEqual([]);
    expect(() => EMPTY.decode(new Uint8Array(group))).toThrow('invalid end group tag');
    expect(() => protobufDecoder(EMPTY).decode(new Uint8Array([0x02, 0x00]))).toThrow('field number 0');
    expect(() => EMPTY.decode(new Uint8Array([0x02, 0x00]))).not.toThrow();
  });

  it('drops numbers a closed enum does not name and keeps those of an open enum', () => {
    const closed = protobufDecoder(DEFAULTS).decode(
      new Uint8Array([
        ...tag(15, 0),
        2,
        ...tag(15, 0),
        9,
        ...tag(16, 0),
        9,
        ...tag(16, 0),
        5,
        ...tag(23, 2),
        ...lengthDelimited([...tag(1, 0), 1, ...tag(2, 0), 9]),
      ]),
    );
    expect([closed.closed, closed.r_closed, closed.m_closed]).toEqual(['TWO', ['FIVE'], {}]);
    const open = protobufDecoder(SCALARS).decode(
      new Uint8Array([...tag(16, 0), 9, ...tag(36, 2), ...lengthDelimited([1, 9])]),
    );
    expect([open.f_enum, open.r_enum]).toEqual([9, ['GREEN', 9]]);
  });
});

import { isUtf8 } from 'node:buffer';
import protobuf from 'protobufjs';
import { doubleValue, TypedField, type FieldValue, type PlainMap } from '../../record/field';
import { ShortStrings, utf8Bytes, type Utf8Bytes } from '../short-strings';

/**
 * How deep messages and groups may nest below the top message: deeper input is refused before the call stack
 * runs out (protobufjs's and protoc's recursion limit).
 */
export const MAX_PROTOBUF_DEPTH = 100;
/** Field numbers up to this one are found by array index; a type with larger ones uses a Map for those. */
const MAX_INDEXED_FIELD_NUMBER = 1024;

/**
 * Why bytes are not a message of the type, thrown by {@link ProtobufDecoder.decode}: `message` is a short detail
 * (what is wrong and at which byte of the message) for `ORIGIN_PROTOBUF_MALFORMED`.
 */
export class ProtobufDecodeError extends Error {
  constructor(detail: string) {
    super(detail);
    this.name = 'ProtobufDecodeError';
  }
}

// Kinds of value, one per protobuf scalar type plus enum, message and group (a message between group tags).
const DOUBLE = 0;
const FLOAT = 1;
const INT32 = 2;
const UINT32 = 3;
const SINT32 = 4;
const FIXED32 = 5;
const SFIXED32 = 6;
const INT64 = 7;
const UINT64 = 8;
const SINT64 = 9;
const FIXED64 = 10;
const SFIXED64 = 11;
const BOOL = 12;
const STRING = 13;
const BYTES = 14;
const ENUM = 15;
const MESSAGE = 16;
const GROUP = 17;

const SCALAR_KINDS: Readonly<Record<string, number>> = {
  double: DOUBLE,
  float: FLOAT,
  int32: INT32,
  uint32: UINT32,
  sint32: SINT32,
  fixed32: FIXED32,
  sfixed32: SFIXED32,
  int64: INT64,
  uint64: UINT64,
  sint64: SINT64,
  fixed64: FIXED64,
  sfixed64: SFIXED64,
  bool: BOOL,
  string: STRING,
  bytes: BYTES,
};
/** The wire type each kind is written with when not packed. */
const WIRE_TYPES = [1, 5, 0, 0, 0, 5, 5, 0, 0, 0, 1, 1, 0, 2, 2, 0, 2, 3];

/** An enum number a closed (proto2) enum does not name: protobufjs leaves such a value out of the message. */
const UNKNOWN_ENUM: unique symbol = Symbol('unknown enum value');
/** A required field not (yet) read. */
const MISSING: unique symbol = Symbol('missing required field');
type Slot = FieldValue | typeof MISSING;

// Stand-ins for the empty list, map and bytes of a field not read: the fresh value is made only if none comes.
const NO_LIST = Object.freeze([]) as unknown as FieldValue[];
const NO_MAP = Object.freeze({}) as PlainMap;

/** What one value on the wire is: a field's value, or a map's key or value. */
interface ValuePlan {
  readonly kind: number;
  /** Strings must be valid UTF-8 (proto3 and editions default); otherwise bad bytes become U+FFFD. */
  readonly verifyUtf8: boolean;
  /** An enum's names by number (`valuesById`); null for other kinds. */
  readonly enumNames: Readonly<Record<number, string>> | null;
  readonly closedEnum: boolean;
  /** Of a message or group; filled in after the plan is cached, so that recursive types compile. */
  message: MessagePlan | null;
  /** The field's name, for error details. */
  readonly name: string;
}

interface FieldPlan extends ValuePlan {
  readonly slot: number;
  readonly wireType: number;
  readonly repeated: boolean;
  /** Repeated and of a scalar or enum type: a length-delimited run of values is accepted too. */
  readonly packable: boolean;
  /** Other members of the field's oneof: setting this one unsets them. */
  readonly oneofOthers: readonly number[];
  /** Of a map field: its key, its value (the field's own plan holds the value too), their defaults. */
  readonly map: MapPlan | null;
}

interface MapPlan {
  readonly key: ValuePlan;
  readonly keyWireType: number;
  /** The key text when an entry has no key. */
  readonly keyDefault: string;
  readonly valueWireType: number;
  /** The value when an entry has none (a message value gets an empty message instead). */
  readonly valueDefault: FieldValue | typeof UNKNOWN_ENUM;
}

/** Reads one message of a plan: the arguments of {@link readMessage} after the plan. */
type MessageReader = (
  r: WireReader,
  end: number,
  depth: number,
  endTag: number,
  previous: TypedField | null,
) => TypedField<'LIST_MAP'>;

interface MessagePlan {
  readonly names: string[];
  /** Each slot's field. */
  readonly fields: FieldPlan[];
  /** The reader generated for this plan (see {@link compileReader}). */
  reader: MessageReader;
  /** Each slot's value when its field is absent, as the record holds it (stand-ins for lists, maps, bytes). */
  readonly defaults: Slot[];
  /** {@link defaults} with {@link MISSING} for required fields: where decoding starts. */
  readonly initial: Slot[];
  /** Slots whose default is a stand-in that must become a fresh value of its own per record. */
  readonly freshSlots: number[];
  readonly required: number[];
  readonly byNumber: (FieldPlan | undefined)[];
  /** Fields numbered past {@link MAX_INDEXED_FIELD_NUMBER}; null when there are none. */
  readonly byLargeNumber: Map<number, FieldPlan> | null;
}

interface FeatureHolder {
  readonly _features?: { readonly utf8_validation?: string; readonly enum_type?: string };
}

function features(holder: unknown): FeatureHolder['_features'] {
  return (holder as FeatureHolder)._features;
}

declare const inputBrand: unique symbol;

/**
 * The bytes of one input, prepared for {@link ProtobufDecoder.decode} by {@link protobufInput}: make one per
 * buffer and decode every message of that buffer through it, so that the views the decoder reads through are made
 * once, not once per message. Opaque; `length` is the byte length of the input.
 */
export interface ProtobufInput {
  readonly [inputBrand]: true;
  readonly length: number;
}

/**
 * A {@link ProtobufInput} over `bytes`, which stay owned by the caller and must not change while messages are
 * decoded from them. Decoding is synchronous, so one input serves any number of decodes one after another.
 * `strings` remembers short strings across decodes: pass one per parse (request body) to every input of it.
 */
export function protobufInput(bytes: Uint8Array, strings: ShortStrings = new ShortStrings()): ProtobufInput {
  return new WireReader(bytes, strings) as unknown as ProtobufInput;
}

/** A read position in one input and the wire-format reads, each bounded by an `end` within the input. */
class WireReader {
  readonly #bytes: Uint8Array;
  readonly #text: Utf8Bytes;
  readonly #strings: ShortStrings;
  readonly #view: DataView;
  #pos = 0;
  /** Where the message being decoded starts. */
  #origin = 0;
  /** Low and high 32 bits (unsigned) of the last 64-bit value read. */
  #lo = 0;
  #hi = 0;

  constructor(bytes: Uint8Array, strings: ShortStrings) {
    // A plain Uint8Array view: its slice copies into a plain Uint8Array (a Buffer's slice is a view).
    this.#bytes = new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.length);
    this.#text = utf8Bytes(bytes);
    this.#strings = strings;
    this.#view = new DataView(bytes.buffer, bytes.byteOffset, bytes.length);
  }

  /** Starts reading a message at `start`: byte numbers in errors count from there. */
  begin(start: number): void {
    this.#pos = start;
    this.#origin = start;
  }

  /** A decode error: `detail` and the byte of the message it happened at (default: the read position). */
  error(detail: string, at = this.#pos): ProtobufDecodeError {
    return new ProtobufDecodeError(`${detail} at byte ${at - this.#origin}`);
  }

  get length(): number {
    return this.#bytes.length;
  }

  get pos(): number {
    return this.#pos;
  }

  get lo(): number {
    return this.#lo;
  }

  get hi(): number {
    return this.#hi;
  }

  /** The varint at the read position, as its low 32 bits (unsigned); at most 10 bytes, all before `end`. */
  varint32(end: number): number {
    const bytes = this.#bytes;
    let pos = this.#pos;
    if (end - pos >= 10) {
      let b = bytes[pos++]!;
      let value = b & 0x7f;
      if (b < 0x80) {
        this.#pos = pos;
        return value;
      }
      b = bytes[pos++]!;
      value |= (b & 0x7f) << 7;
      if (b < 0x80) {
        this.#pos = pos;
        return value;
      }
      b = bytes[pos++]!;
      value |= (b & 0x7f) << 14;
      if (b < 0x80) {
        this.#pos = pos;
        return value;
      }
      b = bytes[pos++]!;
      value |= (b & 0x7f) << 21;
      if (b < 0x80) {
        this.#pos = pos;
        return value >>> 0;
      }
      b = bytes[pos++]!;
      value = (value | (b << 28)) >>> 0;
      // Bytes 6 to 10 only hold bits past 32 (a negative int32 is written as 10 bytes).
      for (let i = 0; b >= 0x80 && i < 5; i++) b = bytes[pos++]!;
      if (b >= 0x80) throw this.#tooLong();
      this.#pos = pos;
      return value;
    }
    this.varint64(end);
    return this.#lo;
  }

  /** The varint at the read position into {@link lo} and {@link hi}; at most 10 bytes, all before `end`. */
  varint64(end: number): void {
    const bytes = this.#bytes;
    let pos = this.#pos;
    let lo = 0;
    let hi = 0;
    let b = 0x80;
    let shift = 0;
    for (; shift < 28 && b >= 0x80; shift += 7) {
      if (pos >= end) throw this.#truncated();
      b = bytes[pos++]!;
      lo |= (b & 0x7f) << shift;
    }
    if (b >= 0x80) {
      if (pos >= end) throw this.#truncated();
      b = bytes[pos++]!;
      lo |= b << 28;
      hi = (b & 0x7f) >>> 4;
      for (shift = 3; shift <= 31 && b >= 0x80; shift += 7) {
        if (pos >= end) throw this.#truncated();
        b = bytes[pos++]!;
        hi |= (b & 0x7f) << shift;
      }
      if (b >= 0x80) throw this.#tooLong();
    }
    this.#pos = pos;
    this.#lo = lo >>> 0;
    this.#hi = hi >>> 0;
  }

  /** A varint as protobufjs reads a bool: true when any of its bits is set. */
  bool(end: number): boolean {
    const bytes = this.#bytes;
    let pos = this.#pos;
    let bits = 0;
    for (let i = 0; i < 10; i++) {
      if (pos >= end) throw this.#truncated();
      const b = bytes[pos++]!;
      bits |= b & 0x7f;
      if (b < 0x80) {
        this.#pos = pos;
        return bits !== 0;
      }
    }
    throw this.#tooLong();
  }

  /** A field tag: a varint of at most 5 bytes that fits 32 bits. */
  tag(end: number): number {
    const bytes = this.#bytes;
    const pos = this.#pos;
    if (end - pos >= 2) {
      const b0 = bytes[pos]!;
      if (b0 < 0x80) {
        this.#pos = pos + 1;
        return b0;
      }
      const b1 = bytes[pos + 1]!;
      if (b1 < 0x80) {
        this.#pos = pos + 2;
        return (b0 & 0x7f) | (b1 << 7);
      }
    }
    const start = pos;
    this.varint64(end);
    if (this.#hi !== 0 || this.#pos - start > 5) {
      throw this.error('invalid tag encoding', start);
    }
    return this.#lo;
  }

  /** A length prefix (below 2^31) whose bytes all lie before `end`; the read position moves past the prefix. */
  lengthPrefix(end: number): number {
    const at = this.#pos;
    if (at < end) {
      const b = this.#bytes[at]!;
      if (b < 0x80) {
        if (b > end - at - 1) throw this.#truncated();
        this.#pos = at + 1;
        return b;
      }
    }
    this.varint64(end);
    const length = this.#lo;
    if (this.#hi !== 0 || length > 0x7fffffff || this.#pos - at > 5) {
      throw this.error('invalid length', at);
    }
    if (length > end - this.#pos) throw this.error('the message ends inside a value', at);
    return length;
  }

  /** Fixed 32 bits, little-endian, unsigned. */
  fixed32(end: number): number {
    const pos = this.#pos;
    if (end - pos < 4) throw this.#truncated();
    this.#pos = pos + 4;
    return this.#view.getUint32(pos, true);
  }

  /** Fixed 64 bits, little-endian, into {@link lo} and {@link hi}. */
  fixed64(end: number): void {
    const pos = this.#pos;
    if (end - pos < 8) throw this.#truncated();
    this.#pos = pos + 8;
    this.#lo = this.#view.getUint32(pos, true);
    this.#hi = this.#view.getUint32(pos + 4, true);
  }

  /** A 32-bit IEEE 754 float, little-endian. */
  float(end: number): number {
    const pos = this.#pos;
    if (end - pos < 4) throw this.#truncated();
    this.#pos = pos + 4;
    return this.#view.getFloat32(pos, true);
  }

  /** A 64-bit IEEE 754 double, little-endian. */
  double(end: number): number {
    const pos = this.#pos;
    if (end - pos < 8) throw this.#truncated();
    this.#pos = pos + 8;
    return this.#view.getFloat64(pos, true);
  }

  /** A length-delimited string; with `verify`, bytes that are not UTF-8 are refused, else they become U+FFFD. */
  string(end: number, verify: boolean, name: string): string {
    const length = this.lengthPrefix(end);
    const start = this.#pos;
    const stop = start + length;
    this.#pos = stop;
    const text = this.#strings.decode(this.#bytes, this.#text, start, stop);
    // A U+FFFD in the text is either in the input or stands for bad bytes: only then is the check needed.
    if (verify && text.includes('\ufffd') && !isUtf8(this.#bytes.subarray(start, stop))) {
      throw this.error(`field '${name}' holds invalid UTF-8`, start);
    }
    return text;
  }

  /** A length-delimited byte string, copied. */
  bytes(end: number): Uint8Array {
    const length = this.lengthPrefix(end);
    const start = this.#pos;
    this.#pos = start + length;
    return this.#bytes.slice(start, start + length);
  }

  /** Moves past `length` bytes that lie before `end`. */
  skipBytes(length: number, end: number): void {
    if (length > end - this.#pos) throw this.#truncated();
    this.#pos += length;
  }

  /** Reads move {@link pos} only once they succeed, so for these two it is where the failed value starts. */
  #truncated(): ProtobufDecodeError {
    return this.error('the message ends inside a value');
  }

  #tooLong(): ProtobufDecodeError {
    return this.error('a varint longer than 10 bytes');
  }
}

/** A signed 64-bit value from its unsigned 32-bit halves. */
function signed64(lo: number, hi: number): bigint {
  // Values within ±2^53 are exact as numbers, and BigInt of a number is cheaper than shifting bigints.
  if (hi < 0x200000) return BigInt(hi * 4294967296 + lo);
  if (hi >= 0xffe00000) return BigInt((hi - 4294967296) * 4294967296 + lo);
  return BigInt.asIntN(64, (BigInt(hi) << 32n) | BigInt(lo));
}

/** An unsigned 64-bit value from its unsigned 32-bit halves. */
function unsigned64(lo: number, hi: number): bigint {
  if (hi < 0x200000) return BigInt(hi * 4294967296 + lo);
  return (BigInt(hi) << 32n) | BigInt(lo);
}

/** The zig-zag decoded signed value of the last varint read. */
function zigzag64(r: WireReader): bigint {
  const lo = r.lo;
  const hi = r.hi;
  const mask = -(lo & 1);
  return signed64((((lo >>> 1) | (hi << 31)) ^ mask) >>> 0, ((hi >>> 1) ^ mask) >>> 0);
}

/** One scalar or enum value of `plan` at the read position, as the record holds it. */
function readScalar(r: WireReader, end: number, plan: ValuePlan): FieldValue | typeof UNKNOWN_ENUM {
  switch (plan.kind) {
    case DOUBLE:
      return doubleValue(r.double(end));
    case FLOAT:
      return new TypedField('FLOAT', r.float(end));
    case INT32:
      return r.varint32(end) | 0;
    case UINT32:
      return r.varint32(end);
    case SINT32: {
      const n = r.varint32(end);
      return ((n >>> 1) ^ -(n & 1)) | 0;
    }
    case FIXED32:
      return r.fixed32(end);
    case SFIXED32:
      return r.fixed32(end) | 0;
    case INT64:
      r.varint64(end);
      return signed64(r.lo, r.hi);
    case UINT64:
      r.varint64(end);
      return unsigned64(r.lo, r.hi);
    case SINT64:
      r.varint64(end);
      return zigzag64(r);
    case FIXED64:
      r.fixed64(end);
      return unsigned64(r.lo, r.hi);
    case SFIXED64:
      r.fixed64(end);
      return signed64(r.lo, r.hi);
    case BOOL:
      return r.bool(end);
    case STRING:
      return r.string(end, plan.verifyUtf8, plan.name);
    case BYTES:
      return r.bytes(end);
    default: {
      const n = r.varint32(end) | 0;
      const name = plan.enumNames![n];
      if (name !== undefined) return name;
      // An open enum keeps a number it does not name; a closed one drops it, as protobufjs does.
      return plan.closedEnum ? UNKNOWN_ENUM : n;
    }
  }
}

/** Moves past one field of wire type `wireType` that is not read (unknown, or sent with another wire type). */
function skipField(r: WireReader, wireType: number, number: number, end: number, depth: number): void {
  if (depth > MAX_PROTOBUF_DEPTH) throw tooDeep();
  if (number === 0) throw new ProtobufDecodeError('illegal tag: field number 0');
  switch (wireType) {
    case 0:
      r.varint64(end);
      return;
    case 1:
      r.skipBytes(8, end);
      return;
    case 2:
      r.skipBytes(r.lengthPrefix(end), end);
      return;
    case 3:
      for (;;) {
        const at = r.pos;
        const tag = r.tag(end);
        const inner = tag >>> 3;
        if ((tag & 7) === 4) {
          if (inner !== number) throw r.error('invalid end group tag', at);
          return;
        }
        skipField(r, tag & 7, inner, end, depth + 1);
      }
    case 5:
      r.skipBytes(4, end);
      return;
    default:
      throw r.error(`invalid wire type ${wireType}`);
  }
}

function tooDeep(): ProtobufDecodeError {
  return new ProtobufDecodeError(`messages nest deeper than ${MAX_PROTOBUF_DEPTH} levels`);
}

/**
 * The message of `plan` from the read position up to `end` (a length-delimited message) or up to its end-group
 * tag `endTag` (a group; -1 otherwise), as a LIST_MAP. `previous` is the value of an earlier occurrence of the
 * same singular field, which this one is merged into as protobuf (and protobufjs) merges messages.
 */
function readMessage(
  plan: MessagePlan,
  r: WireReader,
  end: number,
  depth: number,
  endTag: number,
  previous: TypedField | null,
): TypedField<'LIST_MAP'> {
  return plan.reader(r, end, depth, endTag, previous);
}

/**
 * One occurrence of a field whose tag (number and wire type) the generated reader has no case for: unknown
 * fields, wire-type mismatches, groups, map entries and everything else rare takes this general path.
 */
function readField(
  plan: MessagePlan,
  slots: Slot[],
  r: WireReader,
  tag: number,
  end: number,
  depth: number,
): void {
  const number = tag >>> 3;
  const wireType = tag & 7;
  const byNumber = plan.byNumber;
  const f = number < byNumber.length ? byNumber[number] : plan.byLargeNumber?.get(number);
  if (f === undefined) {
    skipField(r, wireType, number, end, depth);
  } else if (f.map !== null) {
    if (wireType === 2) readMapEntry(f, f.map, slots, r, end, depth);
    else skipField(r, wireType, number, end, depth);
  } else if (f.repeated) {
    readRepeated(f, slots, r, wireType, number, end, depth);
  } else if (wireType !== f.wireType) {
    skipField(r, wireType, number, end, depth);
  } else {
    let value: FieldValue | typeof UNKNOWN_ENUM;
    if (f.kind === MESSAGE) {
      const stop = r.lengthPrefix(end) + r.pos;
      const before = slots[f.slot];
      value = readMessage(f.message!, r, stop, depth + 1, -1, before instanceof TypedField ? before : null);
    } else if (f.kind === GROUP) {
      const before = slots[f.slot];
      const tag = number * 8 + 4;
      value = readMessage(f.message!, r, end, depth + 1, tag, before instanceof TypedField ? before : null);
    } else {
      value = readScalar(r, end, f);
      if (value === UNKNOWN_ENUM) return;
    }
    slots[f.slot] = value;
    const others = f.oneofOthers;
    for (let i = 0; i < others.length; i++) slots[others[i]!] = null;
  }
}

/** The LIST_MAP of a message's slots, each absent list, map and bytes made fresh. */
function buildRecord(plan: MessagePlan, slots: Slot[]): TypedField<'LIST_MAP'> {
  const fresh = plan.freshSlots;
  for (let i = 0; i < fresh.length; i++) {
    const slot = fresh[i]!;
    const value = slots[slot];
    if (value === NO_LIST) slots[slot] = [];
    else if (value === NO_MAP) slots[slot] = {};
    else if (value === plan.defaults[slot]) slots[slot] = (value as Uint8Array).slice();
  }
  const names = plan.names;
  const fields = new Map<string, FieldValue>();
  for (let i = 0; i < names.length; i++) fields.set(names[i]!, slots[i] as FieldValue);
  return new TypedField('LIST_MAP', fields);
}

/** A message with every field at its default, for a map entry without a value (protobufjs: `new ctor`). */
function emptyRecord(plan: MessagePlan): TypedField<'LIST_MAP'> {
  return buildRecord(plan, plan.defaults.slice());
}

/** One occurrence of a repeated field: one value, or a packed run of them. */
function readRepeated(
  f: FieldPlan,
  slots: Slot[],
  r: WireReader,
  wireType: number,
  number: number,
  end: number,
  depth: number,
): void {
  let list = slots[f.slot] as FieldValue[];
  if (wireType === f.wireType) {
    if (list === NO_LIST) slots[f.slot] = list = [];
    if (f.kind === MESSAGE) {
      const stop = r.lengthPrefix(end) + r.pos;
      list.push(readMessage(f.message!, r, stop, depth + 1, -1, null));
    } else if (f.kind === GROUP) {
      list.push(readMessage(f.message!, r, end, depth + 1, number * 8 + 4, null));
    } else {
      const value = readScalar(r, end, f);
      if (value !== UNKNOWN_ENUM) list.push(value);
    }
  } else if (wireType === 2 && f.packable) {
    if (list === NO_LIST) slots[f.slot] = list = [];
    const length = r.lengthPrefix(end);
    const stop = r.pos + length;
    const width = f.wireType === 5 ? 4 : f.wireType === 1 ? 8 : 1;
    // protobufjs reads the whole values first and then refuses the rest; the message fails either way.
    if (length % width !== 0) {
      throw new ProtobufDecodeError(`packed field '${f.name}' does not hold a whole number of values`);
    }
    while (r.pos < stop) {
      const value = readScalar(r, stop, f);
      if (value !== UNKNOWN_ENUM) list.push(value);
    }
  } else {
    skipField(r, wireType, number, end, depth);
  }
}

/** One entry of a map field (a message of key = 1 and value = 2) into the field's plain object. */
function readMapEntry(
  f: FieldPlan,
  map: MapPlan,
  slots: Slot[],
  r: WireReader,
  end: number,
  depth: number,
): void {
  const stop = r.lengthPrefix(end) + r.pos;
  const keyTag = (1 << 3) | map.keyWireType;
  const valueTag = (2 << 3) | map.valueWireType;
  let key = map.keyDefault;
  let value: FieldValue | typeof UNKNOWN_ENUM | undefined;
  while (r.pos < stop) {
    const tag = r.tag(stop);
    if (tag === keyTag) {
      // Numbers, bigints and booleans as their decimal text or true/false, as the record's MAP keys are.
      key = String(readScalar(r, stop, map.key) as string | number | bigint | boolean);
    } else if (tag === valueTag) {
      if (f.kind === MESSAGE) {
        const valueEnd = r.lengthPrefix(stop) + r.pos;
        const before = value instanceof TypedField ? value : null;
        value = readMessage(f.message!, r, valueEnd, depth + 1, -1, before);
      } else {
        value = readScalar(r, stop, f);
      }
    } else {
      skipField(r, tag & 7, tag >>> 3, stop, depth);
    }
  }
  if (value === undefined) {
    if (f.kind === MESSAGE) value = emptyRecord(f.message!);
    else value = map.valueDefault instanceof Uint8Array ? map.valueDefault.slice() : map.valueDefault;
  }
  // protobufjs drops a whole entry whose value a closed enum does not name.
  if (value === UNKNOWN_ENUM) return;
  let members = slots[f.slot] as PlainMap;
  if (members === NO_MAP) slots[f.slot] = members = {};
  if (key === '__proto__') {
    // defineProperty, not assignment: a key named __proto__ must become a member, not a prototype.
    Object.defineProperty(members, key, { value, enumerable: true, writable: true, configurable: true });
  } else {
    members[key] = value;
  }
}

// One plan per message type, compiled on first use and kept as long as the type is.
const plans = new WeakMap<protobuf.Type, MessagePlan>();

function planOf(type: protobuf.Type): MessagePlan {
  const cached = plans.get(type);
  if (cached) return cached;
  const fields = type.fieldsArray;
  const names: string[] = [];
  const defaults: Slot[] = [];
  const initial: Slot[] = [];
  const freshSlots: number[] = [];
  const required: number[] = [];
  const byNumber: (FieldPlan | undefined)[] = [];
  let byLargeNumber: Map<number, FieldPlan> | null = null;
  const messages: [ValuePlan, protobuf.Type][] = [];
  const fieldPlans: FieldPlan[] = [];
  fields.forEach((f, slot) => {
    f.resolve();
    const plan = fieldPlan(f, slot, fields);
    fieldPlans.push(plan);
    const resolved = f.resolvedType;
    if (resolved instanceof protobuf.Type) messages.push([plan, resolved]);
    names.push(f.name);
    const oneof = f.partOf;
    // protobufjs represents a proto3 `optional` as a one-member oneof; it is an ordinary field here.
    const realOneof = oneof !== null && !(oneof.fieldsArray.length === 1 && oneof.name.startsWith('_'));
    let value: FieldValue;
    if (plan.map !== null) value = NO_MAP;
    else if (plan.repeated) value = NO_LIST;
    else if (realOneof) value = null;
    else value = defaultOf(f, plan);
    if (value === NO_MAP || value === NO_LIST || value instanceof Uint8Array) freshSlots.push(slot);
    defaults.push(value);
    initial.push(f.required ? MISSING : value);
    if (f.required) required.push(slot);
    if (f.id <= MAX_INDEXED_FIELD_NUMBER) {
      while (byNumber.length <= f.id) byNumber.push(undefined);
      byNumber[f.id] = plan;
    } else {
      byLargeNumber ??= new Map();
      byLargeNumber.set(f.id, plan);
    }
  });
  const plan: MessagePlan = {
    names,
    fields: fieldPlans,
    reader: notCompiled,
    defaults,
    initial,
    freshSlots,
    required,
    byNumber,
    byLargeNumber,
  };
  // Compiled before the nested plans exist: the reader finds them through its fields when it runs.
  plan.reader = compileReader(plan);
  plans.set(type, plan);
  for (const [value, messageType] of messages) value.message = planOf(messageType);
  return plan;
}

function notCompiled(): never {
  throw new Error('protobuf reader not compiled');
}

/** The expression reading one value of a scalar `kind` (not enum) bounded by the variable named `end`. */
function scalarSource(kind: number, slot: number, end: string, verifyUtf8 = false): string {
  switch (kind) {
    case DOUBLE:
      return `doubleValue(r.double(${end}))`;
    case FLOAT:
      return `new TypedField('FLOAT', r.float(${end}))`;
    case INT32:
      return `r.varint32(${end}) | 0`;
    case UINT32:
      return `r.varint32(${end})`;
    case SINT32:
      return `(n = r.varint32(${end}), ((n >>> 1) ^ -(n & 1)) | 0)`;
    case FIXED32:
      return `r.fixed32(${end})`;
    case SFIXED32:
      return `r.fixed32(${end}) | 0`;
    case INT64:
      return `(r.varint64(${end}), signed64(r.lo, r.hi))`;
    case UINT64:
      return `(r.varint64(${end}), unsigned64(r.lo, r.hi))`;
    case SINT64:
      return `(r.varint64(${end}), zigzag64(r))`;
    case FIXED64:
      return `(r.fixed64(${end}), unsigned64(r.lo, r.hi))`;
    case SFIXED64:
      return `(r.fixed64(${end}), signed64(r.lo, r.hi))`;
    case BOOL:
      return `r.bool(${end})`;
    case STRING:
      return `r.string(${end}, ${verifyUtf8 ? 'true' : 'false'}, N[${slot}])`;
    case BYTES:
      return `r.bytes(${end})`;
    default:
      throw new Error(`no scalar kind ${kind}`);
  }
}

/**
 * Statements that read one entry of a map field whose value is a scalar (not an enum or message) into its
 * object, as {@link readMapEntry} does.
 */
function mapEntrySource(f: FieldPlan, map: MapPlan, slot: number): string {
  const keyTag = (1 << 3) | map.keyWireType;
  const valueTag = (2 << 3) | f.wireType;
  // Numbers, bigints and booleans as their decimal text or true/false, as the record's MAP keys are.
  const read = scalarSource(map.key.kind, slot, 'stop', map.key.verifyUtf8);
  const key = map.key.kind === STRING ? read : `String(${read})`;
  const fallback = f.kind === BYTES ? `F${slot}.map.valueDefault.slice()` : `F${slot}.map.valueDefault`;
  return (
    `{ stop = r.lengthPrefix(end) + r.pos; let key = F${slot}.map.keyDefault; v = undefined; ` +
    `while (r.pos < stop) { const t = r.tag(stop); ` +
    `if (t === ${String(keyTag)}) key = ${key}; ` +
    `else if (t === ${String(valueTag)}) v = ${scalarSource(f.kind, slot, 'stop', f.verifyUtf8)}; ` +
    `else skipField(r, t & 7, t >>> 3, stop, depth); } ` +
    `if (v === undefined) v = ${fallback}; ` +
    `l = s${String(slot)}; if (l === NO_MAP) s${String(slot)} = l = {}; ` +
    `if (key === '__proto__') setProto(l, v); else l[key] = v; }`
  );
}

/** Makes `value` the member named __proto__ of `members`, not its prototype. */
function setProto(members: PlainMap, value: FieldValue): void {
  Object.defineProperty(members, '__proto__', {
    value,
    enumerable: true,
    writable: true,
    configurable: true,
  });
}

/**
 * Statements that read one enum value bounded by `end` into `v`, or leave the case (`onDrop`) when a closed enum
 * does not name it.
 */
function enumSource(f: FieldPlan, slot: number, end: string, onDrop: string): string {
  const unnamed = f.closedEnum ? onDrop : 'v = n';
  return `n = r.varint32(${end}) | 0; v = E${slot}[n]; if (v === undefined) { ${unnamed}; }`;
}

/** The context a generated reader closes over: plans, names and the helpers its cases call. */
const READER_HELPERS = {
  readField,
  skipField,
  setProto,
  tooDeep,
  doubleValue,
  TypedField,
  signed64,
  unsigned64,
  zigzag64,
  ProtobufDecodeError,
  NO_LIST,
  NO_MAP,
  MISSING,
  MAX_PROTOBUF_DEPTH,
};

/**
 * A reader specialised to `plan`, generated as protobufjs and avsc generate theirs: a `switch` on the whole tag
 * (field number and the wire type the field is written with) with the value reads inlined, the record built
 * without loops. Tags it has no case for take {@link readField}, the general path. Only numbers the plan computed
 * go into the source; names, defaults and enum tables are reached through arrays, so no descriptor text can
 * become code.
 */
function compileReader(plan: MessagePlan): MessageReader {
  const num = (n: number): string => {
    if (!Number.isSafeInteger(n)) throw new Error(`not an integer: ${n}`);
    return String(n);
  };
  const head: string[] = [];
  const cases: string[] = [];
  plan.fields.forEach((f, i) => {
    const k = num(i);
    if (f.slot !== i) throw new Error('protobuf plan slots out of order');
    head.push(`const F${k} = F[${k}], E${k} = F${k}.enumNames, I${k} = I[${k}];`);
    const number = fieldNumber(plan, f);
    // The whole tag as r.tag returns it: unsigned, so numbers up to 2^29 - 1 need no sign care.
    const tag = (wireType: number): string => num(number * 8 + wireType);
    const clear = f.oneofOthers.map((o) => `s${num(o)} = null;`).join(' ');
    if (f.map !== null) {
      if (f.kind !== MESSAGE && f.kind !== ENUM)
        cases.push(`case ${tag(2)}: ${mapEntrySource(f, f.map, i)} break;`);
      return;
    }
    if (f.kind === GROUP) return;
    if (f.repeated) {
      const list = `l = s${k}; if (l === NO_LIST) s${k} = l = [];`;
      if (f.kind === MESSAGE) {
        cases.push(
          `case ${tag(2)}: { ${list} stop = r.lengthPrefix(end) + r.pos; ` +
            `l.push(F${k}.message.reader(r, stop, depth + 1, -1, null)); break; }`,
        );
      } else if (f.kind === ENUM) {
        cases.push(
          `case ${tag(f.wireType)}: { ${list} ${enumSource(f, i, 'end', 'break')} l.push(v); break; }`,
        );
      } else {
        cases.push(
          `case ${tag(f.wireType)}: { ${list} l.push(${scalarSource(f.kind, i, 'end', f.verifyUtf8)}); break; }`,
        );
      }
      if (f.packable) {
        const width = num(f.wireType === 5 ? 4 : f.wireType === 1 ? 8 : 1);
        const read =
          f.kind === ENUM
            ? `${enumSource(f, i, 'stop', 'continue')} l.push(v);`
            : `l.push(${scalarSource(f.kind, i, 'stop', f.verifyUtf8)});`;
        cases.push(
          `case ${tag(2)}: { ${list} const length = r.lengthPrefix(end); stop = r.pos + length; ` +
            `if (length % ${width} !== 0) throw new ProtobufDecodeError("packed field '" + N[${k}] + ` +
            `"' does not hold a whole number of values"); while (r.pos < stop) { ${read} } break; }`,
        );
      }
      return;
    }
    if (f.kind === MESSAGE) {
      cases.push(
        `case ${tag(2)}: { stop = r.lengthPrefix(end) + r.pos; b = s${k}; ` +
          `s${k} = F${k}.message.reader(r, stop, depth + 1, -1, b instanceof TypedField ? b : null); ${clear} break; }`,
      );
    } else if (f.kind === ENUM) {
      cases.push(
        `case ${tag(f.wireType)}: { ${enumSource(f, i, 'end', 'break')} s${k} = v; ${clear} break; }`,
      );
    } else {
      cases.push(
        `case ${tag(f.wireType)}: s${k} = ${scalarSource(f.kind, i, 'end', f.verifyUtf8)}; ${clear} break;`,
      );
    }
  });
  const tail: string[] = [];
  for (const slot of plan.required) {
    const k = num(slot);
    tail.push(
      `if (previous === null && s${k} === MISSING) throw new ProtobufDecodeError("missing required '" + N[${k}] + "'");`,
    );
  }
  for (const slot of plan.freshSlots) {
    const k = num(slot);
    tail.push(
      `if (s${k} === NO_LIST) s${k} = []; else if (s${k} === NO_MAP) s${k} = {}; ` +
        `else if (s${k} === D[${k}]) s${k} = s${k}.slice();`,
    );
  }
  tail.push('const m = new Map();');
  plan.names.forEach((_, i) => tail.push(`m.set(N[${num(i)}], s${num(i)});`));
  const slotNames = plan.names.map((_, i) => `s${num(i)}`);
  const slots = slotNames.join(', ');
  const locals = slotNames.map((name, i) => `let ${name} = I${num(i)};`).join(' ');
  const load = (array: string): string =>
    slotNames.map((name, i) => `${name} = ${array}[${num(i)}];`).join(' ');
  const source = `
${head.join('\n')}
return function read(r, end, depth, endTag, previous) {
  if (depth > MAX_PROTOBUF_DEPTH) throw tooDeep();
  ${locals}
  if (previous !== null) {
    const p = [...previous.value.values()];
    ${load('p')}
  }
  let open = endTag !== -1;
  let v, n, l, b, stop, s;
  while (r.pos < end) {
    const tag = r.tag(end);
    if (tag === endTag) {
      open = false;
      break;
    }
    switch (tag) {
      ${cases.join('\n      ')}
      default:
        s = [${slots}];
        readField(plan, s, r, tag, end, depth);
        ${load('s')}
    }
  }
  if (open) throw new ProtobufDecodeError('missing end group');
  ${tail.join('\n  ')}
  return new TypedField('LIST_MAP', m);
};`;
  const context: Record<string, unknown> = {
    ...READER_HELPERS,
    plan,
    F: plan.fields,
    N: plan.names,
    I: plan.initial,
    D: plan.defaults,
  };
  const keys = Object.keys(context);
  const factory = new Function(...keys, source) as (...args: unknown[]) => MessageReader;
  return factory(...keys.map((key) => context[key]));
}

/** The field number of `f` in `plan`. */
function fieldNumber(plan: MessagePlan, f: FieldPlan): number {
  const index = plan.byNumber.indexOf(f);
  if (index >= 0) return index;
  for (const [number, g] of plan.byLargeNumber ?? []) if (g === f) return number;
  throw new Error('protobuf field without a number');
}

function valuePlan(f: protobuf.FieldBase, typeName: string, resolved: unknown, kind: number): ValuePlan {
  const enumType = resolved instanceof protobuf.Enum ? resolved : null;
  return {
    kind,
    verifyUtf8: typeName === 'string' && features(f)?.utf8_validation === 'VERIFY',
    enumNames: enumType?.valuesById ?? null,
    closedEnum: enumType !== null && features(enumType)?.enum_type === 'CLOSED',
    message: null,
    name: f.name,
  };
}

function kindOf(f: protobuf.FieldBase): number {
  const resolved = f.resolvedType;
  if (resolved instanceof protobuf.Type) {
    // Map values are length-delimited even where messages are delimited by group tags (protobufjs does so too).
    const group = !(f instanceof protobuf.MapField) && f instanceof protobuf.Field && f.delimited;
    return group ? GROUP : MESSAGE;
  }
  if (resolved instanceof protobuf.Enum) return ENUM;
  const kind = SCALAR_KINDS[f.type];
  if (kind === undefined) throw new Error(`protobuf field '${f.name}' has unknown type '${f.type}'`);
  return kind;
}

function fieldPlan(f: protobuf.FieldBase, slot: number, fields: protobuf.FieldBase[]): FieldPlan {
  const kind = kindOf(f);
  const value = valuePlan(f, f.type, f.resolvedType, kind);
  const members = f.partOf?.fieldsArray ?? [];
  let map: MapPlan | null = null;
  if (f instanceof protobuf.MapField) {
    const keyKind = SCALAR_KINDS[f.keyType];
    if (keyKind === undefined)
      throw new Error(`protobuf map '${f.name}' has unknown key type '${f.keyType}'`);
    let valueDefault: FieldValue | typeof UNKNOWN_ENUM;
    if (kind === ENUM) {
      // protobufjs starts a map value at 0, not at the enum's first value.
      valueDefault = value.enumNames![0] ?? (value.closedEnum ? UNKNOWN_ENUM : 0);
    } else {
      valueDefault = kind === MESSAGE ? null : scalarDefault(kind);
    }
    map = {
      key: valuePlan(f, f.keyType, null, keyKind),
      keyWireType: WIRE_TYPES[keyKind]!,
      keyDefault: keyKind === STRING ? '' : keyKind === BOOL ? 'false' : '0',
      valueWireType: WIRE_TYPES[kind]!,
      valueDefault,
    };
  }
  return {
    ...value,
    slot,
    wireType: WIRE_TYPES[kind]!,
    repeated: f.repeated,
    packable: f.repeated && kind !== STRING && kind !== BYTES && kind !== MESSAGE && kind !== GROUP,
    oneofOthers: members.filter((m) => m !== f).map((m) => fields.indexOf(m)),
    map,
  };
}

/** The value of a kind's zero (protobufjs's `types.defaults`) as the record holds it. */
function scalarDefault(kind: number): FieldValue {
  if (kind === DOUBLE) return doubleValue(0);
  if (kind === FLOAT) return new TypedField('FLOAT', 0);
  if (kind >= INT64 && kind <= SFIXED64) return 0n;
  if (kind === BOOL) return false;
  if (kind === STRING) return '';
  if (kind === BYTES) return new Uint8Array(0);
  return 0;
}

interface LongLike {
  readonly low: number;
  readonly high: number;
}

/**
 * The value an absent field has: protobufjs's `defaultValue` (what its message prototype holds), as the record
 * holds it. That is the explicit proto2 default, else the type's zero. protobufjs leaves null for a proto3
 * `optional` scalar (but 0 for 64-bit integers and the first value for enums); the record holds the type's zero
 * there too, as for every absent proto3 scalar and as the reference engine reads it.
 */
function defaultOf(f: protobuf.FieldBase, plan: ValuePlan): FieldValue {
  const value: unknown = f.defaultValue;
  if (value === null && plan.kind !== MESSAGE && plan.kind !== GROUP && plan.kind !== ENUM) {
    return scalarDefault(plan.kind);
  }
  switch (plan.kind) {
    case MESSAGE:
    case GROUP:
      return null;
    case ENUM:
      return plan.enumNames![value as number] ?? (value as number | null);
    case INT64:
    case UINT64:
    case SINT64:
    case FIXED64:
    case SFIXED64: {
      if (typeof value === 'number') return BigInt(value);
      const { low, high } = value as LongLike;
      const unsigned = plan.kind === UINT64 || plan.kind === FIXED64;
      return unsigned ? unsigned64(low >>> 0, high >>> 0) : signed64(low >>> 0, high >>> 0);
    }
    case FLOAT:
      return new TypedField('FLOAT', value as number | null);
    case DOUBLE:
      return value === null ? new TypedField('DOUBLE', null) : doubleValue(value as number);
    case BYTES:
      return new Uint8Array((value ?? []) as ArrayLike<number>);
    default:
      return value as FieldValue;
  }
}

/**
 * Decodes protobuf messages of one type straight from their wire bytes into record values, without building
 * protobufjs message objects first. protobufjs still loads the descriptor set; its reflection (fields, numbers,
 * types, defaults, oneofs, features) is compiled once per type into a plan of slots and a dispatch on field
 * number.
 *
 * The value of a message is a LIST_MAP holding every field of the descriptor in declaration order under its
 * descriptor name, exactly as protobufjs's decode followed by the mapping of docs/formats/protobuf.md gives it:
 * absent fields hold protobufjs's defaults, repeated fields are arrays (packed and unpacked encodings both read),
 * maps plain objects (64-bit keys as decimal text, bool keys `true`/`false`), enums names (an unnamed number of an
 * open enum stays a number; a closed enum drops it), bytes fresh `Uint8Array`s, 64-bit integers bigints, float
 * FLOAT fields, double numbers (DOUBLE fields when integral, see `doubleValue`). Of a oneof only the member read last is set, the others are null; a
 * singular message field that occurs twice is merged, and for other singular fields the last value wins.
 * Unknown fields, and known ones sent with another wire type, are skipped (groups included).
 */
export class ProtobufDecoder {
  readonly #plan: MessagePlan;

  /** Prefer {@link protobufDecoder}, which compiles each type once. */
  constructor(type: protobuf.Type) {
    this.#plan = planOf(type);
  }

  /**
   * The record value of the message in `input` from `start` to `end` (default: all of it). Throws a
   * {@link ProtobufDecodeError} when the bytes are not such a message: a value or length runs past `end`, a
   * varint is longer than 10 bytes, a tag, wire type or group is invalid, messages nest deeper than
   * {@link MAX_PROTOBUF_DEPTH}, a proto3 string is not UTF-8 or a proto2 required field is missing. Reads are
   * bounded by the input: no input makes it loop or allocate more than a small multiple of its size per field
   * of the schema. The result shares no memory with `input`.
   */
  decode(input: ProtobufInput | Uint8Array, start = 0, end = input.length): TypedField<'LIST_MAP'> {
    const r = input instanceof WireReader ? input : new WireReader(input as Uint8Array, new ShortStrings());
    if (start < 0 || start > end || end > r.length) {
      throw new RangeError(`no bytes ${start} to ${end} in an input of ${r.length}`);
    }
    r.begin(start);
    return readMessage(this.#plan, r, end, 0, -1, null);
  }
}

const decoders = new WeakMap<protobuf.Type, ProtobufDecoder>();

/** The {@link ProtobufDecoder} of `type`, compiled on first use and kept as long as the type is. */
export function protobufDecoder(type: protobuf.Type): ProtobufDecoder {
  let decoder = decoders.get(type);
  if (!decoder) {
    decoder = new ProtobufDecoder(type);
    decoders.set(type, decoder);
  }
  return decoder;
}

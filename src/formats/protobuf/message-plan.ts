import protobuf from 'protobufjs';
import { doubleValue, TypedField, type FieldValue, type PlainMap } from '../../record/field';
import { ListMapShape } from '../../record/list-map';
import { signed64, unsigned64 } from './wire-reader';

/** Field numbers up to this one are found by array index; a type with larger ones uses a Map for those. */
const MAX_INDEXED_FIELD_NUMBER = 1024;

// Kinds of value, one per protobuf scalar type plus enum, message and group (a message between group tags).
export const DOUBLE = 0;
export const FLOAT = 1;
export const INT32 = 2;
export const UINT32 = 3;
export const SINT32 = 4;
export const FIXED32 = 5;
export const SFIXED32 = 6;
export const INT64 = 7;
export const UINT64 = 8;
export const SINT64 = 9;
export const FIXED64 = 10;
export const SFIXED64 = 11;
export const BOOL = 12;
export const STRING = 13;
export const BYTES = 14;
export const ENUM = 15;
export const MESSAGE = 16;
export const GROUP = 17;

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
export const UNKNOWN_ENUM: unique symbol = Symbol('unknown enum value');
/** A required field not (yet) read. */
export const MISSING: unique symbol = Symbol('missing required field');
/** What a message's slot holds while it is read: a field's value, or {@link MISSING}. */
export type Slot = FieldValue | typeof MISSING;

// Stand-ins for the empty list and map of a field not read: the fresh value is made only if none comes.
export const NO_LIST = Object.freeze([]) as unknown as FieldValue[];
export const NO_MAP = Object.freeze({}) as PlainMap;

/** What one value on the wire is: a field's value, or a map's key or value. */
export interface ValuePlan {
  readonly kind: number;
  /** Strings must be valid UTF-8 (proto3 and editions default); otherwise bad bytes become U+FFFD. */
  readonly verifyUtf8: boolean;
  /** An enum's names by number (`valuesById`); null for other kinds. */
  readonly enumNames: Readonly<Record<number, string>> | null;
  readonly closedEnum: boolean;
  /** Of a message or group; filled in after the plan is cached, so that recursive types resolve. */
  message: MessagePlan | null;
  /** The field's name, for error details. */
  readonly name: string;
}

/** One field of a message type. */
export interface FieldPlan extends ValuePlan {
  /** Where the field's value is kept while reading, and its place in the record: declaration order. */
  readonly slot: number;
  /** The field number. */
  readonly number: number;
  readonly wireType: number;
  readonly repeated: boolean;
  /** Repeated and of a scalar or enum type: a length-delimited run of values is accepted too. */
  readonly packable: boolean;
  /** Slots of the other members of the field's oneof: setting this one unsets them. */
  readonly oneofOthers: readonly number[];
  /** Of a map field: its key, its value (the field's own plan holds the value too), their defaults. */
  readonly map: MapPlan | null;
}

/** The key and value of a map field's entries. */
export interface MapPlan {
  readonly key: ValuePlan;
  readonly keyWireType: number;
  /** The key text when an entry has no key. */
  readonly keyDefault: string;
  readonly valueWireType: number;
  /** The value when an entry has none (a message value gets an empty message instead). */
  readonly valueDefault: FieldValue | typeof UNKNOWN_ENUM;
}

/**
 * What a message type's fields are, resolved once from protobufjs's reflection: everything `plan-reader.ts` needs
 * to turn the wire bytes of one message into its record value. Plans are data only (no code is generated from
 * them) and never change once {@link messagePlan} returns them.
 */
export interface MessagePlan {
  /** Each slot's field name: the record's keys, in declaration order. */
  readonly names: readonly string[];
  /** The shape of the type's records: one key table (and V8 hidden class) shared by all of them. */
  readonly shape: ListMapShape;
  /** Each slot's field. */
  readonly fields: readonly FieldPlan[];
  /** Each slot's value when its field is absent, as the record holds it (stand-ins for lists and maps). */
  readonly defaults: readonly Slot[];
  /** {@link defaults} with {@link MISSING} for required fields: where decoding starts. */
  readonly initial: readonly Slot[];
  /** Slots whose default is a stand-in or bytes, which must become a fresh value of its own per record. */
  readonly freshSlots: readonly number[];
  /** Slots of proto2 required fields. */
  readonly required: readonly number[];
  /** Fields by number up to {@link MAX_INDEXED_FIELD_NUMBER}. */
  readonly byNumber: readonly (FieldPlan | undefined)[];
  /** Fields numbered past {@link MAX_INDEXED_FIELD_NUMBER}; null when there are none. */
  readonly byLargeNumber: ReadonlyMap<number, FieldPlan> | null;
}

/** The field of `plan` numbered `number`, if any. */
export function fieldOf(plan: MessagePlan, number: number): FieldPlan | undefined {
  const byNumber = plan.byNumber;
  return number < byNumber.length ? byNumber[number] : plan.byLargeNumber?.get(number);
}

// One plan per message type, made on first use and kept as long as the type is.
const plans = new WeakMap<protobuf.Type, MessagePlan>();

/**
 * The plan of `type` (made on first use, then cached per type), with the plans of the message types its fields
 * hold. Resolves the type's fields; throws a plain Error for a field type protobufjs did not resolve.
 */
export function messagePlan(type: protobuf.Type): MessagePlan {
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
  const nested: [ValuePlan, protobuf.Type][] = [];
  const fieldPlans: FieldPlan[] = [];
  fields.forEach((f, slot) => {
    f.resolve();
    const plan = fieldPlan(f, slot, fields);
    fieldPlans.push(plan);
    const resolved = f.resolvedType;
    if (resolved instanceof protobuf.Type) nested.push([plan, resolved]);
    names.push(f.name);
    const value = absentValue(f, plan);
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
    shape: new ListMapShape(names),
    fields: fieldPlans,
    defaults,
    initial,
    freshSlots,
    required,
    byNumber,
    byLargeNumber,
  };
  // Cached before the nested plans are made, so that a type that holds itself finds its own plan.
  plans.set(type, plan);
  for (const [value, messageType] of nested) value.message = messagePlan(messageType);
  return plan;
}

/** What the slot of an absent field holds: a stand-in for lists and maps, null for a oneof member. */
function absentValue(f: protobuf.FieldBase, plan: FieldPlan): FieldValue {
  if (plan.map !== null) return NO_MAP;
  if (plan.repeated) return NO_LIST;
  const oneof = f.partOf;
  // protobufjs represents a proto3 `optional` as a one-member oneof; it is an ordinary field here.
  const realOneof = oneof !== null && !(oneof.fieldsArray.length === 1 && oneof.name.startsWith('_'));
  return realOneof ? null : defaultOf(f, plan);
}

interface FeatureHolder {
  readonly _features?: { readonly utf8_validation?: string; readonly enum_type?: string };
}

function features(holder: unknown): FeatureHolder['_features'] {
  return (holder as FeatureHolder)._features;
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
  return {
    ...value,
    slot,
    number: f.id,
    wireType: WIRE_TYPES[kind]!,
    repeated: f.repeated,
    packable: f.repeated && kind !== STRING && kind !== BYTES && kind !== MESSAGE && kind !== GROUP,
    oneofOthers: members.filter((m) => m !== f).map((m) => fields.indexOf(m)),
    map: f instanceof protobuf.MapField ? mapPlan(f, kind, value) : null,
  };
}

function mapPlan(f: protobuf.MapField, kind: number, value: ValuePlan): MapPlan {
  const keyKind = SCALAR_KINDS[f.keyType];
  if (keyKind === undefined) throw new Error(`protobuf map '${f.name}' has unknown key type '${f.keyType}'`);
  let valueDefault: FieldValue | typeof UNKNOWN_ENUM;
  if (kind === ENUM) {
    // protobufjs starts a map value at 0, not at the enum's first value.
    valueDefault = value.enumNames![0] ?? (value.closedEnum ? UNKNOWN_ENUM : 0);
  } else {
    valueDefault = kind === MESSAGE ? null : scalarDefault(kind);
  }
  return {
    key: valuePlan(f, f.keyType, null, keyKind),
    keyWireType: WIRE_TYPES[keyKind]!,
    keyDefault: keyKind === STRING ? '' : keyKind === BOOL ? 'false' : '0',
    valueWireType: WIRE_TYPES[kind]!,
    valueDefault,
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

/**
 * The test oracle for the protobuf decoder: the walk the protobuf format used before it decoded wire bytes itself
 * (decision 0019). protobufjs decodes a message into its message object; {@link protobufFieldValue} turns that
 * object into the record value. The decoder must give exactly this for every input protobufjs reads.
 *
 * One change from the old product code: a map entry without a key gets protobufjs's default key 0, which for a
 * 64-bit key type is the number 0, not an 8-character hash; the old walk read "0" as a hash and gave the key
 * "48". Such keys are now read as the decimal text they are.
 */
import protobuf from 'protobufjs';
import { doubleValue, field, type FieldValue, type PlainMap } from '../../../src/record/field';
import { listMapOf } from '../../../src/record/list-map';

const LONG_TYPES = new Set(['int64', 'uint64', 'sint64', 'fixed64', 'sfixed64']);

/** The 64-bit value protobufjs decoded (a `Long`, or a number for a default) as a bigint. */
function toBigInt(value: unknown, unsigned: boolean): bigint {
  if (typeof value === 'number') return BigInt(value);
  if (typeof value === 'bigint') return value;
  const { low, high } = value as { low: number; high: number };
  const raw = (BigInt(high >>> 0) << 32n) | BigInt(low >>> 0);
  return unsigned ? BigInt.asUintN(64, raw) : BigInt.asIntN(64, raw);
}

/** A map key as protobufjs holds it (64-bit keys as its 8-character hash) as the text the record's MAP uses. */
function mapKey(key: string, keyType: string): string {
  // A hash is always 8 characters; protobufjs's default key (an entry without one) is the number 0.
  if (!LONG_TYPES.has(keyType) || key.length !== 8) return key;
  const bits = protobuf.util.LongBits.fromHash(key);
  return toBigInt({ low: bits.lo, high: bits.hi }, keyType === 'uint64' || keyType === 'fixed64').toString();
}

/** One value of `type` (a scalar name, an enum or a message type). */
function singleValue(f: protobuf.Field, value: unknown): FieldValue {
  const resolved = f.resolvedType;
  if (resolved instanceof protobuf.Type) {
    return value === null || value === undefined ? null : protobufFieldValue(resolved, value);
  }
  if (resolved instanceof protobuf.Enum) {
    // An open (proto3) enum may carry a number the descriptor does not name; the number is all there is.
    const name = resolved.valuesById[value as number];
    return name ?? (value as number);
  }
  if (LONG_TYPES.has(f.type)) return toBigInt(value, f.type === 'uint64' || f.type === 'fixed64');
  if (f.type === 'float') return field('FLOAT', value as number);
  if (f.type === 'double') return value === null ? field('DOUBLE', null) : doubleValue(value as number);
  if (f.type === 'bytes') return new Uint8Array(value as Uint8Array);
  return value as FieldValue;
}

/**
 * The record value of `message`, which `type` decoded: a LIST_MAP (list-map) holding every field of the descriptor in
 * declaration order under its descriptor name. Absent scalars hold their default (proto3 semantics, as the
 * reference engine reads them), an absent message field is null, repeated → array, map → plain object (64-bit keys
 * as decimal text), enum → the value's name (an unnamed number of an open enum stays a number), bytes →
 * `Uint8Array`, 64-bit integers → bigint, float → FLOAT, double → DOUBLE. Of a oneof, the member that is set holds
 * its value and the others are null, so the set one is never mistaken for a default.
 */
export function protobufFieldValue(type: protobuf.Type, message: unknown): FieldValue {
  const datum = message as Record<string, unknown>;
  const fields = new Map<string, FieldValue>();
  for (const plan of planOf(type)) {
    const f = plan.field;
    const value = datum[f.name];
    if (plan.realOneof && !Object.prototype.hasOwnProperty.call(datum, f.name)) {
      fields.set(f.name, null);
    } else if (plan.map) {
      const out: PlainMap = {};
      const keyType = plan.keyType;
      const members = (value ?? {}) as Record<string, unknown>;
      for (const key of Object.keys(members)) {
        const name = mapKey(key, keyType);
        const member = singleValue(f, members[key]);
        if (name !== '__proto__') {
          out[name] = member;
          continue;
        }
        // defineProperty, not assignment: a key named __proto__ must become a member, not a prototype.
        Object.defineProperty(out, name, {
          value: member,
          enumerable: true,
          writable: true,
          configurable: true,
        });
      }
      fields.set(f.name, out);
    } else if (f.repeated) {
      const items = (value ?? []) as unknown[];
      const out: FieldValue[] = new Array<FieldValue>(items.length);
      for (let i = 0; i < items.length; i++) out[i] = singleValue(f, items[i]);
      fields.set(f.name, out);
    } else {
      // An absent proto3 `optional` scalar is null in protobufjs's message; the record holds the type's zero.
      const zero = value === null && !(f.resolvedType instanceof protobuf.Type);
      fields.set(
        f.name,
        singleValue(f, zero ? (protobuf.types.defaults as Record<string, unknown>)[f.type] : value),
      );
    }
  }
  return listMapOf(fields);
}

interface FieldPlan {
  readonly field: protobuf.Field;
  /** Member of a oneof with other members (not a proto3 `optional`). */
  readonly realOneof: boolean;
  readonly map: boolean;
  /** The key type of a map field; '' otherwise. */
  readonly keyType: string;
}

// What each field of a type is, worked out once per type rather than once per message.
const plans = new WeakMap<protobuf.Type, readonly FieldPlan[]>();

function planOf(type: protobuf.Type): readonly FieldPlan[] {
  let plan = plans.get(type);
  if (!plan) {
    plan = type.fieldsArray.map((f) => {
      const oneof = f.partOf;
      // protobufjs represents proto3 `optional` as a one-member oneof; it is an ordinary field here.
      const realOneof = oneof !== null && !(oneof.fieldsArray.length === 1 && oneof.name.startsWith('_'));
      const map = f instanceof protobuf.MapField;
      return { field: f, realOneof, map, keyType: f instanceof protobuf.MapField ? f.keyType : '' };
    });
    plans.set(type, plan);
  }
  return plan;
}

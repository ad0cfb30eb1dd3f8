import { doubleValue, TypedField, type FieldValue, type PlainMap } from '../../record/field';
import { isListMap, type ListMap } from '../../record/list-map';
import {
  BOOL,
  BYTES,
  DOUBLE,
  FIXED32,
  FIXED64,
  FLOAT,
  GROUP,
  INT32,
  INT64,
  MESSAGE,
  MISSING,
  NO_LIST,
  NO_MAP,
  SFIXED32,
  SFIXED64,
  SINT32,
  SINT64,
  STRING,
  UINT32,
  UINT64,
  UNKNOWN_ENUM,
  fieldOf,
  type FieldPlan,
  type MapPlan,
  type MessagePlan,
  type Slot,
  type ValuePlan,
} from './message-plan';
import {
  MAX_PROTOBUF_DEPTH,
  ProtobufDecodeError,
  signed64,
  skipField,
  tooDeep,
  unsigned64,
  zigzag64,
  type WireReader,
} from './wire-reader';

/**
 * The message of `plan` from the read position up to `end` (a length-delimited message) or up to its end-group tag
 * `endTag` (a group; -1 otherwise), as a list-map of the plan's shape: one pass over the tags, each field found by
 * number and read by its kind. `previous` is the value of an earlier occurrence of the same singular field, which
 * this one is merged into as protobuf (and protobufjs) merges messages.
 */
export function readMessage(
  plan: MessagePlan,
  reader: WireReader,
  end: number,
  depth: number,
  endTag: number,
  previous: ListMap | null,
): ListMap {
  if (depth > MAX_PROTOBUF_DEPTH) throw tooDeep();
  // A merged message starts from the values of the one before (read by name: a list-map has no positions).
  const slots: Slot[] = previous === null ? plan.initial.slice() : plan.names.map((name) => previous[name]!);
  let open = endTag !== -1;
  while (reader.position < end) {
    const tag = reader.tag(end);
    if (tag === endTag) {
      open = false;
      break;
    }
    readField(plan, slots, reader, tag, end, depth);
  }
  if (open) throw new ProtobufDecodeError('missing end group');
  if (previous === null) checkRequired(plan, slots);
  return buildRecord(plan, slots);
}

/** Throws when a proto2 required field of `plan` was not read. */
function checkRequired(plan: MessagePlan, slots: readonly Slot[]): void {
  const required = plan.required;
  for (let i = 0; i < required.length; i++) {
    const slot = required[i]!;
    if (slots[slot] === MISSING) throw new ProtobufDecodeError(`missing required '${plan.names[slot]}'`);
  }
}

/**
 * One occurrence of a field, whose tag has just been read, into `slots`: unknown fields and wire-type mismatches
 * are skipped.
 */
function readField(
  plan: MessagePlan,
  slots: Slot[],
  reader: WireReader,
  tag: number,
  end: number,
  depth: number,
): void {
  const number = tag >>> 3;
  const wireType = tag & 7;
  const field = fieldOf(plan, number);
  if (field === undefined) {
    skipField(reader, wireType, number, end, depth);
  } else if (field.map !== null) {
    if (wireType === 2) readMapEntry(field, field.map, slots, reader, end, depth);
    else skipField(reader, wireType, number, end, depth);
  } else if (field.repeated) {
    readRepeated(field, slots, reader, wireType, end, depth);
  } else if (wireType !== field.wireType) {
    skipField(reader, wireType, number, end, depth);
  } else {
    let value: FieldValue | typeof UNKNOWN_ENUM;
    if (field.kind === MESSAGE || field.kind === GROUP) {
      const before = slots[field.slot];
      const merged = isListMap(before) ? before : null;
      // A message ends with its length, a group at its end-group tag.
      const group = field.kind === GROUP;
      const stop = group ? end : reader.lengthPrefix(end) + reader.position;
      value = readMessage(field.message!, reader, stop, depth + 1, group ? number * 8 + 4 : -1, merged);
    } else {
      value = readScalar(reader, end, field);
      if (value === UNKNOWN_ENUM) return;
    }
    slots[field.slot] = value;
    const others = field.oneofOthers;
    for (let i = 0; i < others.length; i++) slots[others[i]!] = null;
  }
}

/** One scalar or enum value of `plan` at the read position, as the record holds it. */
function readScalar(reader: WireReader, end: number, plan: ValuePlan): FieldValue | typeof UNKNOWN_ENUM {
  switch (plan.kind) {
    case DOUBLE:
      return doubleValue(reader.double(end));
    case FLOAT:
      return new TypedField('FLOAT', reader.float(end));
    case INT32:
      return reader.varint32(end) | 0;
    case UINT32:
      return reader.varint32(end);
    case SINT32: {
      const zigzag = reader.varint32(end);
      return ((zigzag >>> 1) ^ -(zigzag & 1)) | 0;
    }
    case FIXED32:
      return reader.fixed32(end);
    case SFIXED32:
      return reader.fixed32(end) | 0;
    case INT64:
      reader.varint64(end);
      return signed64(reader.low, reader.high);
    case UINT64:
      reader.varint64(end);
      return unsigned64(reader.low, reader.high);
    case SINT64:
      reader.varint64(end);
      return zigzag64(reader);
    case FIXED64:
      reader.fixed64(end);
      return unsigned64(reader.low, reader.high);
    case SFIXED64:
      reader.fixed64(end);
      return signed64(reader.low, reader.high);
    case BOOL:
      return reader.bool(end);
    case STRING:
      return reader.string(end, plan.verifyUtf8, plan.name);
    case BYTES:
      return reader.bytes(end);
    default: {
      const number = reader.varint32(end) | 0;
      const name = plan.enumNames![number];
      if (name !== undefined) return name;
      // An open enum keeps a number it does not name; a closed one drops it, as protobufjs does.
      return plan.closedEnum ? UNKNOWN_ENUM : number;
    }
  }
}

/** The list-map of a message's slots, each absent list, map and bytes made fresh. */
function buildRecord(plan: MessagePlan, slots: Slot[]): ListMap {
  const fresh = plan.freshSlots;
  for (let i = 0; i < fresh.length; i++) {
    const slot = fresh[i]!;
    const value = slots[slot];
    if (value === NO_LIST) slots[slot] = [];
    else if (value === NO_MAP) slots[slot] = {};
    else if (value === plan.defaults[slot]) slots[slot] = (value as Uint8Array).slice();
  }
  // No slot is MISSING here: the required fields were checked, or the slots come from a decoded message.
  return plan.shape.create(slots as FieldValue[]);
}

/** A message with every field at its default, for a map entry without a value (protobufjs: `new ctor`). */
function emptyRecord(plan: MessagePlan): ListMap {
  return buildRecord(plan, plan.defaults.slice());
}

/** One occurrence of a repeated field: one value, or a packed run of them. */
function readRepeated(
  field: FieldPlan,
  slots: Slot[],
  reader: WireReader,
  wireType: number,
  end: number,
  depth: number,
): void {
  let list = slots[field.slot] as FieldValue[];
  if (wireType === field.wireType) {
    if (list === NO_LIST) slots[field.slot] = list = [];
    if (field.kind === MESSAGE) {
      const stop = reader.lengthPrefix(end) + reader.position;
      list.push(readMessage(field.message!, reader, stop, depth + 1, -1, null));
    } else if (field.kind === GROUP) {
      list.push(readMessage(field.message!, reader, end, depth + 1, field.number * 8 + 4, null));
    } else {
      const value = readScalar(reader, end, field);
      if (value !== UNKNOWN_ENUM) list.push(value);
    }
  } else if (wireType === 2 && field.packable) {
    if (list === NO_LIST) slots[field.slot] = list = [];
    const length = reader.lengthPrefix(end);
    const stop = reader.position + length;
    // protobufjs reads the whole values first and then refuses the rest; the message fails either way.
    if (length % packedWidth(field) !== 0) throw notWholeValues(field.name);
    while (reader.position < stop) {
      const value = readScalar(reader, stop, field);
      if (value !== UNKNOWN_ENUM) list.push(value);
    }
  } else {
    skipField(reader, wireType, field.number, end, depth);
  }
}

/** The bytes each value of a packed run of `field` takes, or 1 for varints (which can be any length). */
function packedWidth(field: FieldPlan): number {
  return field.wireType === 5 ? 4 : field.wireType === 1 ? 8 : 1;
}

/** The error for a packed run that splits a fixed-width value. */
function notWholeValues(name: string): ProtobufDecodeError {
  return new ProtobufDecodeError(`packed field '${name}' does not hold a whole number of values`);
}

/** One entry of a map field (a message of key = 1 and value = 2) into the field's plain object. */
function readMapEntry(
  field: FieldPlan,
  map: MapPlan,
  slots: Slot[],
  reader: WireReader,
  end: number,
  depth: number,
): void {
  const stop = reader.lengthPrefix(end) + reader.position;
  const keyTag = (1 << 3) | map.keyWireType;
  const valueTag = (2 << 3) | map.valueWireType;
  let key = map.keyDefault;
  let value: FieldValue | typeof UNKNOWN_ENUM | undefined;
  while (reader.position < stop) {
    const tag = reader.tag(stop);
    if (tag === keyTag) {
      // Numbers, bigints and booleans as their decimal text or true/false, as the record's MAP keys are.
      key = String(readScalar(reader, stop, map.key) as string | number | bigint | boolean);
    } else if (tag === valueTag) {
      if (field.kind === MESSAGE) {
        const valueEnd = reader.lengthPrefix(stop) + reader.position;
        const before = isListMap(value) ? value : null;
        value = readMessage(field.message!, reader, valueEnd, depth + 1, -1, before);
      } else {
        value = readScalar(reader, stop, field);
      }
    } else {
      skipField(reader, tag & 7, tag >>> 3, stop, depth);
    }
  }
  if (value === undefined) {
    if (field.kind === MESSAGE) value = emptyRecord(field.message!);
    else value = map.valueDefault instanceof Uint8Array ? map.valueDefault.slice() : map.valueDefault;
  }
  // protobufjs drops a whole entry whose value a closed enum does not name.
  if (value === UNKNOWN_ENUM) return;
  let members = slots[field.slot] as PlainMap;
  if (members === NO_MAP) slots[field.slot] = members = {};
  setMember(members, key, value);
}

/** `members[key] = value`, where a key named __proto__ becomes a member, not the object's prototype. */
function setMember(members: PlainMap, key: string, value: FieldValue): void {
  if (key === '__proto__') {
    Object.defineProperty(members, key, { value, enumerable: true, writable: true, configurable: true });
  } else {
    members[key] = value;
  }
}

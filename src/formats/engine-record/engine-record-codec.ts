import { DataRecord } from '../../record/data-record';
import {
  FIELD_TYPES,
  field,
  isTypedField,
  type FieldAttributes,
  type FieldType,
  type FieldValue,
  type ListMap,
  type PlainMap,
  type TypedValueOf,
} from '../../record/field';
import { fieldTypeOf } from '../../record/field-type-of';
import { listMapEntries, listMapShapeOf } from '../../record/list-map';
import { RecordHeader } from '../../record/record-header';

/**
 * The first byte of an Engine Record body: version 1, one JSON object per line. The high nibble `0xA` marks the
 * byte as an Engine Record magic byte; the low nibble is the version, so a later layout takes `0xA2`, `0xA3`, ….
 * `0xA1` is also what the reference engine writes for its JSON record format.
 */
export const ENGINE_RECORD_MAGIC_JSON_V1 = 0xa1;

/** One field as it is written: its type, its value in the JSON form of that type, and its field attributes. */
export interface EncodedField {
  readonly type: FieldType;
  readonly value: unknown;
  readonly attributes?: Record<string, string>;
}

/** The header of one record as it is written. */
export interface EncodedHeader {
  readonly sourceId: string;
  readonly values: Record<string, string>;
  readonly errorCode?: string;
  readonly errorMessage?: string;
  readonly errorStage?: string;
  readonly errorTimestamp?: number;
}

const FIELD_TYPE_SET: ReadonlySet<string> = new Set(FIELD_TYPES);

/**
 * Serializes `records` as one Engine Record body (format version 1, see `docs/formats/engine-record.md`): the
 * magic byte {@link ENGINE_RECORD_MAGIC_JSON_V1}, then one line per record, `{"header":…,"value":…}\n`. Every
 * field carries its type, so reading the body back gives every field type, field attribute, header attribute,
 * LIST_MAP order and the error of an error record exactly as written.
 *
 * @throws TypeError when a record's value tree holds something that is not a field value.
 */
export function writeEngineRecords(records: Iterable<DataRecord>): Buffer {
  const lines: string[] = [];
  for (const record of records) lines.push(encodeRecordLine(record));
  const text = Buffer.from(lines.join(''), 'utf8');
  const out = Buffer.allocUnsafe(text.length + 1);
  out[0] = ENGINE_RECORD_MAGIC_JSON_V1;
  text.copy(out, 1);
  return out;
}

/** One record as its line of the body, newline included. */
export function encodeRecordLine(record: DataRecord): string {
  return `${JSON.stringify({ header: encodeHeader(record.header), value: encodeField(record.value) })}\n`;
}

function encodeHeader(header: RecordHeader): EncodedHeader {
  const values = ownObject();
  for (const name of header.attributeNames()) setOwn(values, name, header.getAttribute(name) as string);
  return {
    sourceId: header.sourceId,
    values,
    ...(header.errorCode !== undefined && { errorCode: header.errorCode }),
    ...(header.errorMessage !== undefined && { errorMessage: header.errorMessage }),
    ...(header.errorStage !== undefined && { errorStage: header.errorStage }),
    ...(header.errorTimestamp !== undefined && { errorTimestamp: header.errorTimestamp }),
  };
}

/** The written form of one field of the value tree (plain or typed). */
export function encodeField(node: FieldValue): EncodedField {
  const type = fieldTypeOf(node);
  const typed = isTypedField(node);
  const value = typed ? node.value : node;
  const attributes = typed && node.attributes !== undefined ? copyAttributes(node.attributes) : undefined;
  return {
    type,
    value: value === null ? null : encodeValue(type, value as NonNullable<TypedValueOf[FieldType]>),
    ...(attributes !== undefined && { attributes }),
  };
}

function encodeValue(type: FieldType, value: NonNullable<TypedValueOf[FieldType]>): unknown {
  switch (type) {
    case 'LONG':
      return String(value as number | bigint);
    case 'FLOAT':
    case 'DOUBLE':
      return encodeNumber(value as number);
    case 'DATE':
    case 'DATETIME':
    case 'TIME':
      return encodeNumber((value as Date).getTime());
    case 'BYTE_ARRAY': {
      const bytes = value as Uint8Array;
      return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString('base64');
    }
    case 'MAP': {
      const map = value as PlainMap;
      const out = ownObject();
      for (const key of Object.keys(map)) setOwn(out, key, encodeField(map[key] as FieldValue));
      return out;
    }
    case 'LIST':
      return (value as FieldValue[]).map(encodeField);
    case 'LIST_MAP': {
      // In key-table order (JS would put integer-like keys first).
      return listMapEntries(value as ListMap).map(([key, item]) => [key, encodeField(item)]);
    }
    default:
      // BOOLEAN, CHAR, BYTE, SHORT, INTEGER, DECIMAL, ZONED_DATETIME, STRING: JSON says them exactly.
      return value;
  }
}

/** JSON has no NaN, infinities or negative zero: those are written as strings, every other double as a number. */
function encodeNumber(value: number): number | string {
  if (Number.isFinite(value) && !Object.is(value, -0)) return value;
  return Object.is(value, -0) ? '-0' : String(value);
}

/**
 * The deepest nesting of fields a record may have (its value is level 1), as the JSON and Avro formats allow: a
 * deeper record is refused when read, so that no later step (copies, responses, writing it again) runs out of
 * call stack on it.
 */
export const MAX_NESTING_DEPTH = 500;

/** Why one line could not be read; the parser turns it into a failure. */
export class EngineRecordDecodeError extends Error {}

/** A record read from one line: the value tree and the full header (error fields included). */
export function decodeRecordLine(text: string): DataRecord {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new EngineRecordDecodeError(`not JSON (${(error as Error).message})`);
  }
  if (!isObject(parsed)) throw new EngineRecordDecodeError('a line must be a JSON object');
  const header = decodeHeader(parsed['header']);
  if (!('value' in parsed)) throw new EngineRecordDecodeError('the record has no "value"');
  return new DataRecord(decodeField(parsed['value'], '/'), { header });
}

function decodeHeader(raw: unknown): RecordHeader {
  if (!isObject(raw)) throw new EngineRecordDecodeError('"header" must be an object');
  const sourceId = raw['sourceId'] ?? '';
  if (typeof sourceId !== 'string') throw new EngineRecordDecodeError('"header.sourceId" must be a string');
  const header = new RecordHeader({ sourceId });
  const values = raw['values'] ?? {};
  if (!isObject(values)) throw new EngineRecordDecodeError('"header.values" must be an object');
  for (const name of Object.keys(values)) {
    const value = values[name];
    if (typeof value !== 'string') {
      throw new EngineRecordDecodeError(`header attribute ${JSON.stringify(name)} must be a string`);
    }
    header.setAttribute(name, value);
  }
  header.errorCode = optionalString(raw, 'errorCode');
  header.errorMessage = optionalString(raw, 'errorMessage');
  header.errorStage = optionalString(raw, 'errorStage');
  const timestamp = raw['errorTimestamp'];
  if (timestamp !== undefined && !Number.isFinite(timestamp)) {
    throw new EngineRecordDecodeError('"header.errorTimestamp" must be a number');
  }
  header.errorTimestamp = timestamp as number | undefined;
  return header;
}

function optionalString(raw: Record<string, unknown>, key: string): string | undefined {
  const value = raw[key];
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw new EngineRecordDecodeError(`"header.${key}" must be a string`);
  return value;
}

/**
 * The node of the value tree for one written field. A field without attributes whose JS form already says its
 * type comes back in plain form (a STRING as a string, a LONG as a bigint); any other one as a typed field.
 * `depth` is the field's nesting level (the record's value is 1); a field past {@link MAX_NESTING_DEPTH} is refused.
 */
export function decodeField(raw: unknown, path: string, depth = 1): FieldValue {
  if (depth > MAX_NESTING_DEPTH) {
    throw new EngineRecordDecodeError(`the field at ${path} nests deeper than ${MAX_NESTING_DEPTH} levels`);
  }
  if (!isObject(raw)) throw new EngineRecordDecodeError(`the field at ${path} must be an object`);
  const type = raw['type'];
  if (typeof type !== 'string' || !FIELD_TYPE_SET.has(type)) {
    throw new EngineRecordDecodeError(`the field at ${path} has an unknown type ${JSON.stringify(type)}`);
  }
  const attributes = decodeAttributes(raw['attributes'], path);
  const rawValue = raw['value'];
  const value =
    rawValue === null || rawValue === undefined
      ? null
      : decodeValue(type as FieldType, rawValue, path, depth);
  // A null STRING is a plain null: `fieldTypeOf(null)` says STRING.
  if (attributes === undefined && fieldTypeOf(value as FieldValue) === type) {
    return value as FieldValue;
  }
  return field(type as FieldType, value as TypedValueOf[FieldType], attributes);
}

function decodeAttributes(raw: unknown, path: string): FieldAttributes | undefined {
  if (raw === undefined) return undefined;
  if (!isObject(raw)) throw new EngineRecordDecodeError(`the attributes at ${path} must be an object`);
  const out = ownObject();
  for (const name of Object.keys(raw)) {
    const value = raw[name];
    if (typeof value !== 'string') {
      throw new EngineRecordDecodeError(`the attribute ${JSON.stringify(name)} at ${path} must be a string`);
    }
    setOwn(out, name, value);
  }
  return Object.freeze(out);
}

function decodeValue(type: FieldType, raw: unknown, path: string, depth: number): TypedValueOf[FieldType] {
  const wrong = (expected: string): EngineRecordDecodeError =>
    new EngineRecordDecodeError(`the ${type} field at ${path} must hold ${expected}`);
  switch (type) {
    case 'BOOLEAN':
      if (typeof raw !== 'boolean') throw wrong('a boolean');
      return raw;
    case 'STRING':
      if (typeof raw !== 'string') throw wrong('a string');
      return raw;
    case 'CHAR':
      if (typeof raw !== 'string' || !isOneCharacter(raw)) throw wrong('a string of one character');
      return raw;
    case 'DECIMAL':
      if (typeof raw !== 'string' || !isDecimalText(raw)) throw wrong('decimal number text');
      return raw;
    case 'ZONED_DATETIME':
      if (typeof raw !== 'string' || !ZONED_DATETIME_TEXT.test(raw)) {
        throw wrong('ISO-8601 date-time text with an offset');
      }
      return raw;
    case 'BYTE':
    case 'SHORT':
    case 'INTEGER': {
      const [min, max] = INTEGER_RANGE[type];
      if (typeof raw !== 'number' || !Number.isInteger(raw) || raw < min || raw > max) {
        throw wrong(`an integer from ${min} to ${max}`);
      }
      return raw;
    }
    case 'LONG': {
      if (typeof raw !== 'string' || !/^-?\d+$/.test(raw)) throw wrong('a string of decimal digits');
      const long = BigInt(raw);
      if (long < LONG_MIN || long > LONG_MAX) throw wrong('a 64-bit integer');
      return long;
    }
    case 'FLOAT':
    case 'DOUBLE':
      return decodeNumber(raw, wrong);
    case 'DATE':
    case 'DATETIME':
    case 'TIME': {
      // A Date holds whole milliseconds; the writer writes getTime(), so a fraction is not from a Date.
      const ms = decodeNumber(raw, wrong);
      if (Number.isFinite(ms) && !Number.isInteger(ms)) throw wrong('a whole number of milliseconds');
      return new Date(ms);
    }
    case 'BYTE_ARRAY':
      if (typeof raw !== 'string' || !/^[A-Za-z0-9+/]*={0,2}$/.test(raw)) throw wrong('base64 text');
      return new Uint8Array(Buffer.from(raw, 'base64'));
    case 'MAP': {
      if (!isObject(raw)) throw wrong('an object of fields');
      const map = ownObject() as PlainMap;
      for (const key of Object.keys(raw))
        setOwn(map, key, decodeField(raw[key], childPath(path, key), depth + 1));
      return map;
    }
    case 'LIST':
      if (!Array.isArray(raw)) throw wrong('an array of fields');
      return raw.map((item, index) => decodeField(item, `${path === '/' ? '' : path}[${index}]`, depth + 1));
    case 'LIST_MAP': {
      if (!Array.isArray(raw)) throw wrong('an array of [key, field] pairs');
      const keys: string[] = [];
      const values: FieldValue[] = [];
      const seen = new Set<string>();
      for (const entry of raw as unknown[]) {
        if (!Array.isArray(entry) || entry.length !== 2 || typeof entry[0] !== 'string') {
          throw wrong('an array of [key, field] pairs');
        }
        const key = entry[0];
        if (seen.has(key)) throw wrong(`unique keys (${JSON.stringify(key)} repeats)`);
        seen.add(key);
        keys.push(key);
        values.push(decodeField(entry[1], childPath(path, key), depth + 1));
      }
      // Records of one schema write the same keys: they share a shape from the bounded cache.
      return listMapShapeOf(keys).create(values);
    }
  }
}

function decodeNumber(raw: unknown, wrong: (expected: string) => EngineRecordDecodeError): number {
  if (typeof raw === 'number') return raw;
  if (raw === 'NaN') return NaN;
  if (raw === 'Infinity') return Infinity;
  if (raw === '-Infinity') return -Infinity;
  if (raw === '-0') return -0;
  throw wrong('a number, "NaN", "Infinity", "-Infinity" or "-0"');
}

const INTEGER_RANGE = {
  BYTE: [-128, 127],
  SHORT: [-32_768, 32_767],
  INTEGER: [-2_147_483_648, 2_147_483_647],
} as const;
const LONG_MIN = -(2n ** 63n);
const LONG_MAX = 2n ** 63n - 1n;

/** The decimal spellings the renderers accept (see `json-text.ts`): a sign, digits with a point, an exponent. */
const DECIMAL_TEXT = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;

function isDecimalText(text: string): boolean {
  return DECIMAL_TEXT.test(text.trim());
}

/**
 * ISO-8601 date-time with an offset, as Java's ZonedDateTime writes it: an optional zone id in brackets, seconds
 * and fraction optional, a year of four digits or more (signed past 9999).
 */
const ZONED_DATETIME_TEXT =
  /^[+-]?\d{4,}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:\d{2}(?::\d{2})?)(?:\[[^\]\s]+\])?$/;

const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/** One user-perceived character: one grapheme cluster (an emoji with its modifier is one CHAR). */
function isOneCharacter(text: string): boolean {
  if (text.length === 1) return true;
  if (text.length === 0) return false;
  const iterator = graphemes.segment(text)[Symbol.iterator]();
  iterator.next();
  return iterator.next().done === true;
}

function childPath(path: string, key: string): string {
  return `${path === '/' ? '' : path}/${key}`;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function ownObject(): Record<string, never> {
  return {} as Record<string, never>;
}

// A plain assignment to '__proto__' would set the prototype instead of adding the key.
function setOwn<V>(target: Record<string, V>, key: string, value: V): void {
  if (key === '__proto__') {
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  } else {
    target[key] = value;
  }
}

function copyAttributes(attributes: FieldAttributes): Record<string, string> {
  const out: Record<string, string> = ownObject();
  for (const name of Object.keys(attributes)) setOwn(out, name, attributes[name] as string);
  return out;
}

/**
 * The engine's field types and the value tree that carries them.
 *
 * A record value is a tree of plain JS values wherever JS can say the engine type, so that the common path
 * (parse JSON, hand it to the pipeline, echo it back) pays for no wrapper objects. A {@link TypedField} wraps a
 * value only where JS cannot say its type: BYTE, SHORT, CHAR, FLOAT, DECIMAL, DATE, TIME, ZONED_DATETIME, a LONG
 * held as a number, and any field that carries field attributes. A LIST_MAP has a plain form of its own, the
 * list-map (see `list-map.ts`).
 */

/** Every field type of the engine's record model. */
export const FIELD_TYPES = [
  'BOOLEAN',
  'CHAR',
  'BYTE',
  'SHORT',
  'INTEGER',
  'LONG',
  'FLOAT',
  'DOUBLE',
  'DECIMAL',
  'DATE',
  'DATETIME',
  'TIME',
  'ZONED_DATETIME',
  'STRING',
  'BYTE_ARRAY',
  'MAP',
  'LIST',
  'LIST_MAP',
] as const;

/** One of the engine's field types. */
export type FieldType = (typeof FIELD_TYPES)[number];

/** Field attributes: string-valued metadata attached to one field (for example Avro's `precision`). */
export type FieldAttributes = Readonly<Record<string, string>>;

/**
 * Brand of the base prototype of every list-map (`true` there), shared by every copy of this package. Typed as a
 * unique symbol so that the {@link ListMap} type is told apart from a plain object: a plain object literal does
 * not pass for a list-map (build one with `listMapOf`).
 */
export const LIST_MAP_BRAND: unique symbol = Symbol.for('rest-service-origin.ListMap');

/**
 * A LIST_MAP in plain form (a list-map, see `list-map.ts`): read and write its fields as properties (`m.name`, `m['first name']`,
 * `m.extra = 1`, `delete m.extra`); get its order from `listMapKeys` or `listMapEntries`, and a `Map`
 * from `listMapToMap`. A field value is never `undefined`.
 *
 * Order: the keys of its key table that are still present, in table order, then keys added later, in JS
 * own-key order (integer-like ones first and ascending, then the rest in the order they were added).
 */
export interface ListMap {
  [key: string]: FieldValue;
  readonly [LIST_MAP_BRAND]: true;
}

/** A MAP field in plain form: an object whose prototype is `Object.prototype` or `null`. */
export interface PlainMap {
  [key: string]: FieldValue;
  /** Never set: it tells a plain object apart from a {@link ListMap} for the type checker. */
  readonly [LIST_MAP_BRAND]?: undefined;
}

/**
 * A node of a record's value tree.
 *
 * Plain forms and the type they say: `null` (a null field), `boolean` → BOOLEAN, `number` → INTEGER when it is an
 * integer in the signed 32-bit range, LONG when it is a larger safe integer, else DOUBLE; `string` → STRING;
 * `bigint` → LONG; `Uint8Array` → BYTE_ARRAY; `Date` → DATETIME; array → LIST; plain object → MAP; list-map
 * ({@link ListMap}) → LIST_MAP.
 */
export type FieldValue =
  | null
  | boolean
  | number
  | string
  | bigint
  | Uint8Array
  | Date
  | FieldValue[]
  | PlainMap
  | ListMap
  | TypedField;

/**
 * The value a {@link TypedField} holds for each type. Where a JS form would lose information the holder says so:
 * DECIMAL keeps its exact decimal text (`"-12.340"`), ZONED_DATETIME an ISO-8601 text with offset or zone id, and
 * LIST_MAP a list-map ({@link ListMap}), whose key table keeps the order even for keys that look like integers.
 *
 * The `Map` form of LIST_MAP is deprecated and read only during the move to list-maps (writers and field paths
 * still accept it); formats no longer make it. Use `listMapToMap` to get a `Map` from a list-map.
 */
export interface TypedValueOf {
  BOOLEAN: boolean | null;
  CHAR: string | null;
  BYTE: number | null;
  SHORT: number | null;
  INTEGER: number | null;
  LONG: number | bigint | null;
  FLOAT: number | null;
  DOUBLE: number | null;
  DECIMAL: string | null;
  DATE: Date | null;
  DATETIME: Date | null;
  TIME: Date | null;
  ZONED_DATETIME: string | null;
  STRING: string | null;
  BYTE_ARRAY: Uint8Array | null;
  MAP: PlainMap | null;
  LIST: FieldValue[] | null;
  LIST_MAP: ListMap | null;
}

/**
 * Brand of {@link TypedField} (`true` on its prototype), registered so that the ESM and CJS copies of this
 * package recognise each other's typed fields.
 */
const TYPED_FIELD_BRAND = Symbol.for('rest-service-origin.TypedField');

/**
 * A field whose type JS cannot say by itself, or that carries field attributes. Immutable: to change a field,
 * put a new one in its place.
 */
export class TypedField<T extends FieldType = FieldType> {
  readonly type: T;
  readonly value: TypedValueOf[T];
  readonly attributes: FieldAttributes | undefined;

  constructor(type: T, value: TypedValueOf[T], attributes?: FieldAttributes) {
    this.type = type;
    this.value = value;
    this.attributes = attributes;
  }
}

Object.defineProperty(TypedField.prototype, TYPED_FIELD_BRAND, { value: true });

/** Builds a {@link TypedField}; `field('DECIMAL', '1.50')`. */
export function field<T extends FieldType>(
  type: T,
  value: TypedValueOf[T],
  attributes?: FieldAttributes,
): TypedField<T> {
  return new TypedField(type, value, attributes);
}

/**
 * A DOUBLE as a record value: the plain number where the plain form already says DOUBLE (a non-integer, an
 * infinity, NaN, -0), a DOUBLE {@link TypedField} where it would say INTEGER or LONG (`2.0` is the number `2`).
 * Formats whose schema says "double" use it, so that the type survives without a wrapper on every value.
 */
export function doubleValue(value: number): number | TypedField<'DOUBLE'> {
  return Number.isSafeInteger(value) && !Object.is(value, -0) ? new TypedField('DOUBLE', value) : value;
}

/**
 * True when `value` is a {@link TypedField}, made by this copy of the package or another (ESM or CJS) copy: the
 * check is the registered brand, not `instanceof`.
 */
export function isTypedField(value: unknown): value is TypedField {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as { [TYPED_FIELD_BRAND]?: unknown })[TYPED_FIELD_BRAND] === true
  );
}

/**
 * True when `value` is a plain object (a MAP in plain form), not an array, Date, Uint8Array, Map, list-map or
 * TypedField.
 */
export function isPlainMap(value: unknown): value is PlainMap {
  if (value === null || typeof value !== 'object') return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

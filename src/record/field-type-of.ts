import { isPlainMap, isTypedField, type FieldType, type FieldValue } from './field';
import { isListMap } from './list-map';

const INT32_MIN = -2147483648;
const INT32_MAX = 2147483647;

/**
 * The engine field type a node of a value tree says.
 *
 * Plain forms follow {@link FieldValue}: `null` → STRING (the type the engine gives an untyped null, as its JSON
 * parser does), `boolean` → BOOLEAN, `number` → INTEGER when it is an integer in the signed 32-bit range, LONG
 * when it is another safe integer, else DOUBLE (including -0, NaN, ±Infinity and integers past 2^53), `string` →
 * STRING, `bigint` → LONG, `Uint8Array` (and `Buffer`) → BYTE_ARRAY, `Date` → DATETIME, array → LIST, plain object
 * → MAP, list-map → LIST_MAP. A {@link TypedField} says its own `type`.
 *
 * @throws TypeError when `value` is none of those forms (for example a `Map` outside a LIST_MAP wrapper, or
 *   `undefined`); that is a programmer error, never a data error.
 */
export function fieldTypeOf(value: FieldValue): FieldType {
  switch (typeof value) {
    case 'string':
      return 'STRING';
    case 'number':
      // -0 is no integer an INTEGER or LONG can hold: only DOUBLE keeps its sign.
      if (Number.isInteger(value) && !Object.is(value, -0)) {
        if (value >= INT32_MIN && value <= INT32_MAX) return 'INTEGER';
        if (Number.isSafeInteger(value)) return 'LONG';
      }
      return 'DOUBLE';
    case 'boolean':
      return 'BOOLEAN';
    case 'bigint':
      return 'LONG';
    case 'object':
      if (value === null) return 'STRING';
      if (Array.isArray(value)) return 'LIST';
      if (isTypedField(value)) return value.type;
      if (value instanceof Uint8Array) return 'BYTE_ARRAY';
      if (value instanceof Date) return 'DATETIME';
      if (isPlainMap(value)) return 'MAP';
      if (isListMap(value)) return 'LIST_MAP';
      break;
  }
  throw new TypeError(`Not a field value: ${describeForeign(value)}.`);
}

function describeForeign(value: unknown): string {
  if (value === undefined) return 'undefined';
  if (typeof value === 'object' && value !== null) {
    return `an instance of ${(value as object).constructor?.name ?? 'an unknown class'}`;
  }
  return `a ${typeof value}`;
}

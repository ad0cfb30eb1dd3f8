import { isTypedField, type FieldValue, type TypedField } from './field';
import { isListMap, listMapHasNativeOrder, listMapKeys, type ListMap } from './list-map';

/**
 * The JSON text of a record value, as the response sends it.
 *
 * Mapping: MAP and LIST_MAP → object (a LIST_MAP in its key order, even for keys that look like integers), LIST →
 * array, BOOLEAN → `true`/`false`, BYTE/SHORT/INTEGER/LONG/FLOAT/DOUBLE → number, a `bigint` → its digits as a
 * number (every digit kept), DECIMAL → its exact decimal text as a number, CHAR/STRING/ZONED_DATETIME → string,
 * DATE/DATETIME/TIME → epoch milliseconds, BYTE_ARRAY → base64 string, null → `null`, and NaN, ±Infinity and an
 * invalid Date → `null` (JSON cannot say them). A FLOAT or DOUBLE `-0` is written `-0.0`, keeping its sign (which
 * `JSON.stringify` drops) and saying it is not an integer (decision 0060). A FLOAT is written with the fewest digits that read back as the
 * same 32-bit float (`0.1`, not `0.10000000149011612`), as the engine does. Field attributes are not written.
 *
 * Cost: a tree of JSON-native values only (null, boolean, finite number, string, arrays, plain objects) is
 * checked by one cheap walk and written by `JSON.stringify`; only a tree holding anything else takes the slower
 * exact writer. A list-map counts as JSON-native when JS enumerates its keys in its own order (no integer-like
 * key out of place, no key of its table deleted), which the same walk checks.
 *
 * @throws RangeError when a DECIMAL holds text that is not a decimal number.
 * @throws TypeError when the tree holds something that is not a field value (for example a function or a
 *   class instance).
 */
export function fieldValueToJson(value: FieldValue): string {
  return isJsonNativeLeaf(value) ? JSON.stringify(value) : writeNode(value);
}

/** The JSON array of the values' texts (`[v1,v2,…]`), each written as {@link fieldValueToJson} writes it. */
export function fieldValuesToJsonArray(values: readonly FieldValue[]): string {
  // One native call for the whole list is markedly cheaper than one per value (the echo path's common case).
  if (isJsonNative(values)) return JSON.stringify(values);
  let out = '[';
  for (let i = 0; i < values.length; i++) {
    if (i > 0) out += ',';
    out += fieldValueToJson(values[i] as FieldValue);
  }
  return out + ']';
}

/**
 * True when `JSON.stringify` writes each of `values` exactly as {@link fieldValueToJson} does (see
 * {@link isJsonNativeLeaf}), so that a caller may hand them, or an object holding them, to one `JSON.stringify`.
 */
export function isJsonNative(values: readonly FieldValue[]): boolean {
  return isJsonNativeContainer(values);
}

/**
 * True when `JSON.stringify` writes `value` exactly as the mapping says: every node is null, a boolean, a finite
 * number other than -0 (which `JSON.stringify` writes `0`), a string, an array, a plain object or a list-map in native order. Anything else (typed wrappers, bigint, Date, bytes, NaN, holes,
 * `undefined`) sends the tree to the exact writer.
 *
 * Leaves are checked inline, without a call per field: this walk runs on every echoed record, and in this form
 * it costs about a tenth of the `JSON.stringify` that follows it.
 */
function isJsonNativeLeaf(value: unknown): boolean {
  // Each `typeof` compared where it is taken: V8 turns `typeof x === 'string'` into a check of x itself, while a
  // `typeof` kept in a variable is a call that returns a string (~12% of this walk).
  if (typeof value === 'string' || typeof value === 'boolean') return true;
  // x - x is 0 for every finite number and NaN for NaN and ±Infinity; 1 / -0 is -Infinity.
  if (typeof value === 'number') return value - value === 0 && (value !== 0 || 1 / value > 0);
  if (typeof value !== 'object') return false;
  return value === null || isJsonNativeContainer(value);
}

function isJsonNativeContainer(value: object): boolean {
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) if (!isJsonNativeLeaf(value[i])) return false;
    return true;
  }
  const proto = Object.getPrototypeOf(value) as unknown;
  if (proto !== Object.prototype && proto !== null) {
    return isListMap(value) && listMapHasNativeOrder(value, isJsonNativeLeaf);
  }
  const object = value as { readonly [key: string]: unknown };
  // for-in also visits inherited enumerable keys; a plain object inherits none.
  for (const key in object) if (!isJsonNativeLeaf(object[key])) return false;
  return true;
}

/** `-0.0` for -0: JSON.stringify would write `0`, losing the sign; the fraction says it is no integer. */
const NEGATIVE_ZERO = '-0.0';

function writeNumber(n: number): string {
  if (!Number.isFinite(n)) return 'null';
  return n === 0 && 1 / n < 0 ? NEGATIVE_ZERO : JSON.stringify(n);
}

function writeNode(value: unknown): string {
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value);
    case 'number':
      return writeNumber(value);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'bigint':
      return value.toString();
    case 'object':
      if (value === null) return 'null';
      if (Array.isArray(value)) return writeArray(value);
      if (isTypedField(value)) return writeTyped(value);
      if (value instanceof Uint8Array)
        return `"${Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('base64')}"`;
      if (value instanceof Date) return writeNumber(value.getTime());
      if (isListMap(value)) return writeListMap(value);
      {
        const proto = Object.getPrototypeOf(value) as unknown;
        if (proto === Object.prototype || proto === null)
          return writeObject(value as { [key: string]: unknown });
      }
      break;
  }
  throw new TypeError(`Cannot write ${describe(value)} as JSON: it is not a field value.`);
}

function describe(value: unknown): string {
  if (typeof value === 'object' && value !== null)
    return `an instance of ${value.constructor?.name ?? 'a class'}`;
  return `a ${typeof value}`;
}

function writeArray(items: readonly unknown[]): string {
  let out = '[';
  for (let i = 0; i < items.length; i++) {
    if (i > 0) out += ',';
    const item = items[i];
    // As JSON.stringify does: a hole or undefined in an array is null.
    out += item === undefined ? 'null' : writeNode(item);
  }
  return out + ']';
}

function writeObject(object: { readonly [key: string]: unknown }): string {
  let out = '{';
  let first = true;
  for (const key of Object.keys(object)) {
    const item = object[key];
    // As JSON.stringify does: a key whose value is undefined is left out.
    if (item === undefined) continue;
    out += (first ? '' : ',') + JSON.stringify(key) + ':' + writeNode(item);
    first = false;
  }
  return out + '}';
}

function writeListMap(map: ListMap): string {
  let out = '{';
  let first = true;
  for (const key of listMapKeys(map)) {
    const item: unknown = map[key];
    if (item === undefined) continue;
    out += (first ? '' : ',') + JSON.stringify(key) + ':' + writeNode(item);
    first = false;
  }
  return out + '}';
}

function writeTyped(field: TypedField): string {
  const inner = field.value;
  if (inner === null) return 'null';
  if (field.type === 'DECIMAL' && typeof inner === 'string') return writeDecimal(inner);
  if (field.type === 'FLOAT' && typeof inner === 'number') return writeFloat(inner);
  return writeNode(inner);
}

const JSON_NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;
const DECIMAL_TEXT = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/;

/**
 * A DECIMAL's text as a JSON number with every digit kept. Text that is already a JSON number (the usual case)
 * is written as is; other decimal spellings (`+1`, `.5`, `5.`, `007`) are respelled without changing the value.
 */
function writeDecimal(text: string): string {
  if (JSON_NUMBER.test(text)) return text;
  const match = DECIMAL_TEXT.exec(text.trim());
  const [, sign = '', whole = '', fraction = '', exponent] = match ?? [];
  if (match === null || (whole === '' && fraction === '')) {
    throw new RangeError(`DECIMAL field holds ${JSON.stringify(text)}, which is not a decimal number.`);
  }
  const intPart = whole.replace(/^0+(?=\d)/, '') || '0';
  return (
    (sign === '-' ? '-' : '') +
    intPart +
    (fraction === '' ? '' : '.' + fraction) +
    (exponent === undefined ? '' : 'e' + exponent)
  );
}

/** The shortest decimal that reads back as the same 32-bit float, when the number is one. */
function writeFloat(n: number): string {
  if (!Number.isFinite(n)) return 'null';
  if (n === 0) return writeNumber(n);
  if (Math.fround(n) !== n) return JSON.stringify(n);
  for (let digits = 1; digits < 17; digits++) {
    const shorter = Number(n.toPrecision(digits));
    if (Math.fround(shorter) === n) return JSON.stringify(shorter);
  }
  return JSON.stringify(n);
}

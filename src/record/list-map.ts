/**
 * LIST_MAP in plain form: an object whose fields are own enumerable data properties, read like a MAP
 * (`value.name`, `value['first name']`, destructuring, `in`), and whose prototype carries the key table that fixes
 * the field order. See docs/decisions/0020-list-map-shared-key-table.md for the choice and its figures.
 *
 * Layout: every list-map's prototype is made once per key list (a {@link ListMapShape}) and holds the frozen key
 * table under `Symbol.for('rest-service-origin.listMapKeys')`; that prototype's own prototype is the base, branded
 * with `Symbol.for('rest-service-origin.ListMap')`. Records of one schema therefore share one key table, and V8
 * gives them one hidden class. Both symbols are registered (`Symbol.for`) so that the ESM and CJS copies of this
 * package read each other's list-maps.
 *
 * Nothing on a list-map or its prototypes has a string name: a field may be called `get`, `size`, `keys` or
 * `toJSON`. The Map-like API is the free functions of this module.
 *
 * Order: JS enumerates integer-like keys (`"0"`, `"17"`) first and ascending, whatever order they were added in;
 * the key table keeps the true order. Anything that needs the order (writers, path positions, clones) goes
 * through {@link listMapKeys}, never `Object.keys` or `for…in`.
 */
import { LIST_MAP_BRAND, type FieldValue, type ListMap } from './field';

export type { ListMap } from './field';

/** Where a list-map's prototype holds its frozen key table (a cross-copy contract: a `readonly string[]`). */
const LIST_MAP_KEYS = Symbol.for('rest-service-origin.listMapKeys');

type KeyTable = readonly string[];

interface ListMapInternals {
  [key: string]: FieldValue | undefined;
  readonly [LIST_MAP_KEYS]: KeyTable;
}

const hasOwn = (object: object, key: string): boolean => Object.prototype.hasOwnProperty.call(object, key);

// The base inherits from Object.prototype, as a MAP parsed from JSON does: `m.hasOwnProperty`, `${m}`,
// `Object.prototype.toString`, util.inspect and test matchers (`toEqual({ name: 'Ada' })`) treat both alike. A field
// named like an Object.prototype member is an own property and shadows it.
const LIST_MAP_BASE: object = Object.create(Object.prototype, {
  [LIST_MAP_BRAND]: { value: true },
}) as object;

/**
 * The key list of the records of one schema or header, made once and used for every record: `shape.create(values)`
 * builds one list-map. Every list-map a shape makes shares the shape's key table and prototype.
 *
 * Duplicate keys are allowed (a delimited header may repeat a name): the key keeps its first position and takes
 * the last value, as `Map.set` did.
 */
export class ListMapShape {
  /** The distinct keys, in order of first appearance: the shared key table. Frozen. */
  readonly keys: readonly string[];
  /** How many values {@link ListMapShape.create} takes: the length of the key list, duplicates included. */
  readonly size: number;
  readonly #construct: new (values: readonly FieldValue[]) => ListMap;

  /** @param keys the field names in order; may repeat a name. */
  constructor(keys: Iterable<string>) {
    const list = [...keys];
    const table = Object.freeze([...new Set(list)]);
    this.keys = table;
    this.size = list.length;
    const prototype = Object.create(LIST_MAP_BASE, { [LIST_MAP_KEYS]: { value: table } }) as object;
    this.#construct = compileConstructor(list, prototype);
  }

  /**
   * A list-map holding `values[i]` under the i-th key of the key list. The values are copied out: the array is
   * not kept and may be reused.
   *
   * @throws RangeError when `values.length` differs from {@link ListMapShape.size}, or a value is `undefined`.
   */
  create(values: readonly FieldValue[]): ListMap {
    if (values.length !== this.size) {
      throw new RangeError(`A list-map of ${this.size} keys cannot take ${values.length} values.`);
    }
    return new this.#construct(values);
  }
}

/**
 * One constructor per shape, assigning each key in turn: V8 gives every instance the same hidden class with
 * in-object fields, which is both faster and smaller than a loop of assignments onto `Object.create(prototype)`
 * (measured in ADR 0020). `__proto__` is defined, not assigned: an assignment would change the prototype.
 */
function compileConstructor(
  list: readonly string[],
  prototype: object,
): new (values: readonly FieldValue[]) => ListMap {
  let body = '"use strict";\n';
  for (let i = 0; i < list.length; i++) {
    const key = JSON.stringify(list[i]);
    body +=
      list[i] === '__proto__'
        ? `Object.defineProperty(this, ${key}, { value: v[${i}], writable: true, enumerable: true, configurable: true });\n`
        : `this[${key}] = v[${i}];\n`;
  }
  body += `for (let i = 0; i < ${list.length}; i++) if (v[i] === undefined) throw new RangeError("A list-map value cannot be undefined (position " + i + ").");\n`;
  let construct: new (values: readonly FieldValue[]) => ListMap;
  try {
    construct = new Function('v', body) as unknown as new (values: readonly FieldValue[]) => ListMap;
  } catch {
    // A host that refuses code generation from strings (`--disallow-code-generation-from-strings`) gets the same
    // assignments in a loop: slower, alike in result.
    construct = assigningConstructor(list);
  }
  construct.prototype = prototype;
  return construct;
}

/** What {@link compileConstructor} compiles, as a loop over the key list. */
function assigningConstructor(list: readonly string[]): new (values: readonly FieldValue[]) => ListMap {
  return function assign(this: ListMap, values: readonly FieldValue[]): void {
    for (let i = 0; i < list.length; i++) {
      const value = values[i];
      if (value === undefined) throw new RangeError(`A list-map value cannot be undefined (position ${i}).`);
      setListMapField(this, list[i] as string, value);
    }
  } as unknown as new (values: readonly FieldValue[]) => ListMap;
}

/**
 * True when `value` is a list-map, made by this copy of the package or another (ESM or CJS) copy.
 */
export function isListMap(value: unknown): value is ListMap {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as { [LIST_MAP_BRAND]?: unknown })[LIST_MAP_BRAND] === true
  );
}

function tableOf(map: ListMap): KeyTable {
  return (map as unknown as ListMapInternals)[LIST_MAP_KEYS];
}

const tableSets = new WeakMap<KeyTable, ReadonlySet<string>>();

function tableSet(table: KeyTable): ReadonlySet<string> {
  let set = tableSets.get(table);
  if (set === undefined) {
    set = new Set(table);
    tableSets.set(table, set);
  }
  return set;
}

/**
 * The keys of a list-map in order: the key table's keys still present, in table order, then keys added later,
 * in JS own-key order (integer-like ones ascending first, then the others as added). A new array each call.
 */
export function listMapKeys(map: ListMap): string[] {
  const table = tableOf(map);
  const internals = map as unknown as ListMapInternals;
  const keys: string[] = [];
  for (let i = 0; i < table.length; i++) {
    const key = table[i] as string;
    // A field value is never undefined nor a function, so only such a read needs the own-property check: the key
    // was deleted, or it names an Object.prototype member (`toString`, `__proto__`) that now shows through.
    const value = internals[key];
    if (value === undefined || typeof value === 'function' || key === '__proto__') {
      if (!hasOwn(map, key)) continue;
    }
    keys.push(key);
  }
  const own = Object.keys(map);
  if (own.length === keys.length) return keys;
  const inTable = tableSet(table);
  for (const key of own) if (!inTable.has(key)) keys.push(key);
  return keys;
}

/** The `[key, value]` pairs of a list-map in {@link listMapKeys} order. */
export function listMapEntries(map: ListMap): [string, FieldValue][] {
  return listMapKeys(map).map((key) => [key, map[key] as FieldValue]);
}

/** The entries of a list-map as a new `Map` (in {@link listMapKeys} order): the documented way to get a `Map`. */
export function listMapToMap(map: ListMap): Map<string, FieldValue> {
  const out = new Map<string, FieldValue>();
  for (const key of listMapKeys(map)) out.set(key, map[key] as FieldValue);
  return out;
}

// Ad hoc list-maps of one key list share a shape; the bound keeps a stream of ever-new key lists from growing
// the cache without limit.
const SHAPE_CACHE_LIMIT = 1024;
const shapeCache = new Map<string, ListMapShape>();

/**
 * The shape of a key list, shared with every other caller that asks for the same list (bounded cache). For a key
 * list known up front (a schema, a header) prefer one `new ListMapShape(keys)`.
 */
export function listMapShapeOf(keys: readonly string[]): ListMapShape {
  const id = JSON.stringify(keys);
  let shape = shapeCache.get(id);
  if (shape === undefined) {
    shape = new ListMapShape(keys);
    if (shapeCache.size >= SHAPE_CACHE_LIMIT) shapeCache.clear();
    shapeCache.set(id, shape);
  }
  return shape;
}

/**
 * A list-map of the given entries in their order (a repeated key keeps its first position and takes the last
 * value). Takes `[key, value]` pairs or a `Map`.
 *
 * @throws RangeError when a value is `undefined`.
 */
export function listMapOf(
  entries: Iterable<readonly [string, FieldValue]> | ReadonlyMap<string, FieldValue>,
): ListMap {
  const keys: string[] = [];
  const values: FieldValue[] = [];
  for (const [key, value] of entries) {
    keys.push(key);
    values.push(value);
  }
  return listMapShapeOf(keys).create(values);
}

/**
 * A copy of a list-map's top level with the same key table and order; `copyValue` copies each value (identity
 * for a shallow copy).
 */
export function copyListMap(map: ListMap, copyValue: (value: FieldValue) => FieldValue): ListMap {
  const copy = Object.create(Object.getPrototypeOf(map) as object) as ListMap;
  for (const key of listMapKeys(map)) setListMapField(copy, key, copyValue(map[key] as FieldValue));
  return copy;
}

/**
 * Sets a field of a list-map: an existing key keeps its place, a new key comes after the others. Unlike a plain
 * assignment, it adds a key named `__proto__` as a field.
 */
export function setListMapField(map: ListMap, key: string, value: FieldValue): void {
  if (key === '__proto__') {
    Object.defineProperty(map, key, { value, writable: true, enumerable: true, configurable: true });
  } else {
    map[key] = value;
  }
}

/**
 * True when `JSON.stringify` writes the list-map's keys in {@link listMapKeys} order: JS enumerates its own keys
 * in exactly the key table's order followed by nothing but keys added later. Fails (and the caller takes the
 * ordered writer) when the table holds integer-like keys out of JS order, a table key was deleted, or an
 * integer-like key was added. `checkValue` is asked about each value in turn; the walk stops at its first `false`.
 */
export function listMapHasNativeOrder(map: ListMap, checkValue: (value: unknown) => boolean): boolean {
  const table = tableOf(map);
  const internals = map as unknown as ListMapInternals;
  let i = 0;
  // for…in visits no inherited key: the prototypes hold only symbols and Object.prototype's non-enumerables.
  for (const key in internals) {
    if (i < table.length) {
      if (key !== table[i]) return false;
      i++;
    }
    if (!checkValue(internals[key])) return false;
  }
  return i === table.length;
}

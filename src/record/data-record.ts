import {
  isPlainMap,
  isTypedField,
  TypedField,
  type FieldAttributes,
  type FieldType,
  type FieldValue,
  type PlainMap,
  type TypedValueOf,
} from './field';
import { fieldTypeOf } from './field-type-of';
import { copyListMap, isListMap, listMapKeys, setListMapField, type ListMap } from './list-map';
import { formatFieldPath, parseFieldPath, type PathSegment } from './field-path';
import { RecordHeader, type HeaderAttributes } from './record-header';

/**
 * A uniform typed view of one field, whether the tree holds it in plain form or as a {@link TypedField}: its
 * engine type, its value with any wrapper removed, and its field attributes. Narrowing on `type` narrows `value`.
 */
export type FieldView = {
  [T in FieldType]: {
    readonly type: T;
    readonly value: TypedValueOf[T];
    readonly attributes: FieldAttributes | undefined;
  };
}[FieldType];

/** What a {@link DataRecord} starts from: either a ready header, or the parts to build one from. */
export interface DataRecordInit {
  /** A header to use as is; cannot be combined with the other options. */
  readonly header?: RecordHeader;
  /** Attributes shared by the records of one request; see `RecordHeaderInit.baseAttributes`. */
  readonly baseAttributes?: HeaderAttributes;
  /** Attributes of this record alone. */
  readonly attributes?: HeaderAttributes;
  /** The record id, e.g. `<requestId>::<index>`. */
  readonly sourceId?: string;
}

// The init of requestRecord()'s records, told apart by identity: their header is built on first read.
const LAZY_HEADER: DataRecordInit = Object.freeze({});

/**
 * The init of a subclass whose `value` is an accessor of its own (`DeferredRecord`): the header is built on first
 * read, as with {@link requestRecord}, and the constructor leaves `value` alone (an assignment would call the
 * subclass's setter before its fields exist). Not part of the package's API.
 */
export const DEFERRED_VALUE_INIT: DataRecordInit = Object.freeze({});

/** The error that turns a record into an error record. */
export interface RecordError {
  readonly code: string;
  /** By engine convention `"<CODE> - <description>"`; the response sends it verbatim. */
  readonly message: string;
  readonly stage: string;
  /** Epoch milliseconds; defaults to now. */
  readonly timestamp?: number;
}

const hasOwn = (object: object, key: string): boolean => Object.prototype.hasOwnProperty.call(object, key);

/**
 * What the records of one request share: made once per request by the origin and passed to
 * {@link requestRecord} for each of them.
 */
export interface RequestRecordSource {
  readonly requestId: string;
  /** The request's frozen header attributes, shared (not copied) by every record's header. */
  readonly baseAttributes: HeaderAttributes;
}

// Set by DataRecord's static block: the only way to reach its private fields from outside the class body.
let makeRequestRecord: (
  value: FieldValue,
  source: RequestRecordSource,
  index: number,
  attributes: HeaderAttributes | undefined,
) => DataRecord;

// Set by DataRecord's static block, as makeRequestRecord.
let setRequestSource: (
  record: DataRecord,
  source: RequestRecordSource,
  index: number,
  attributes: HeaderAttributes | undefined,
) => void;

/**
 * Gives a record made with {@link DEFERRED_VALUE_INIT} the header a {@link requestRecord} of the same `source`,
 * `index` and `attributes` has (built on first read). Not part of the package's API.
 */
export function attachRequestSource(
  record: DataRecord,
  source: RequestRecordSource,
  index: number,
  attributes: HeaderAttributes | undefined,
): void {
  setRequestSource(record, source, index, attributes);
}

/**
 * The record at `index` of a request: its header (attributes `source.baseAttributes` then `attributes`, sourceId
 * `<requestId>::<index>`) is the one `new DataRecord(value, { baseAttributes, attributes, sourceId })` would
 * have, but is built on the first read of `header`. Most pipelines never read it, and the header and its
 * sourceId string were two of the three objects made per record. Not part of the package's API.
 */
export function requestRecord(
  value: FieldValue,
  source: RequestRecordSource,
  index: number,
  attributes?: HeaderAttributes,
): DataRecord {
  return makeRequestRecord(value, source, index, attributes);
}

/**
 * One record: a header and a value tree (see {@link FieldValue}).
 *
 * `value` is public and mutable so that stages read `record.value.customer.name` as they expect in Node; the
 * path methods (`get`, `set`, `delete`, `field`) reach into the tree by field path (see `field-path.ts`),
 * looking inside plain objects, list-maps and arrays as well as typed MAP, LIST and LIST_MAP wrappers. A record
 * owns its tree: keep no reference to a subtree you later hand to another record, or {@link DataRecord.clone}
 * first.
 */
export class DataRecord {
  /**
   * The root of the value tree. An own data property of every record but a large body's (`DeferredRecord`, decision
   * 0125), where it is an accessor of the subclass that decodes the value on first read; hence `declare`: the
   * constructor assigns it, and a subclass accessor is not shadowed by a class field.
   */
  declare value: FieldValue;
  // Undefined only for a record of requestRecord() whose header nobody has read yet; the three fields below
  // are what it is built from then.
  #header: RecordHeader | undefined;
  #source: RequestRecordSource | undefined;
  #index = 0;
  #attributes: HeaderAttributes | undefined;

  static {
    makeRequestRecord = (value, source, index, attributes) => {
      const record = new DataRecord(value, LAZY_HEADER);
      record.#source = source;
      record.#index = index;
      record.#attributes = attributes;
      return record;
    };
    setRequestSource = (record, source, index, attributes) => {
      record.#source = source;
      record.#index = index;
      record.#attributes = attributes;
    };
  }

  /**
   * @throws TypeError when `init.header` is combined with `baseAttributes`, `attributes` or `sourceId`.
   */
  constructor(value: FieldValue, init: DataRecordInit = {}) {
    if (init === DEFERRED_VALUE_INIT) {
      this.#header = undefined;
      return;
    }
    this.value = value;
    if (init === LAZY_HEADER) {
      this.#header = undefined;
    } else if (init.header !== undefined) {
      if (init.baseAttributes !== undefined || init.attributes !== undefined || init.sourceId !== undefined) {
        throw new TypeError(
          'DataRecord takes either a header or baseAttributes/attributes/sourceId, not both.',
        );
      }
      this.#header = init.header;
    } else {
      this.#header = new RecordHeader(init);
    }
  }

  /** The record's header: its id, its attributes and, for an error record, the error. Always the same object. */
  get header(): RecordHeader {
    // Built here rather than in a private method: a class with private methods gives each instance a hidden brand
    // field, 8 more bytes per record (decision 0135).
    let header = this.#header;
    if (header === undefined) {
      const source = this.#source as RequestRecordSource;
      header = this.#header = new RecordHeader({
        baseAttributes: source.baseAttributes,
        attributes: this.#attributes,
        sourceId: `${source.requestId}::${this.#index}`,
      });
      this.#source = undefined;
      this.#attributes = undefined;
    }
    return header;
  }

  /**
   * A clone of `original` whose header carries the error: `errorCode`, `errorMessage`, `errorStage` and
   * `errorTimestamp` (now, unless given). The original record is left as it was.
   */
  static createErrorRecord(original: DataRecord, error: RecordError): DataRecord {
    const record = original.clone();
    record.header.errorCode = error.code;
    record.header.errorMessage = error.message;
    record.header.errorStage = error.stage;
    record.header.errorTimestamp = error.timestamp ?? Date.now();
    return record;
  }

  /**
   * The node at `path` exactly as the tree stores it (a {@link TypedField} stays wrapped), or `undefined` when
   * the path leads nowhere. A null field gives `null`.
   *
   * @throws RangeError when `path` is malformed.
   */
  get(path: string): FieldValue | undefined {
    let node: FieldValue | undefined = this.value;
    for (const segment of parseFieldPath(path)) {
      node = childOf(node as FieldValue, segment);
      if (node === undefined) return undefined;
    }
    return node;
  }

  /** True when a field (possibly a null field) exists at `path`. @throws RangeError when `path` is malformed. */
  has(path: string): boolean {
    return this.get(path) !== undefined;
  }

  /**
   * Puts `value` at `path`: a key of a MAP or LIST_MAP (added at the end when new), or a position of a LIST (an
   * existing one, or the length to append) or of a LIST_MAP (an existing entry, keeping its key). Missing
   * intermediate fields reached by a key are created as empty plain MAPs. `'/'` replaces the whole value.
   *
   * @throws RangeError when `path` is malformed, when a parent on the way is not a container of the kind the
   *   segment needs (a scalar, a null field, a LIST reached by a key, a MAP reached by a position), or when a
   *   position is past the end.
   */
  set(path: string, value: FieldValue): void {
    const segments = parseFieldPath(path);
    const last = segments[segments.length - 1];
    if (last === undefined) {
      this.value = value;
      return;
    }
    let parent: FieldValue = this.value;
    for (let i = 0; i < segments.length - 1; i++) {
      const segment = segments[i] as PathSegment;
      let child = childOf(parent, segment);
      if (child === undefined) {
        const next = segments[i + 1] as PathSegment;
        if (segment.kind === 'index' || next.kind === 'index') {
          throw notAContainer(path, segments, i + 1, 'missing, and only a MAP reached by a key is created');
        }
        child = {};
        putChild(parent, segment, child, path, segments, i);
      }
      parent = child;
    }
    putChild(parent, last, value, path, segments, segments.length - 1);
  }

  /**
   * Removes the field at `path`: a key of a MAP or LIST_MAP, or a position of a LIST or LIST_MAP (later items
   * move up). `'/'` sets the value to null. Returns whether a field was removed; a path that leads nowhere
   * gives `false`.
   *
   * @throws RangeError when `path` is malformed.
   */
  delete(path: string): boolean {
    const segments = parseFieldPath(path);
    const last = segments[segments.length - 1];
    if (last === undefined) {
      const had = this.value !== null;
      this.value = null;
      return had;
    }
    let parent: FieldValue | undefined = this.value;
    for (let i = 0; i < segments.length - 1; i++) {
      parent = childOf(parent as FieldValue, segments[i] as PathSegment);
      if (parent === undefined) return false;
    }
    return removeChild(parent as FieldValue, last);
  }

  /**
   * The typed view of the field at `path` (type, unwrapped value, field attributes), or `undefined` when the path
   * leads nowhere. @throws RangeError when `path` is malformed.
   */
  field(path: string): FieldView | undefined {
    const node = this.get(path);
    return node === undefined ? undefined : viewOf(node);
  }

  /**
   * A deep copy: the value tree (typed wrappers, Dates, byte arrays, Maps included) and the header. Nothing the
   * copy holds is shared with this record except the frozen base attributes.
   */
  clone(): DataRecord {
    return new DataRecord(cloneFieldValue(this.value), { header: this.header.clone() });
  }
}

/** The typed view of one node. */
function viewOf(node: FieldValue): FieldView {
  if (isTypedField(node))
    return { type: node.type, value: node.value, attributes: node.attributes } as FieldView;
  return { type: fieldTypeOf(node), value: node, attributes: undefined } as FieldView;
}

/**
 * A deep copy of a value tree: arrays, plain objects (keeping a null prototype), list-maps (sharing the original's
 * key table), `Map`s, typed wrappers (with their field attributes), `Date`s and byte arrays (a `Buffer` stays a
 * `Buffer`) are copied; primitives are immutable and kept.
 */
export function cloneFieldValue(value: FieldValue): FieldValue {
  return cloneNode(value);
}

function cloneNode(value: FieldValue): FieldValue {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return value.map(cloneFieldValue);
  if (isTypedField(value)) {
    const inner = value.value === null ? null : cloneNode(value.value);
    const attributes = value.attributes === undefined ? undefined : Object.freeze({ ...value.attributes });
    return new TypedField(value.type, inner as TypedValueOf[FieldType], attributes);
  }
  if (value instanceof Uint8Array) return Uint8Array.prototype.slice.call(value);
  if (value instanceof Date) return new Date(value.getTime());
  if (isListMap(value)) return copyListMap(value, cloneFieldValue);
  const copy = Object.create(Object.getPrototypeOf(value) as object | null) as PlainMap;
  for (const key of Object.keys(value)) setOwn(copy, key, cloneFieldValue(value[key] as FieldValue));
  return copy;
}

// A plain assignment to '__proto__' would set the prototype instead of adding the key.
function setOwn(map: PlainMap, key: string, value: FieldValue): void {
  if (key === '__proto__') {
    Object.defineProperty(map, key, { value, enumerable: true, writable: true, configurable: true });
  } else {
    map[key] = value;
  }
}

/** A container node's contents: a LIST, a MAP or a LIST_MAP. */
type Container = FieldValue[] | PlainMap | ListMap;

/** What a container node holds, looking through a typed wrapper; `undefined` when it is not a container. */
function containerOf(node: FieldValue): Container | undefined {
  if (node === null || typeof node !== 'object') return undefined;
  if (Array.isArray(node)) return node;
  if (isTypedField(node)) {
    if (node.type === 'MAP' || node.type === 'LIST' || node.type === 'LIST_MAP') {
      return (node.value as Container | null) ?? undefined;
    }
    return undefined;
  }
  return isPlainMap(node) || isListMap(node) ? node : undefined;
}

function childOf(node: FieldValue, segment: PathSegment): FieldValue | undefined {
  const container = containerOf(node);
  if (container === undefined) return undefined;
  if (segment.kind === 'key') {
    if (Array.isArray(container)) return undefined;
    return hasOwn(container, segment.key) ? container[segment.key] : undefined;
  }
  if (Array.isArray(container))
    return segment.index < container.length ? container[segment.index] : undefined;
  if (isListMap(container)) {
    const key = listMapKeys(container)[segment.index];
    return key === undefined ? undefined : container[key];
  }
  return undefined;
}

function notAContainer(
  path: string,
  segments: readonly PathSegment[],
  upTo: number,
  why: string,
): RangeError {
  const at = formatFieldPath(segments.slice(0, upTo));
  return new RangeError(`Cannot set field path ${JSON.stringify(path)}: the field at ${at} is ${why}.`);
}

function putChild(
  node: FieldValue,
  segment: PathSegment,
  value: FieldValue,
  path: string,
  segments: readonly PathSegment[],
  at: number,
): void {
  const container = containerOf(node);
  if (container === undefined) {
    const what = node === null ? 'null' : `of type ${fieldTypeOf(node)}, not a container`;
    throw notAContainer(path, segments, at, what);
  }
  if (segment.kind === 'key') {
    if (Array.isArray(container))
      throw notAContainer(path, segments, at, 'a LIST, which takes [n], not a key');
    else if (isListMap(container)) setListMapField(container, segment.key, value);
    else setOwn(container, segment.key, value);
    return;
  }
  if (Array.isArray(container)) {
    if (segment.index > container.length) {
      throw notAContainer(
        path,
        segments,
        at,
        `a LIST of ${container.length}, too short for [${segment.index}]`,
      );
    }
    container[segment.index] = value;
  } else if (isListMap(container)) {
    const keys = listMapKeys(container);
    const key = keys[segment.index];
    if (key === undefined) {
      throw notAContainer(
        path,
        segments,
        at,
        `a LIST_MAP of ${keys.length}, too short for [${segment.index}]`,
      );
    }
    setListMapField(container, key, value);
  } else {
    throw notAContainer(path, segments, at, 'a MAP, which takes a key, not [n]');
  }
}

function removeChild(node: FieldValue, segment: PathSegment): boolean {
  const container = containerOf(node);
  if (container === undefined) return false;
  if (segment.kind === 'key') {
    if (Array.isArray(container) || !hasOwn(container, segment.key)) return false;
    delete container[segment.key];
    return true;
  }
  if (Array.isArray(container)) {
    if (segment.index >= container.length) return false;
    container.splice(segment.index, 1);
    return true;
  }
  if (isListMap(container)) {
    const key = listMapKeys(container)[segment.index];
    if (key === undefined) return false;
    delete container[key];
    return true;
  }
  return false;
}

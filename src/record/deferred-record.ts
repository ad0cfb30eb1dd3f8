import type { FieldValue } from './field';
import type { HeaderAttributes } from './record-header';
import {
  attachRequestSource,
  DataRecord,
  DEFERRED_VALUE_INIT,
  type RequestRecordSource,
} from './data-record';

/**
 * A record value kept as its source text: `decode(text)` gives the value, the same one each time. The parser
 * checked the text when it read it (a text that fails to decode is a parse failure, never a deferred value), so
 * `decode` does not throw on it.
 */
export interface DeferredValue {
  /** The value's source text, as the parser read it. */
  readonly text: string;
  /** Makes the value from `text`: the same value each call, shared by the records of one parser. */
  readonly decode: (text: string) => FieldValue;
}

/**
 * A record of a large body whose value is decoded on first read (decision 0125). While a large body is read, its
 * records live until the batch is answered; as value trees they are most of the heap's objects, and every
 * garbage collection during the upload copies or marks them, pausing the other clients' requests. Kept as one
 * string each, they are a few objects per record instead of a dozen.
 *
 * To every reader it is a {@link DataRecord} like any other: `value` decodes the text on first read and keeps the
 * value (a stage's changes stay), assigning `value` replaces it, and `get`, `set`, `clone`, `field` and the header
 * work through them. What differs: `value` is an accessor of this class, not an own property of the record, so
 * `Object.keys(record)` and `{ ...record }` do not show it (nothing of the package reads a record that way).
 * Made by the origin only, for bodies past the whole-body size of formats that can defer (JSON, delimited).
 */
export class DeferredRecord extends DataRecord {
  /** The source text while {@link DeferredRecord.isDeferred}, then the value (one field: records are many). */
  #value: FieldValue;
  /** Decodes the source text; `undefined` once the value was decoded or assigned. */
  #decode: ((text: string) => FieldValue) | undefined;

  constructor(deferred: DeferredValue) {
    super(null, DEFERRED_VALUE_INIT);
    this.#value = deferred.text;
    this.#decode = deferred.decode;
  }

  /** Whether the value is still only its source text (nobody read or assigned it). */
  get isDeferred(): boolean {
    return this.#decode !== undefined;
  }

  /**
   * The value, without keeping it when it was not decoded yet: what a renderer reads last, so that a large answer's
   * values are garbage as soon as they are written. A later read of `value` decodes the same value again.
   */
  peekValue(): FieldValue {
    const decode = this.#decode;
    return decode === undefined ? this.#value : decode(this.#value as string);
  }

  static {
    // An accessor on the prototype (not a class accessor: DataRecord declares `value` as a property).
    Object.defineProperty(DeferredRecord.prototype, 'value', {
      get(this: DeferredRecord): FieldValue {
        const decode = this.#decode;
        if (decode !== undefined) {
          this.#value = decode(this.#value as string);
          this.#decode = undefined;
        }
        return this.#value;
      },
      set(this: DeferredRecord, value: FieldValue): void {
        this.#value = value;
        this.#decode = undefined;
      },
      enumerable: true,
      configurable: false,
    });
  }
}

/** The value a renderer writes for `record`: a deferred value is decoded for the write and not kept. */
export function valueToWrite(record: DataRecord): FieldValue {
  return record instanceof DeferredRecord ? record.peekValue() : record.value;
}

/**
 * The record at `index` of a request whose value is `deferred`: a {@link DeferredRecord} with the header a
 * `requestRecord` of the same arguments has. Not part of the package's API.
 */
export function deferredRequestRecord(
  deferred: DeferredValue,
  source: RequestRecordSource,
  index: number,
  attributes?: HeaderAttributes,
): DataRecord {
  const record = new DeferredRecord(deferred);
  attachRequestSource(record, source, index, attributes);
  return record;
}

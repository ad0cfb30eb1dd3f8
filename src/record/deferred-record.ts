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
 * A record value kept as its source text in bytes the parser owns: `bytes` from `start` to `end` is the text's
 * UTF-8, and `decode(text)` gives the value, as for a {@link DeferredValue}. The bytes are shared by many records
 * (a block of a {@link https://nodejs.org/api/buffer.html | Buffer} outside V8's heap) and never change once
 * handed out. Why bytes rather than a string (decision 0135): a string per record lives in V8's young generation
 * while the body is read, and every scavenge during the upload copies it once or twice; bytes outside the heap are
 * never copied, so the scavenges that pause other clients' requests are shorter.
 */
export interface DeferredBytes {
  /** Holds the text's UTF-8 from `start` to `end`; never changed once handed out. */
  readonly bytes: Buffer;
  /** Where the text begins in `bytes`. */
  readonly start: number;
  /** Where the text ends in `bytes` (exclusive). */
  readonly end: number;
  /** Makes the value from the text: the same value each call, shared by the records of one parser. */
  readonly decode: (text: string) => FieldValue;
}

/** The source text of a deferred value, whichever form the parser kept it in. */
export function deferredText(deferred: DeferredValue | DeferredBytes): string {
  return 'text' in deferred ? deferred.text : deferred.bytes.toString('utf8', deferred.start, deferred.end);
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
  /**
   * While {@link DeferredRecord.isDeferred}: the source text, or the bytes holding it (`#end` ≥ 0); then the value
   * (one field for both: records are many).
   */
  #value: FieldValue;
  /** Decodes the source text; `undefined` once the value was decoded or assigned. */
  #decode: ((text: string) => FieldValue) | undefined;
  /** Where the source text lies in the bytes of `#value`; `#end` is -1 when `#value` is the text itself. */
  #start = 0;
  #end = -1;

  constructor(deferred: DeferredValue | DeferredBytes) {
    super(null, DEFERRED_VALUE_INIT);
    if ('text' in deferred) this.#value = deferred.text;
    else {
      this.#value = deferred.bytes;
      this.#start = deferred.start;
      this.#end = deferred.end;
    }
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
    return decode === undefined ? this.#value : decode(sourceText(this.#value, this.#start, this.#end));
  }

  static {
    // An accessor on the prototype (not a class accessor: DataRecord declares `value` as a property).
    Object.defineProperty(DeferredRecord.prototype, 'value', {
      get(this: DeferredRecord): FieldValue {
        const decode = this.#decode;
        if (decode !== undefined) {
          this.#value = decode(sourceText(this.#value, this.#start, this.#end));
          this.#decode = undefined;
          this.#end = -1;
        }
        return this.#value;
      },
      set(this: DeferredRecord, value: FieldValue): void {
        this.#value = value;
        this.#decode = undefined;
        this.#end = -1;
      },
      enumerable: true,
      configurable: false,
    });
  }
}

/**
 * The source text of a value still deferred, from a {@link DeferredRecord}'s fields. A function, not a private
 * method: a class with private methods gives each instance a hidden brand field (decision 0135).
 */
function sourceText(value: FieldValue, start: number, end: number): string {
  return end < 0 ? (value as string) : (value as Buffer).toString('utf8', start, end);
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
  deferred: DeferredValue | DeferredBytes,
  source: RequestRecordSource,
  index: number,
  attributes?: HeaderAttributes,
): DataRecord {
  const record = new DeferredRecord(deferred);
  attachRequestSource(record, source, index, attributes);
  return record;
}

/** Attribute name → value, as record header attributes are given and returned. */
export type HeaderAttributes = Readonly<Record<string, string>>;

/** What a {@link RecordHeader} starts from. */
export interface RecordHeaderInit {
  /**
   * Attributes shared by many records (the request attributes of one request). Pass the same frozen object to
   * every header of a request (see {@link RecordHeader.freezeAttributes}): a frozen object is shared, not copied;
   * an unfrozen one is copied and frozen for this header alone.
   */
  readonly baseAttributes?: HeaderAttributes;
  /** Attributes of this record alone (for example the ones a parser adds); they win over base attributes. */
  readonly attributes?: HeaderAttributes;
  /** The record id, e.g. `<requestId>::<index>`. */
  readonly sourceId?: string;
}

const EMPTY: HeaderAttributes = Object.freeze(Object.create(null) as Record<string, string>);

const hasOwn = (object: object, key: string): boolean => Object.prototype.hasOwnProperty.call(object, key);

/**
 * The header of one record: its id, its record header attributes, and, for an error record, the error that made
 * it one.
 *
 * A request produces about a hundred records that carry the same request attributes, so a header reads its
 * attributes from a shared, frozen base object and keeps its own changes in an overlay that is allocated on the
 * first change (copy-on-write). Changing or deleting an attribute of one header never affects another header,
 * even when they share the base. A header is not safe to share between records; {@link RecordHeader.clone} it.
 */
export class RecordHeader {
  /** The record id (engine `sourceId`), e.g. `<requestId>::<index>`; `''` when none was given. */
  sourceId: string;
  /** Error code of an error record, e.g. `ORIGIN_JSON_MALFORMED`. */
  errorCode: string | undefined;
  /**
   * Error message of an error record. By engine convention it is `"<CODE> - <description>"` (what
   * `OriginError.describe()` returns); the response envelope's `errorMessage` carries it verbatim.
   */
  errorMessage: string | undefined;
  /** Name of the stage that produced the error record. */
  errorStage: string | undefined;
  /** When the record became an error record, in epoch milliseconds. */
  errorTimestamp: number | undefined;

  #base: HeaderAttributes;
  // `null` marks a base attribute deleted from this header.
  #overlay: Map<string, string | null> | undefined;

  constructor(init: RecordHeaderInit = {}) {
    this.sourceId = init.sourceId ?? '';
    this.errorCode = undefined;
    this.errorMessage = undefined;
    this.errorStage = undefined;
    this.errorTimestamp = undefined;
    const base = init.baseAttributes;
    this.#base =
      base === undefined ? EMPTY : Object.isFrozen(base) ? base : RecordHeader.freezeAttributes(base);
    if (init.attributes !== undefined) {
      for (const name of Object.keys(init.attributes))
        this.setAttribute(name, init.attributes[name] as string);
    }
  }

  /**
   * A frozen copy of `attributes` with a null prototype, made once per request and passed as `baseAttributes`
   * to every header of that request, so that all of them share it.
   */
  static freezeAttributes(attributes: HeaderAttributes): HeaderAttributes {
    const copy = Object.create(null) as Record<string, string>;
    for (const name of Object.keys(attributes)) copy[name] = attributes[name] as string;
    return Object.freeze(copy);
  }

  /** True when the record is an error record: it carries an error code or an error message. */
  get isErrorRecord(): boolean {
    return this.errorCode !== undefined || this.errorMessage !== undefined;
  }

  /** The value of attribute `name`, or `undefined` when the record has none (the spec's `record:attribute`). */
  getAttribute(name: string): string | undefined {
    if (this.#overlay !== undefined) {
      const own = this.#overlay.get(name);
      if (own !== undefined) return own ?? undefined;
    }
    return hasOwn(this.#base, name) ? this.#base[name] : undefined;
  }

  /**
   * The value of attribute `name`, or `fallback` when the record has none (the spec's
   * `record:attributeOrDefault`). An attribute whose value is the empty string exists, so `''` is returned, as
   * the engine does.
   */
  getAttributeOrDefault(name: string, fallback: string): string {
    return this.getAttribute(name) ?? fallback;
  }

  /** True when the record has attribute `name` (possibly with the empty string as value). */
  hasAttribute(name: string): boolean {
    return this.getAttribute(name) !== undefined;
  }

  /** Sets attribute `name` on this header only; the shared base is never written. */
  setAttribute(name: string, value: string): void {
    if (typeof value !== 'string') {
      throw new TypeError(`Record header attribute '${name}' must be a string, not ${typeof value}.`);
    }
    (this.#overlay ??= new Map()).set(name, value);
  }

  /** Removes attribute `name` from this header only. Returns whether the header had it. */
  deleteAttribute(name: string): boolean {
    if (!this.hasAttribute(name)) return false;
    if (hasOwn(this.#base, name)) (this.#overlay ??= new Map()).set(name, null);
    else this.#overlay?.delete(name);
    return true;
  }

  /** Names of the attributes the record has: base attributes in their order, then the ones added to this header. */
  attributeNames(): string[] {
    const overlay = this.#overlay;
    const names = Object.keys(this.#base);
    if (overlay === undefined) return names;
    const kept = names.filter((name) => overlay.get(name) !== null);
    for (const [name, value] of overlay) {
      if (value !== null && !hasOwn(this.#base, name)) kept.push(name);
    }
    return kept;
  }

  /** A fresh plain object of every attribute (name → value); changing it does not change the header. */
  attributes(): Record<string, string> {
    const out: Record<string, string> = {};
    for (const name of this.attributeNames()) {
      const value = this.getAttribute(name) as string;
      // A plain assignment to '__proto__' would set the prototype instead of adding the attribute.
      if (name === '__proto__') {
        Object.defineProperty(out, name, { value, enumerable: true, writable: true, configurable: true });
      } else {
        out[name] = value;
      }
    }
    return out;
  }

  /** An independent copy: same id, error fields and attributes; the base stays shared, the overlay is copied. */
  clone(): RecordHeader {
    const copy = new RecordHeader({ baseAttributes: this.#base, sourceId: this.sourceId });
    if (this.#overlay !== undefined) copy.#overlay = new Map(this.#overlay);
    copy.errorCode = this.errorCode;
    copy.errorMessage = this.errorMessage;
    copy.errorStage = this.errorStage;
    copy.errorTimestamp = this.errorTimestamp;
    return copy;
  }
}

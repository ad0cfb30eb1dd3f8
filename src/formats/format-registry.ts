import { OriginError } from '../errors/origin-error';
import type { DataFormat } from './data-format';

/**
 * Maps format names to {@link DataFormat}s. The origin looks up `dataFormat.format` here, and the configuration
 * schema takes each registered format's options schema from here, so a host that registers its own format gets
 * validation and defaults for it without touching any central file.
 */
export class FormatRegistry {
  readonly #formats = new Map<string, DataFormat>();

  constructor(formats: Iterable<DataFormat> = []) {
    for (const format of formats) this.register(format);
  }

  /**
   * Adds a format. Throws `ORIGIN_FORMAT_DUPLICATE` when the name is taken, so that a host never replaces a
   * built-in format by accident; start from `new FormatRegistry()` to build a registry without built-ins.
   */
  register<C>(format: DataFormat<C>): this {
    if (this.#formats.has(format.name))
      throw new OriginError('ORIGIN_FORMAT_DUPLICATE', { format: format.name });
    // The registry holds formats of every config type; each format's config is checked against its own schema
    // before its parser is made, which is what makes this widening safe.
    this.#formats.set(format.name, format as DataFormat);
    return this;
  }

  /** Whether a format is registered under `name`. */
  has(name: string): boolean {
    return this.#formats.has(name);
  }

  /** The format called `name`; throws `ORIGIN_FORMAT_UNKNOWN` when there is none. */
  get(name: string): DataFormat {
    const format = this.#formats.get(name);
    if (!format) {
      throw new OriginError('ORIGIN_FORMAT_UNKNOWN', {
        format: name,
        known: this.names().join(', ') || 'none',
      });
    }
    return format;
  }

  /** Registered names, in registration order. */
  names(): string[] {
    return [...this.#formats.keys()];
  }

  /** Registered formats, in registration order. */
  formats(): DataFormat[] {
    return [...this.#formats.values()];
  }

  /** A new registry holding the same formats, for a host that wants the built-ins plus its own. */
  clone(): FormatRegistry {
    return new FormatRegistry(this.#formats.values());
  }
}

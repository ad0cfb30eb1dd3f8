/**
 * Record header attribute names that a request header may not take, because the origin or a format writes an
 * attribute of that name (decision 0046). A pipeline can then trust `avroSchema`, `filePathInsideArchive`,
 * `emptyPayloadRecord`, … wherever it finds them: the client did not send them.
 *
 * Names are compared case-insensitively (header names are case-insensitive, and a header `AvroSchema` would
 * fool a reader that compares loosely). A name ending in `*` stands for every name it starts: `xmlns:*` covers
 * `xmlns:soap`.
 */
export class ReservedAttributeNames {
  /** The names as declared, in declaration order, duplicates removed. */
  readonly names: readonly string[];
  readonly #exact: ReadonlySet<string>;
  readonly #prefixes: readonly string[];

  constructor(names: Iterable<string>) {
    const declared = [...new Set(names)];
    this.names = Object.freeze(declared);
    const lower = declared.map((name) => name.toLowerCase());
    this.#exact = new Set(lower.filter((name) => !name.endsWith('*')));
    this.#prefixes = Object.freeze(
      lower.filter((name) => name.endsWith('*')).map((name) => name.slice(0, -1)),
    );
  }

  /** Whether a header of this name (already lower-cased) would take a reserved attribute name. */
  has(lowerCaseName: string): boolean {
    if (this.#exact.has(lowerCaseName)) return true;
    for (const prefix of this.#prefixes) if (lowerCaseName.startsWith(prefix)) return true;
    return false;
  }
}

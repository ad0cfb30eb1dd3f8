/**
 * The bytes a binary parser holds between pushes until it has enough for its next unit (an Avro block, a
 * protobuf message): the chunks as they came, how many bytes the next read needs, and where in the whole input
 * the first held byte sits (for the byte offsets of failures).
 */
export class PendingBytes {
  #chunks: Uint8Array[] = [];
  #length = 0;
  /** Bytes to hold before the next read is worth trying; reading earlier could not finish. */
  need: number;
  /** Offset in the whole input of the first held byte. */
  base = 0;

  constructor(need: number) {
    this.need = need;
  }

  /** Bytes held. */
  get length(): number {
    return this.#length;
  }

  /** True once `need` bytes are held. */
  get ready(): boolean {
    return this.#length >= this.need;
  }

  /** Holds a copy of `bytes`: the caller may reuse its buffer once its push returns. */
  append(bytes: Uint8Array): void {
    this.#chunks.push(new Uint8Array(bytes));
    this.#length += bytes.length;
  }

  /** The held bytes as one buffer (the held chunk itself when there is only one). They stay held. */
  take(): Uint8Array {
    if (this.#chunks.length === 1 && this.#chunks[0]) return this.#chunks[0];
    const buf = new Uint8Array(this.#length);
    let at = 0;
    for (const chunk of this.#chunks) {
      buf.set(chunk, at);
      at += chunk.length;
    }
    this.#chunks = [buf];
    return buf;
  }

  /**
   * After a read of `buf` (what {@link take} gave) up to `pos`: holds only `buf` from `pos` on, and the next read
   * waits until `need` bytes (counted from `pos`) are held.
   */
  keep(buf: Uint8Array, pos: number, need: number): void {
    const rest = buf.subarray(pos);
    this.#chunks = rest.length > 0 ? [rest] : [];
    this.#length = rest.length;
    this.base += pos;
    this.need = need;
  }

  /** Lets go of every held byte. */
  clear(): void {
    this.#chunks = [];
    this.#length = 0;
  }
}

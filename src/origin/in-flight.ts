/**
 * Counts the requests an origin is handling, so that `close()` can wait for them. A counter rather than a set of
 * the requests' promises: keeping a set cost a promise reaction per request, for a wait that happens once.
 */
export class InFlight {
  #count = 0;
  #onDrained: (() => void) | undefined;
  #drained: Promise<void> | undefined;

  /** Requests being handled now. */
  get count(): number {
    return this.#count;
  }

  /** A request arrived. */
  enter(): void {
    this.#count++;
  }

  /** A request was answered (or given up). */
  leave(): void {
    this.#count--;
    if (this.#count === 0 && this.#onDrained) {
      this.#onDrained();
      this.#onDrained = undefined;
      this.#drained = undefined;
    }
  }

  /** Resolves once no request is being handled (at once when none is). */
  drained(): Promise<void> {
    if (this.#count === 0) return Promise.resolve();
    this.#drained ??= new Promise<void>((resolve) => {
      this.#onDrained = resolve;
    });
    return this.#drained;
  }
}

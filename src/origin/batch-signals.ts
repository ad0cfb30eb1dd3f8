import { getEventListeners } from 'node:events';

/**
 * The abort controllers of batches, reused. Making an `AbortSignal` costs about 3 µs on Node 20 (it is built to
 * be transferable between threads), a noticeable share of a small request, so a controller whose batch ended
 * without an abort and whose signal kept no listener goes back to the pool for a later batch. A signal that
 * aborted, or that a stage still listens to, is never reused.
 *
 * Consequence for stages: the signal a batch gets means "the origin gave up on this batch" only until `run`
 * settles; a stage must not keep using it after the batch is done (the contract of `RunnerPool.run` says so).
 *
 * Re-measured 2026-11-25 (`npm run bench`, 1-record echo, 11 paired rounds against a build that makes a new
 * controller per batch, on a loaded 2-core machine): the pool's build used 0.88x (0.70–1.07) of the server CPU
 * per request, so it stays.
 */
export class BatchSignals {
  readonly #free: AbortController[] = [];
  readonly #capacity: number;

  /** @param capacity - how many idle controllers to keep (the origin keeps one per request slot). */
  constructor(capacity: number) {
    this.#capacity = capacity;
  }

  /** A controller whose signal has not aborted and has no listener. */
  take(): AbortController {
    return this.#free.pop() ?? new AbortController();
  }

  /** Gives back a controller once its batch is done; it is kept only when nothing can tell it was used. */
  give(controller: AbortController): void {
    const { signal } = controller;
    if (signal.aborted || this.#free.length >= this.#capacity) return;
    if (getEventListeners(signal, 'abort').length > 0 || signal.onabort !== null) return;
    this.#free.push(controller);
  }
}

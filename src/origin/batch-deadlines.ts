import { OriginError } from '../errors/origin-error';

/** Gives up on a running batch: aborts its signal and answers its request with `reason`. */
export type GiveUp = (reason: OriginError) => void;

/** One running batch's clock, as {@link BatchDeadlines.add} returns it; hand it back to `delete`. */
export interface BatchClock {
  readonly giveUp: GiveUp;
  readonly deadline: number;
  /** Neighbours in the list of running batches, oldest first; `undefined` at the ends and once removed. */
  previous: BatchClock | undefined;
  next: BatchClock | undefined;
  running: boolean;
}

/**
 * The running batches of an origin and their response deadlines (`http.responseTimeoutMs`).
 *
 * One interval timer sweeps all deadlines instead of one timer per batch: setting and clearing a timer costs
 * more than the rest of the bookkeeping of a small request. A batch is therefore given up between
 * `timeoutMs` and `timeoutMs` plus one sweep interval (a tenth of the timeout, between 5 ms and 1 s) after it
 * started. The timer does not keep the process alive.
 *
 * The clocks form a doubly linked list in start order: adding and removing one touches two neighbours and no
 * hash table (a `Map` keyed by batch cost more per request than everything else here), and since every batch
 * has the same timeout, start order is deadline order, so a sweep stops at the first clock still running.
 */
export class BatchDeadlines {
  readonly #timeoutMs: number;
  readonly #sweepMs: number;
  #oldest: BatchClock | undefined;
  #newest: BatchClock | undefined;
  #size = 0;
  #timer: NodeJS.Timeout | undefined;
  #abandonedWith: OriginError | undefined;

  constructor(timeoutMs: number) {
    this.#timeoutMs = timeoutMs;
    this.#sweepMs = Math.min(1000, Math.max(5, Math.floor(timeoutMs / 10)));
  }

  /** Batches running now. */
  get size(): number {
    return this.#size;
  }

  /** The reason of {@link BatchDeadlines.giveUpAll} once it was called (the origin was destroyed), else undefined. */
  get abandonedWith(): OriginError | undefined {
    return this.#abandonedWith;
  }

  /** Starts the clock of a batch; `giveUp` is called with `ORIGIN_PIPELINE_TIMEOUT` when it runs out. */
  add(giveUp: GiveUp): BatchClock {
    const clock: BatchClock = {
      giveUp,
      deadline: performance.now() + this.#timeoutMs,
      previous: this.#newest,
      next: undefined,
      running: true,
    };
    if (this.#newest === undefined) this.#oldest = clock;
    else this.#newest.next = clock;
    this.#newest = clock;
    this.#size++;
    if (this.#timer === undefined) {
      this.#timer = setInterval(() => this.#sweep(), this.#sweepMs);
      this.#timer.unref();
    }
    return clock;
  }

  /** The batch is done (or was given up); its clock stops. Deleting a stopped clock does nothing. */
  delete(clock: BatchClock): void {
    if (!clock.running) return;
    clock.running = false;
    const { previous, next } = clock;
    if (previous === undefined) this.#oldest = next;
    else previous.next = next;
    if (next === undefined) this.#newest = previous;
    else next.previous = previous;
    clock.previous = undefined;
    clock.next = undefined;
    this.#size--;
  }

  /**
   * Gives up on every running batch with `reason` (the origin is being destroyed) and stops the timer; from then
   * on {@link BatchDeadlines.abandonedWith} is `reason`, so that the request path starts no other batch.
   */
  giveUpAll(reason: OriginError): void {
    this.#abandonedWith ??= reason;
    for (let clock = this.#oldest; clock !== undefined; clock = this.#oldest) {
      this.delete(clock);
      clock.giveUp(reason);
    }
    this.stop();
  }

  /** Stops the sweep timer; a later `add` starts it again. */
  stop(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }

  #sweep(): void {
    const now = performance.now();
    for (let clock = this.#oldest; clock !== undefined && clock.deadline <= now; clock = this.#oldest) {
      this.delete(clock);
      clock.giveUp(new OriginError('ORIGIN_PIPELINE_TIMEOUT', { timeoutMs: this.#timeoutMs }));
    }
  }
}

import { OriginError } from '../errors/origin-error';
import { LinkedList, type Linked } from '../http/linked-list';

/** Gives up on a running batch: aborts its signal and answers its request with `reason`. */
export type GiveUp = (reason: OriginError) => void;

/** One running batch's clock, as {@link BatchDeadlines.add} returns it; hand it back to `delete`. */
export interface BatchClock extends Linked<BatchClock> {
  readonly giveUp: GiveUp;
  readonly deadline: number;
}

/**
 * The running batches of an origin and their response deadlines (`http.responseTimeoutMs`).
 *
 * One interval timer sweeps all deadlines instead of one timer per batch: setting and clearing a timer costs
 * more than the rest of the bookkeeping of a small request. A batch is therefore given up between
 * `timeoutMs` and `timeoutMs` plus one sweep interval (a tenth of the timeout, between 5 ms and 1 s) after it
 * started. The timer does not keep the process alive.
 *
 * The clocks form a {@link LinkedList} in start order: adding and removing one touches two neighbours and no
 * hash table (a `Map` keyed by batch cost more per request than everything else here), and since every batch
 * has the same timeout, start order is deadline order, so a sweep stops at the first clock still running.
 */
export class BatchDeadlines {
  readonly #timeoutMs: number;
  readonly #sweepMs: number;
  /** The running batches' clocks, oldest first. */
  readonly #clocks = new LinkedList<BatchClock>();
  #timer: NodeJS.Timeout | undefined;
  #abandonedWith: OriginError | undefined;

  constructor(timeoutMs: number) {
    this.#timeoutMs = timeoutMs;
    this.#sweepMs = Math.min(1000, Math.max(5, Math.floor(timeoutMs / 10)));
  }

  /** Batches running now. */
  get size(): number {
    return this.#clocks.size;
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
      prev: undefined,
      next: undefined,
      listed: false,
    };
    this.#clocks.append(clock);
    if (this.#timer === undefined) {
      this.#timer = setInterval(() => this.#sweep(), this.#sweepMs);
      this.#timer.unref();
    }
    return clock;
  }

  /** The batch is done (or was given up); its clock stops. Deleting a stopped clock does nothing. */
  delete(clock: BatchClock): void {
    this.#clocks.remove(clock);
  }

  /**
   * Gives up on every running batch with `reason` (the origin is being destroyed) and stops the timer; from then
   * on {@link BatchDeadlines.abandonedWith} is `reason`, so that the request path starts no other batch.
   */
  giveUpAll(reason: OriginError): void {
    this.#abandonedWith ??= reason;
    // Each clock leaves the list before its batch is told, and the list is read afresh after each: giving up on one
    // batch may end others, which delete their clocks.
    for (let clock = this.#clocks.shift(); clock !== undefined; clock = this.#clocks.shift()) {
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
    for (
      let clock = this.#clocks.first;
      clock !== undefined && clock.deadline <= now;
      clock = this.#clocks.first
    ) {
      this.delete(clock);
      clock.giveUp(new OriginError('ORIGIN_PIPELINE_TIMEOUT', { timeoutMs: this.#timeoutMs }));
    }
  }
}

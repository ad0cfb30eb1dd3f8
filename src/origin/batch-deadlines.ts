import { OriginError } from '../errors/origin-error';

/** Gives up on a running batch: aborts its signal and answers its request with `reason`. */
export type GiveUp = (reason: OriginError) => void;

/**
 * The running batches of an origin and their response deadlines (`http.responseTimeoutMs`).
 *
 * One interval timer sweeps all deadlines instead of one timer per batch: setting and clearing a timer costs
 * more than the rest of the bookkeeping of a small request. A batch is therefore given up between
 * `timeoutMs` and `timeoutMs` plus one sweep interval (a tenth of the timeout, between 5 ms and 1 s) after it
 * started. The timer does not keep the process alive.
 */
export class BatchDeadlines {
  readonly #running = new Map<GiveUp, number>();
  readonly #timeoutMs: number;
  readonly #sweepMs: number;
  #timer: NodeJS.Timeout | undefined;

  constructor(timeoutMs: number) {
    this.#timeoutMs = timeoutMs;
    this.#sweepMs = Math.min(1000, Math.max(5, Math.floor(timeoutMs / 10)));
  }

  /** Batches running now. */
  get size(): number {
    return this.#running.size;
  }

  /** Starts the clock of a batch; `giveUp` is called with `ORIGIN_PIPELINE_TIMEOUT` when it runs out. */
  add(giveUp: GiveUp): void {
    this.#running.set(giveUp, performance.now() + this.#timeoutMs);
    if (this.#timer === undefined) {
      this.#timer = setInterval(() => this.#sweep(), this.#sweepMs);
      this.#timer.unref();
    }
  }

  /** The batch is done (or was given up); its clock stops. */
  delete(giveUp: GiveUp): void {
    this.#running.delete(giveUp);
  }

  /** Gives up on every running batch with `reason` (the origin is being destroyed) and stops the timer. */
  giveUpAll(reason: OriginError): void {
    for (const giveUp of [...this.#running.keys()]) giveUp(reason);
    this.#running.clear();
    this.stop();
  }

  /** Stops the sweep timer; a later `add` starts it again. */
  stop(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }

  #sweep(): void {
    const now = performance.now();
    for (const [giveUp, deadline] of this.#running) {
      if (deadline > now) continue;
      this.#running.delete(giveUp);
      giveUp(new OriginError('ORIGIN_PIPELINE_TIMEOUT', { timeoutMs: this.#timeoutMs }));
    }
  }
}

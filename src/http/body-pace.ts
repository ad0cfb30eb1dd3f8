import { OriginError } from '../errors/origin-error';

/** How slowly a body may arrive (decision 0041). */
export interface BodyPaceOptions {
  /** The time a body may take beyond what its bytes earn; a positive number of milliseconds. */
  readonly timeoutMs: number;
  /** Each this many bytes received earn one more second; 0: `timeoutMs` bounds the whole body. */
  readonly minBytesPerSecond: number;
}

/** A body read the watch keeps an eye on: when it started and how many raw bytes it has received. */
export interface PacedRead {
  readonly startedAt: number;
  readonly receivedBytes: number;
  /** Called once, from the watch's timer, when the body fell behind; the read must stop with `error`. */
  expire(error: OriginError): void;
}

/**
 * Watches the body reads of an origin so that a client cannot hold a request slot by trickling its body (issue
 * 12, Found 5): a body that started at `t0` and has received `n` bytes must be complete by
 * `t0 + timeoutMs + n / minBytesPerSecond` seconds, Apache's mod_reqtimeout rule (`body=20,MinRate=500`). A read
 * past its deadline is told to expire with `ORIGIN_HTTP_BODY_TIMEOUT` (408).
 *
 * One timer for all reads, ticking only while some read is watched, rather than a timer per request: most bodies
 * are read in the tick they arrive in, and a setTimeout and clearTimeout each would cost them more than the
 * set insertion and deletion. A read is seen late by at most one tick (a quarter of `timeoutMs`, at most 1 s).
 */
export class BodyPaceWatch {
  readonly #timeoutMs: number;
  readonly #msPerByte: number;
  readonly #tickMs: number;
  readonly #reads = new Set<PacedRead>();
  #timer: NodeJS.Timeout | undefined;

  constructor(options: BodyPaceOptions) {
    this.#timeoutMs = options.timeoutMs;
    this.#msPerByte = options.minBytesPerSecond > 0 ? 1000 / options.minBytesPerSecond : 0;
    this.#tickMs = Math.max(10, Math.min(1000, Math.floor(options.timeoutMs / 4)));
  }

  /** Starts watching `read` until {@link BodyPaceWatch.unwatch} or its expiry. */
  watch(read: PacedRead): void {
    this.#reads.add(read);
    if (this.#timer === undefined) {
      this.#timer = setInterval(() => this.#check(), this.#tickMs);
      // Watching a body must not keep the process alive on its own.
      this.#timer.unref();
    }
  }

  unwatch(read: PacedRead): void {
    // The timer is stopped by its next tick when nothing is left to watch: stopping it here would cost requests
    // that come one after the other a setInterval and a clearInterval each.
    this.#reads.delete(read);
  }

  /** The reads being watched now. */
  get watching(): number {
    return this.#reads.size;
  }

  #check(): void {
    if (this.#reads.size === 0) {
      clearInterval(this.#timer);
      this.#timer = undefined;
      return;
    }
    const now = performance.now();
    for (const read of this.#reads) {
      const elapsedMs = now - read.startedAt;
      if (elapsedMs <= this.#timeoutMs + read.receivedBytes * this.#msPerByte) continue;
      this.unwatch(read);
      read.expire(
        new OriginError('ORIGIN_HTTP_BODY_TIMEOUT', {
          bytes: read.receivedBytes,
          elapsedMs: Math.round(elapsedMs),
          timeoutMs: this.#timeoutMs,
          minBytesPerSecond: this.#msPerByte > 0 ? Math.round(1000 / this.#msPerByte) : 0,
        }),
      );
    }
  }
}

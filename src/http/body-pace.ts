import { OriginError } from '../errors/origin-error';
import { LinkedList, type Linked } from './linked-list';

/** How slowly a body may arrive (decision 0041). */
export interface BodyPaceOptions {
  /** The time a body may take beyond what its bytes earn; a positive number of milliseconds. */
  readonly timeoutMs: number;
  /** Each this many bytes received earn one more second; 0: `timeoutMs` bounds the whole body. */
  readonly minBytesPerSecond: number;
}

/**
 * A body read the watch keeps an eye on: how many raw bytes it has received, and what to do when it fell behind.
 * The watch owns the other fields: when the read began as its clock tells (set by {@link BodyPaceWatch.watch}) and
 * the read's place in the list of watched reads.
 */
export abstract class PacedRead implements Linked<PacedRead> {
  /** The watch's clock when the read began to be watched (ms, `performance.now()` of the watch's last tick). */
  watchedSince = 0;
  /** The read's links in the watch's list (see {@link LinkedList}); `listed` while watched. */
  prev: PacedRead | undefined = undefined;
  next: PacedRead | undefined = undefined;
  listed = false;

  abstract readonly receivedBytes: number;
  /** Called once, from the watch's timer, when the body fell behind; the read must stop with `error`. */
  abstract expire(error: OriginError): void;
}

/**
 * Watches the body reads of an origin so that a client cannot hold a request slot by trickling its body (issue
 * 12, Found 5): a body that started at `t0` and has received `n` bytes must be complete by
 * `t0 + timeoutMs + n / minBytesPerSecond` seconds, Apache's mod_reqtimeout rule (`body=20,MinRate=500`). A read
 * past its deadline is told to expire with `ORIGIN_HTTP_BODY_TIMEOUT` (408).
 *
 * One timer for all reads, ticking only while some read is watched, rather than a timer per request: most bodies
 * are read in the tick they arrive in. The watched reads form a list linked through the reads themselves, and a
 * read's start is the time of the watch's last tick rather than a clock read of its own: watching and unwatching
 * the body of a small request costs a few field writes, where a `Set` insertion and deletion (hashing a new object
 * each time) and a clock read were a measurable share of it. The tick is a quarter of `timeoutMs` (10 ms to 1 s);
 * a read is never expired early, and late by at most two ticks.
 */
export class BodyPaceWatch {
  readonly #timeoutMs: number;
  readonly #msPerByte: number;
  readonly #tickMs: number;
  readonly #reads = new LinkedList<PacedRead>();
  /** `performance.now()` at the last tick (or when the timer started): at most one tick behind the time. */
  #clock = 0;
  #timer: NodeJS.Timeout | undefined;

  constructor(options: BodyPaceOptions) {
    this.#timeoutMs = options.timeoutMs;
    this.#msPerByte = options.minBytesPerSecond > 0 ? 1000 / options.minBytesPerSecond : 0;
    this.#tickMs = Math.max(10, Math.min(1000, Math.floor(options.timeoutMs / 4)));
  }

  /** Starts watching `read` until {@link BodyPaceWatch.unwatch} or its expiry. */
  watch(read: PacedRead): void {
    if (read.listed) return;
    if (this.#timer === undefined) {
      this.#clock = performance.now();
      this.#timer = setInterval(() => this.#check(), this.#tickMs);
      // Watching a body must not keep the process alive on its own.
      this.#timer.unref();
    }
    read.watchedSince = this.#clock;
    this.#reads.append(read);
  }

  unwatch(read: PacedRead): void {
    // The timer is stopped by its next tick when nothing is left to watch: stopping it here would cost requests
    // that come one after the other a setInterval and a clearInterval each.
    this.#reads.remove(read);
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
    const now = (this.#clock = performance.now());
    // A read's start is up to one tick early (the clock of the tick before it began): the tick is allowed for, so
    // that no read is expired before its time.
    const allowedMs = this.#timeoutMs + this.#tickMs;
    // Unwatched first, told after the walk: what an expiry does (ending its request) cannot touch the list mid-walk.
    const expired: { read: PacedRead; error: OriginError }[] = [];
    for (let read = this.#reads.first; read !== undefined; read = read.next) {
      const elapsedMs = now - read.watchedSince;
      if (elapsedMs <= allowedMs + read.receivedBytes * this.#msPerByte) continue;
      const error = new OriginError('ORIGIN_HTTP_BODY_TIMEOUT', {
        bytes: read.receivedBytes,
        elapsedMs: Math.round(elapsedMs),
        timeoutMs: this.#timeoutMs,
        minBytesPerSecond: this.#msPerByte > 0 ? Math.round(1000 / this.#msPerByte) : 0,
      });
      expired.push({ read, error });
    }
    for (const { read } of expired) this.unwatch(read);
    for (const { read, error } of expired) read.expire(error);
  }
}

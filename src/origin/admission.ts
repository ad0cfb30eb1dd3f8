import { OriginError } from '../errors/origin-error';

/** Gives back a slot taken with {@link Admission.acquire}. Calling it more than once has no further effect. */
export type ReleaseSlot = () => void;

/** A request waiting for a slot (see {@link Admission.wait}): told exactly once, one way or the other. */
export interface SlotWaiter {
  /** The slot is held now; give it back with `release`. */
  granted(release: ReleaseSlot): void;
  /** No slot: the queue was full, the wait ran out, or the origin is closing (a 503 answer). */
  refused(error: OriginError): void;
}

/**
 * Admission control: at most `slots` requests hold a slot (one slot = one batch being read, parsed and run);
 * up to `queueSize` more wait in FIFO order for at most `queueTimeoutMs`. A request that finds the queue full is
 * refused at once with `ORIGIN_HTTP_OVERLOADED`; one whose wait runs out gets `ORIGIN_HTTP_QUEUE_TIMEOUT`. Both
 * are 503 answers. Cheap rejections (method, application ID, encoding) happen before admission, so a client that
 * would be refused anyway never holds a slot or a queue place.
 */
export class Admission {
  readonly #slots: number;
  readonly #queueSize: number;
  readonly #queueTimeoutMs: number;
  // The queue, oldest first: each waiter and, at the same index, `performance.now()` when its wait runs out. Two
  // arrays rather than an entry object per queued request.
  readonly #waiters: SlotWaiter[] = [];
  readonly #deadlines: number[] = [];
  #inUse = 0;
  // One timer for the whole queue, armed for the oldest waiter's deadline: every waiter waits as long, so the
  // queue is in deadline order. A timer per waiter cost a setTimeout and a clearTimeout per queued request.
  #timer: NodeJS.Timeout | undefined;

  constructor(options: { slots: number; queueSize: number; queueTimeoutMs: number }) {
    this.#slots = options.slots;
    this.#queueSize = options.queueSize;
    this.#queueTimeoutMs = options.queueTimeoutMs;
  }

  /** Slots held right now. */
  get inUse(): number {
    return this.#inUse;
  }

  /** Requests waiting for a slot right now. */
  get waiting(): number {
    return this.#waiters.length;
  }

  /** Every slot is held and the queue is full: a request arriving now would be refused (readiness, 0081). */
  get full(): boolean {
    return this.#inUse >= this.#slots && this.#waiters.length >= this.#queueSize;
  }

  /**
   * Resolves with a release function once a slot is held; rejects with an {@link OriginError} (503) when the queue
   * is full or the wait passes `queueTimeoutMs`. The slot is held until the release function is called. The
   * promise form of {@link Admission.wait}.
   */
  acquire(): Promise<ReleaseSlot> {
    const free = this.tryAcquire();
    if (free) return Promise.resolve(free);
    return new Promise<ReleaseSlot>((granted, refused) => this.wait({ granted, refused }));
  }

  /**
   * Queues `waiter` for the next free slot; it is told `granted` once it holds one, or `refused` (503) at once
   * when the queue is full, or when the wait passes `queueTimeoutMs`. Never calls `waiter` synchronously except
   * to refuse it at once. Call {@link Admission.tryAcquire} first: a free slot is not looked for here.
   */
  wait(waiter: SlotWaiter): void {
    if (this.#waiters.length >= this.#queueSize) {
      waiter.refused(
        new OriginError('ORIGIN_HTTP_OVERLOADED', { slots: this.#slots, queueSize: this.#queueSize }),
      );
      return;
    }
    this.#waiters.push(waiter);
    this.#deadlines.push(performance.now() + this.#queueTimeoutMs);
    this.#timer ??= this.#arm(this.#queueTimeoutMs);
  }

  /** Refuses the waiters whose wait ran out, then re-arms the timer for the oldest one left. */
  #expire(): void {
    this.#timer = undefined;
    const now = performance.now();
    while (this.#deadlines.length > 0 && this.#deadlines[0]! <= now) {
      this.#deadlines.shift();
      const expired = this.#waiters.shift()!;
      expired.refused(new OriginError('ORIGIN_HTTP_QUEUE_TIMEOUT', { timeoutMs: this.#queueTimeoutMs }));
    }
    const next = this.#deadlines[0];
    if (next !== undefined) this.#timer = this.#arm(Math.ceil(next - now));
  }

  // Unreferenced: it stays armed after the queue empties (disarming would cost a clearTimeout whenever the queue
  // runs dry), and must not keep the process alive for nobody; a waiting request has a socket that does.
  #arm(ms: number): NodeJS.Timeout {
    return setTimeout(() => this.#expire(), ms).unref();
  }

  /**
   * A slot at once when one is free (and nobody waits for it), else `undefined`. The request path uses it to
   * skip a promise on the common, uncontended request.
   */
  tryAcquire(): ReleaseSlot | undefined {
    if (this.#inUse >= this.#slots) return undefined;
    this.#inUse++;
    return this.#releaser();
  }

  /** Refuses every waiting request with `error` (used by `destroy()`). Held slots are not affected. */
  refuseWaiting(error: OriginError): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#deadlines.length = 0;
    for (const waiter of this.#waiters.splice(0)) waiter.refused(error);
  }

  #releaser(): ReleaseSlot {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.#waiters.shift();
      if (next) {
        this.#deadlines.shift();
        // The slot passes straight to the next waiter, so a burst cannot overtake the queue. Told from a
        // microtask, not from inside the release: the releasing request is still finishing its answer.
        const release = this.#releaser();
        queueMicrotask(() => next.granted(release));
      } else {
        this.#inUse--;
      }
    };
  }
}

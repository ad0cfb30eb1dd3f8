import { OriginError } from '../errors/origin-error';

/** Gives back a slot taken with {@link Admission.acquire}. Calling it more than once has no further effect. */
export type ReleaseSlot = () => void;

interface Waiter {
  grant: (release: ReleaseSlot) => void;
  refuse: (error: OriginError) => void;
  /** `performance.now()` when its wait runs out. */
  deadline: number;
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
  readonly #waiters: Waiter[] = [];
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

  /**
   * Resolves with a release function once a slot is held; rejects with an {@link OriginError} (503) when the queue
   * is full or the wait passes `queueTimeoutMs`. The slot is held until the release function is called.
   */
  acquire(): Promise<ReleaseSlot> {
    const free = this.tryAcquire();
    if (free) return Promise.resolve(free);
    if (this.#waiters.length >= this.#queueSize) {
      return Promise.reject(
        new OriginError('ORIGIN_HTTP_OVERLOADED', { slots: this.#slots, queueSize: this.#queueSize }),
      );
    }
    return new Promise<ReleaseSlot>((grant, refuse) => {
      this.#waiters.push({ grant, refuse, deadline: performance.now() + this.#queueTimeoutMs });
      this.#timer ??= this.#arm(this.#queueTimeoutMs);
    });
  }

  /** Refuses the waiters whose wait ran out, then re-arms the timer for the oldest one left. */
  #expire(): void {
    this.#timer = undefined;
    const now = performance.now();
    let head = this.#waiters[0];
    while (head !== undefined && head.deadline <= now) {
      this.#waiters.shift();
      head.refuse(new OriginError('ORIGIN_HTTP_QUEUE_TIMEOUT', { timeoutMs: this.#queueTimeoutMs }));
      head = this.#waiters[0];
    }
    if (head !== undefined) this.#timer = this.#arm(Math.ceil(head.deadline - now));
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
    for (const waiter of this.#waiters.splice(0)) waiter.refuse(error);
  }

  #releaser(): ReleaseSlot {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.#waiters.shift();
      if (next) {
        // The slot passes straight to the next waiter, so a burst cannot overtake the queue.
        next.grant(this.#releaser());
      } else {
        this.#inUse--;
      }
    };
  }
}

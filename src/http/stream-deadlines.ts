import type { Http2Stream } from 'node:http2';

/** The longest a deadline may pass unnoticed, in milliseconds. */
const MAX_PERIOD_MS = 1000;
/** The shortest period of the check, in milliseconds. */
const MIN_PERIOD_MS = 10;

/**
 * Deadlines of the HTTP/2 streams of one port, all looked at by one timer, instead of a timer of each stream's
 * own (`stream.setTimeout`, which binds a function, starts a timer and adds a listener per call, and is called
 * again to lift it: a few percent of the server's CPU time on a small request, measured). A deadline is noticed
 * within a quarter of its timeout (at most {@link MAX_PERIOD_MS}) after it passed; the timer runs only while a
 * deadline is set, and never keeps the process alive.
 */
export class StreamDeadlines {
  readonly #due = new Map<Http2Stream, Deadline>();
  readonly #expire: (stream: Http2Stream, timeoutMs: number) => void;
  #periodMs = MAX_PERIOD_MS;
  #timer: NodeJS.Timeout | undefined;

  /** `expire` is called with a stream whose deadline passed (and the timeout it was set with), once. */
  constructor(expire: (stream: Http2Stream, timeoutMs: number) => void) {
    this.#expire = expire;
  }

  /** Gives `stream` a deadline `timeoutMs` from now, in place of the one it had. */
  set(stream: Http2Stream, timeoutMs: number): void {
    this.#due.set(stream, { at: performance.now() + timeoutMs, timeoutMs });
    const periodMs = Math.max(MIN_PERIOD_MS, Math.min(MAX_PERIOD_MS, Math.floor(timeoutMs / 4)));
    if (this.#timer !== undefined && periodMs >= this.#periodMs) return;
    this.#periodMs = periodMs;
    clearInterval(this.#timer);
    this.#timer = setInterval(() => this.#check(), periodMs).unref();
  }

  /** Takes `stream`'s deadline away (nothing if it had none). */
  clear(stream: Http2Stream): void {
    this.#due.delete(stream);
  }

  /** Takes every deadline away and stops the timer. */
  clearAll(): void {
    this.#due.clear();
    this.#stop();
  }

  #check(): void {
    const now = performance.now();
    for (const [stream, deadline] of this.#due) {
      if (deadline.at > now) continue;
      this.#due.delete(stream);
      this.#expire(stream, deadline.timeoutMs);
    }
    if (this.#due.size === 0) this.#stop();
  }

  #stop(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
    this.#periodMs = MAX_PERIOD_MS;
  }
}

interface Deadline {
  /** `performance.now()` when it passes. */
  readonly at: number;
  readonly timeoutMs: number;
}

import type { Http2Stream } from 'node:http2';
import { LinkedList, type Linked } from './linked-list';

/** The longest a deadline may pass unnoticed, in milliseconds. */
const MAX_PERIOD_MS = 1000;
/** The shortest period of the check, in milliseconds. */
const MIN_PERIOD_MS = 10;

/**
 * One deadline of one stream (or session): the place it takes in a {@link StreamDeadlines} list while set. A
 * stream has one of these per kind of deadline (its request, its answer), made with the stream and kept by whoever
 * sets and clears it; each is used with one `StreamDeadlines` only.
 */
export class Deadline<T extends object = Http2Stream> implements Linked<Deadline<T>> {
  readonly stream: T;
  /** `performance.now()` when it passes; meaningful while listed. */
  at = 0;
  timeoutMs = 0;
  listed = false;
  prev: Deadline<T> | undefined = undefined;
  next: Deadline<T> | undefined = undefined;

  constructor(stream: T) {
    this.stream = stream;
  }
}

/**
 * Deadlines of the HTTP/2 streams of one port (or of its sessions: `T`), all looked at by one timer, instead of a timer of each stream's
 * own (`stream.setTimeout`, which binds a function, starts a timer and adds a listener per call, and is called
 * again to lift it: a few percent of the server's CPU time on a small request, measured). A deadline is noticed
 * within a quarter of its timeout (at most {@link MAX_PERIOD_MS}) after it passed; the timer runs only while a
 * deadline is set, and never keeps the process alive.
 *
 * The deadlines are a {@link LinkedList} ordered by when they pass, linked through the {@link Deadline}s, not a `Map`
 * keyed by stream (decision 0130). A port's map lives long, so its hash table ends up in the old generation; from
 * then on V8 makes each of its rehashed tables there too, and a table it replaced still holds the streams that were
 * in it. Those dead tables kept every stream that was open at a rehash, and all the stream's request, alive
 * through the young generation's collections into the old one: 2.5 MB promoted per scavenge, scavenges eight
 * times as long, a third more CPU per HTTP/2 request (measured, Node 20). A deadline taken out of the list is
 * unlinked both ways, so nothing the list dropped points at anything younger.
 */
export class StreamDeadlines<T extends object = Http2Stream> {
  readonly #list = new LinkedList<Deadline<T>>();
  readonly #expire: (stream: T, timeoutMs: number) => void;
  #periodMs = MAX_PERIOD_MS;
  #timer: NodeJS.Timeout | undefined;

  /** `expire` is called with a stream whose deadline passed (and the timeout it was set with), once. */
  constructor(expire: (stream: T, timeoutMs: number) => void) {
    this.#expire = expire;
  }

  /** Gives `deadline`'s stream a deadline `timeoutMs` from now, in place of the one it had. */
  set(deadline: Deadline<T>, timeoutMs: number): void {
    this.#list.remove(deadline);
    deadline.at = performance.now() + timeoutMs;
    deadline.timeoutMs = timeoutMs;
    this.#insert(deadline);
    const periodMs = Math.max(MIN_PERIOD_MS, Math.min(MAX_PERIOD_MS, Math.floor(timeoutMs / 4)));
    if (this.#timer !== undefined && periodMs >= this.#periodMs) return;
    this.#periodMs = periodMs;
    clearInterval(this.#timer);
    this.#timer = setInterval(() => this.#check(), periodMs).unref();
  }

  /** Takes `deadline` away (nothing if it is not set). */
  clear(deadline: Deadline<T>): void {
    this.#list.remove(deadline);
  }

  /** Takes every deadline away and stops the timer. */
  clearAll(): void {
    while (this.#list.shift() !== undefined);
    this.#stop();
  }

  /**
   * Puts `deadline` in its place by `at`, looking from the end: a port's deadlines of one kind share their
   * timeout, so a new one goes last, in one step.
   */
  #insert(deadline: Deadline<T>): void {
    let before = this.#list.last;
    while (before !== undefined && before.at > deadline.at) before = before.prev;
    this.#list.insertAfter(deadline, before);
  }

  #check(): void {
    const now = performance.now();
    // In order of `at`: the first one still to come ends the round.
    for (let first = this.#list.first; first !== undefined && first.at <= now; first = this.#list.first) {
      this.#list.remove(first);
      this.#expire(first.stream, first.timeoutMs);
    }
    if (this.#list.size === 0) this.#stop();
  }

  #stop(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
    this.#periodMs = MAX_PERIOD_MS;
  }
}

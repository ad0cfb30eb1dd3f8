import { getHeapStatistics } from 'node:v8';
import { OriginError } from '../errors/origin-error';

/** How long a reading of the heap is reused: reading it costs about a microsecond, a small request a few dozen. */
const SAMPLE_MS = 10;

/**
 * What V8 keeps of `heap_size_limit` for its young generation (three semi-spaces of at most 16 MiB on 64-bit
 * platforms), which long-lived objects never fill: a process dies of heap exhaustion with `used_heap_size` this
 * far below the limit (measured: 255 MB used of a 319 MB limit with `--max-old-space-size=256`).
 */
const YOUNG_GENERATION_BYTES = 48 * 1024 * 1024;

/** The heap objects can fill before V8 gives up: the limit less the young generation, and never below half of it. */
function objectRoom(heapSizeLimit: number): number {
  return Math.max(heapSizeLimit / 2, heapSizeLimit - YOUNG_GENERATION_BYTES);
}

/** What the guard reads of the heap; `v8.getHeapStatistics` in production, a stand-in in unit tests. */
export type HeapReader = () => { readonly used_heap_size: number; readonly heap_size_limit: number };

/**
 * Keeps the process from dying of heap exhaustion (decision 0040): new requests are refused with 503
 * `ORIGIN_HTTP_LOW_MEMORY` (with Retry-After) while the V8 heap is more than `limitPercent` used (of the room
 * objects have: `heap_size_limit` less the young generation), and a body being
 * read stops with the same error when the heap passes halfway from that limit to full, so requests already
 * admitted keep the room between the two to finish in. `limitPercent` 100 turns the guard off (the heap is never
 * more than full). The heap is read at most every {@link SAMPLE_MS} ms, from the caller's clock.
 */
export class HeapGuard {
  readonly #admitBelow: number;
  readonly #readBelow: number;
  readonly #limitPercent: number;
  readonly #read: HeapReader;
  #readAt = Number.NEGATIVE_INFINITY;
  #usedFraction = 0;

  constructor(limitPercent: number, read: HeapReader = getHeapStatistics) {
    this.#limitPercent = limitPercent;
    this.#admitBelow = limitPercent / 100;
    this.#readBelow = (limitPercent + 100) / 200;
    this.#read = read;
  }

  /** Throws `ORIGIN_HTTP_LOW_MEMORY` when a new request should not be admitted; `now` is `performance.now()`. */
  admit(now: number): void {
    if (this.#limitPercent >= 100) return;
    if (this.#used(now) > this.#admitBelow) throw this.#lowMemory();
  }

  /**
   * Throws `ORIGIN_HTTP_LOW_MEMORY` when an admitted request should stop reading its body. Reads the heap afresh
   * every time (about a microsecond, once per pushed chunk of a large body): a chunk of tiny values makes a few MB
   * of records, and several bodies read at once can fill the room between two samples (decision 0090).
   */
  keepReading(now: number): void {
    if (this.#limitPercent >= 100) return;
    this.#readAt = Number.NEGATIVE_INFINITY;
    if (this.#used(now) > this.#readBelow) throw this.#lowMemory();
  }

  #used(now: number): number {
    if (now - this.#readAt >= SAMPLE_MS || now < this.#readAt) {
      const heap = this.#read();
      this.#usedFraction = heap.used_heap_size / objectRoom(heap.heap_size_limit);
      this.#readAt = now;
    }
    return this.#usedFraction;
  }

  #lowMemory(): OriginError {
    return new OriginError('ORIGIN_HTTP_LOW_MEMORY', {
      usedPercent: Math.round(this.#usedFraction * 100),
      limitPercent: this.#limitPercent,
    });
  }
}

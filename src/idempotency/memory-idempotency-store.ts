import { randomUUID } from 'node:crypto';
import type {
  IdempotencyAcquisition,
  IdempotencyEntry,
  IdempotencyStore,
  StoredResponse,
} from './idempotency-store';

interface Slot {
  entry: IdempotencyEntry;
  /** `Date.now()` after which the slot is gone. */
  expiresAt: number;
}

/**
 * The default {@link IdempotencyStore}: keys of one process in memory, at most `maxEntries` of them. A `Map` in
 * insertion order is the LRU list (every use moves a key to the end); when full, a new key first drops expired
 * keys from the front, then the least recently used one, lock or response. A dropped response means a later
 * repeat of its key is processed again, so `maxEntries` should cover the keys a client may retry within
 * `ttlSeconds` (docs/idempotency.md). Memory is bounded by `maxEntries` times the largest response kept
 * (`http.idempotency.maxResponseBytes`). Every call settles at once; expiry is checked on access, no timer.
 */
export class MemoryIdempotencyStore implements IdempotencyStore {
  readonly #maxEntries: number;
  readonly #slots = new Map<string, Slot>();
  readonly #now: () => number;

  /**
   * @param options.maxEntries the most keys kept (locks included); a positive integer.
   * @param options.now the clock, `Date.now` by default (tests pass their own).
   */
  constructor(options: { maxEntries: number; now?: () => number }) {
    if (!Number.isSafeInteger(options.maxEntries) || options.maxEntries < 1) {
      throw new RangeError(`maxEntries must be a positive integer, got ${options.maxEntries}`);
    }
    this.#maxEntries = options.maxEntries;
    this.#now = options.now ?? Date.now;
  }

  /** How many keys are held now, expired ones not yet dropped included. */
  get size(): number {
    return this.#slots.size;
  }

  acquire(key: string, lockTtlMs: number): Promise<IdempotencyAcquisition> {
    const found = this.#live(key);
    if (found?.entry.state === 'completed') {
      return Promise.resolve({ outcome: 'completed', response: found.entry.response });
    }
    if (found !== undefined) return Promise.resolve({ outcome: 'inFlight' });
    const token = randomUUID();
    this.#put(key, { state: 'inFlight', token }, lockTtlMs);
    return Promise.resolve({ outcome: 'acquired', token });
  }

  complete(key: string, token: string, response: StoredResponse, ttlMs: number): Promise<void> {
    if (this.#holds(key, token)) {
      const copy: StoredResponse = {
        ...response,
        headers: { ...response.headers },
        body: response.body.slice(),
      };
      this.#put(key, { state: 'completed', response: copy }, ttlMs);
    }
    return Promise.resolve();
  }

  release(key: string, token: string): Promise<void> {
    if (this.#holds(key, token)) this.#slots.delete(key);
    return Promise.resolve();
  }

  get(key: string): Promise<IdempotencyEntry | undefined> {
    return Promise.resolve(this.#live(key)?.entry);
  }

  #holds(key: string, token: string): boolean {
    const entry = this.#live(key)?.entry;
    return entry?.state === 'inFlight' && entry.token === token;
  }

  /** The key's slot unless it expired (an expired one is dropped); a use moves it to the LRU list's end. */
  #live(key: string): Slot | undefined {
    const slot = this.#slots.get(key);
    if (slot === undefined) return undefined;
    this.#slots.delete(key);
    if (slot.expiresAt <= this.#now()) return undefined;
    this.#slots.set(key, slot);
    return slot;
  }

  #put(key: string, entry: IdempotencyEntry, ttlMs: number): void {
    const now = this.#now();
    this.#slots.delete(key);
    if (this.#slots.size >= this.#maxEntries) this.#makeRoom(now);
    this.#slots.set(key, { entry, expiresAt: now + ttlMs });
  }

  /** Drops expired slots from the front of the LRU list, and the least recently used one if none had expired. */
  #makeRoom(now: number): void {
    for (const [key, slot] of this.#slots) {
      if (slot.expiresAt > now) {
        if (this.#slots.size >= this.#maxEntries) this.#slots.delete(key);
        return;
      }
      this.#slots.delete(key);
    }
  }
}

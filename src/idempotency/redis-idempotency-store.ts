import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { OriginError } from '../errors/origin-error';
import type {
  IdempotencyAcquisition,
  IdempotencyEntry,
  IdempotencyStore,
  StoredResponse,
} from './idempotency-store';

/** Options of {@link RedisIdempotencyStore}. */
export interface RedisIdempotencyStoreOptions {
  /** `redis://[user:password@]host:port/db` (or `rediss://` for TLS). */
  readonly redisUrl: string;
  /**
   * The longest one store call may take, connecting included, in milliseconds (default 1000); then it rejects
   * with `ORIGIN_IDEMPOTENCY_STORE_UNAVAILABLE` and the origin answers 503.
   */
  readonly timeoutMs?: number;
  /** Prepended to every key (default `rest-service-origin:idempotency:`), so that the store can share a database. */
  readonly keyPrefix?: string;
}

// Each script runs atomically in Redis: no other client's command comes between its reads and writes.

/** `SET NX PX` takes the lock; when the key exists, its value says what holds it. One round trip. */
const ACQUIRE = `
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then return '' end
return redis.call('GET', KEYS[1])`;

/** Replaces the lock with the response only while the lock is still the caller's. */
const COMPLETE = `
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
  return 1
end
return 0`;

/** Deletes the lock only while it is still the caller's. */
const RELEASE = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`;

/** A lock's value: the token of the request that holds it. */
interface LockValue {
  readonly s: 'f';
  readonly t: string;
}

/** A stored response's value: one JSON string, the body in base64. */
interface ResponseValue {
  readonly s: 'c';
  readonly f: string;
  readonly st: number;
  readonly h: Record<string, string>;
  readonly b: string;
  readonly o: boolean;
}

/**
 * An {@link IdempotencyStore} in Redis (through `ioredis`), shared by every instance of an origin that points at
 * the same database: the lock is `SET key lock NX PX lockTtlMs`, the stored response one string value with its
 * own expiry. Completing and releasing check the lock's token in a Lua script, so a request whose lock expired
 * cannot overwrite or drop a newer request's lock.
 *
 * A lost or slow connection never hangs a request: each call fails after `timeoutMs` (commands wait for a
 * reconnect at most that long) with `OriginError` `ORIGIN_IDEMPOTENCY_STORE_UNAVAILABLE` (503). The client
 * connects on first use and reconnects by itself, backing off up to 2 s between attempts. `ioredis` itself is
 * loaded on first use too, so that an origin without a Redis store never pays for loading it.
 */
export class RedisIdempotencyStore implements IdempotencyStore {
  readonly #url: string;
  readonly #prefix: string;
  readonly #timeoutMs: number;
  #redis: Promise<Redis> | undefined;
  #closed = false;
  #lastError: string | undefined;

  /** Keeps the options; nothing is loaded or connected before the first call. */
  constructor(options: RedisIdempotencyStoreOptions) {
    this.#url = options.redisUrl;
    this.#timeoutMs = options.timeoutMs ?? 1000;
    this.#prefix = options.keyPrefix ?? 'rest-service-origin:idempotency:';
  }

  /** The client, made on first use. */
  #client(): Promise<Redis> {
    this.#redis ??= import('ioredis').then(({ Redis }) => {
      const redis = new Redis(this.#url, {
        lazyConnect: true,
        connectTimeout: this.#timeoutMs,
        commandTimeout: this.#timeoutMs,
        // A command fails after one reconnect attempt rather than waiting through the default twenty.
        maxRetriesPerRequest: 1,
        retryStrategy: (attempt) => Math.min(attempt * 200, 2000),
        enableReadyCheck: false,
      });
      // Without a listener, a connection error would be an uncaught 'error' event; calls report it themselves.
      redis.on('error', (error: Error) => {
        this.#lastError = error.message;
      });
      return redis;
    });
    return this.#redis;
  }

  async acquire(key: string, lockTtlMs: number): Promise<IdempotencyAcquisition> {
    const token = randomUUID();
    const lock: LockValue = { s: 'f', t: token };
    const found = await this.#call((redis) =>
      redis.eval(ACQUIRE, 1, this.#prefix + key, JSON.stringify(lock), String(lockTtlMs)),
    );
    if (found === '') return { outcome: 'acquired', token };
    const entry = this.#parse(found);
    if (entry?.state === 'completed') return { outcome: 'completed', response: entry.response };
    return { outcome: 'inFlight' };
  }

  async complete(key: string, token: string, response: StoredResponse, ttlMs: number): Promise<void> {
    const value: ResponseValue = {
      s: 'c',
      f: response.fingerprint,
      st: response.status,
      h: { ...response.headers },
      b: Buffer.from(response.body.buffer, response.body.byteOffset, response.body.byteLength).toString(
        'base64',
      ),
      o: response.bodyOmitted,
    };
    const lock: LockValue = { s: 'f', t: token };
    await this.#call((redis) =>
      redis.eval(COMPLETE, 1, this.#prefix + key, JSON.stringify(lock), JSON.stringify(value), String(ttlMs)),
    );
  }

  async release(key: string, token: string): Promise<void> {
    const lock: LockValue = { s: 'f', t: token };
    await this.#call((redis) => redis.eval(RELEASE, 1, this.#prefix + key, JSON.stringify(lock)));
  }

  async get(key: string): Promise<IdempotencyEntry | undefined> {
    return this.#parse(await this.#call((redis) => redis.get(this.#prefix + key)));
  }

  /** Closes the connection (QUIT, or a disconnect when Redis cannot be reached); later calls reject. */
  async close(): Promise<void> {
    this.#closed = true;
    if (this.#redis === undefined) return;
    const redis = await this.#redis;
    // Only a ready connection can say QUIT; any other (connecting, reconnecting, never used) is just dropped, which
    // also stops reconnecting.
    if (redis.status !== 'ready') {
      redis.disconnect();
      return;
    }
    try {
      await this.#call(() => redis.quit());
    } catch {
      redis.disconnect();
    }
  }

  /** What a value read from Redis holds; a value this store did not write is the store's typed error. */
  #parse(value: unknown): IdempotencyEntry | undefined {
    try {
      return parseEntry(value);
    } catch (error) {
      throw new OriginError(
        'ORIGIN_IDEMPOTENCY_STORE_UNAVAILABLE',
        {
          store: 'Redis',
          detail: 'a key holds a value this store did not write',
          timeoutMs: this.#timeoutMs,
        },
        { cause: error },
      );
    }
  }

  /** Runs one call, turning any failure (refused, timed out, lost connection) into the store's typed error. */
  async #call<T>(command: (redis: Redis) => Promise<T>): Promise<T> {
    try {
      if (this.#closed && this.#redis === undefined) throw new Error('the store is closed');
      return await command(await this.#client());
    } catch (error) {
      const detail = error instanceof Error ? error.message : String(error);
      const last = this.#lastError !== undefined && this.#lastError !== detail ? ` (${this.#lastError})` : '';
      throw new OriginError(
        'ORIGIN_IDEMPOTENCY_STORE_UNAVAILABLE',
        { store: 'Redis', detail: `${detail}${last}`, timeoutMs: this.#timeoutMs },
        { cause: error },
      );
    }
  }
}

/** @throws when `value` is not what this store writes. */
function parseEntry(value: unknown): IdempotencyEntry | undefined {
  if (typeof value !== 'string' || value === '') return undefined;
  const parsed = JSON.parse(value) as LockValue | ResponseValue;
  if (parsed.s === 'f' && typeof parsed.t === 'string') return { state: 'inFlight', token: parsed.t };
  if (parsed.s !== 'c' || typeof parsed.b !== 'string' || typeof parsed.f !== 'string') {
    throw new TypeError('not an idempotency entry');
  }
  return {
    state: 'completed',
    response: {
      fingerprint: parsed.f,
      status: parsed.st,
      headers: parsed.h,
      body: new Uint8Array(Buffer.from(parsed.b, 'base64')),
      bodyOmitted: parsed.o,
    },
  };
}

/**
 * The contract between the origin's idempotency step (`http.idempotency`, docs/idempotency.md) and the place
 * where keys and their responses are kept. Two implementations ship: {@link MemoryIdempotencyStore} (one process)
 * and {@link RedisIdempotencyStore} (several instances behind a load balancer); a host may pass its own through
 * `OriginOptions.idempotencyStore`. `tests/idempotency/store-contract.test.ts` is the contract as a test table,
 * run against both: a host's store should pass it too.
 *
 * Keys arrive already scoped and hashed by the origin (application ID, authenticated user and the client's key,
 * as one SHA-256 hex string), so a store needs no escaping and never sees a client's raw key.
 *
 * Every method may reject; the origin turns a rejection (or a method that takes longer than the store's own
 * timeout) into 503 `ORIGIN_IDEMPOTENCY_STORE_UNAVAILABLE` before the request reaches the pipeline, or, after the
 * pipeline ran, answers normally and leaves the lock to expire. A store must therefore bound every call in time
 * itself: a call that never settles holds a request slot (the Redis store fails a command after `timeoutMs`).
 */
export interface IdempotencyStore {
  /**
   * Takes the in-flight lock of `key` for `lockTtlMs` milliseconds, atomically, unless the key has an entry:
   * resolves with `{ outcome: 'acquired', token }` (the caller now owns the lock, and passes `token` to
   * {@link IdempotencyStore.complete} or {@link IdempotencyStore.release}), `{ outcome: 'inFlight' }` (another
   * request holds the lock), or `{ outcome: 'completed', response }` (a response is stored). Of any number of
   * concurrent calls for one key, across every process sharing the store, at most one is `acquired`. A lock not
   * completed or released within `lockTtlMs` disappears, so a crashed instance does not block a key for good.
   */
  acquire(key: string, lockTtlMs: number): Promise<IdempotencyAcquisition>;

  /**
   * Replaces the lock of `key` with `response`, kept for `ttlMs` milliseconds from now; does nothing when the
   * lock is no longer `token`'s (it expired, and maybe another request took it). The store keeps its own copy:
   * the caller may reuse `response` afterwards.
   */
  complete(key: string, token: string, response: StoredResponse, ttlMs: number): Promise<void>;

  /**
   * Drops the lock of `key` when it is still `token`'s, so that the next request with the key is processed as a
   * first one; does nothing otherwise (a completed entry is never released).
   */
  release(key: string, token: string): Promise<void>;

  /** What the store holds for `key` now: `undefined` (nothing, or expired), the lock, or the stored response. */
  get(key: string): Promise<IdempotencyEntry | undefined>;

  /**
   * Frees what the store holds open (connections, timers). Called by the origin when it stops, only for a store
   * the origin made from its config; a store the host passed belongs to the host, which closes it.
   */
  close?(): Promise<void>;
}

/** What {@link IdempotencyStore.acquire} found. */
export type IdempotencyAcquisition =
  | { readonly outcome: 'acquired'; readonly token: string }
  | { readonly outcome: 'inFlight' }
  | { readonly outcome: 'completed'; readonly response: StoredResponse };

/** What a store holds for a key ({@link IdempotencyStore.get}). */
export type IdempotencyEntry =
  | { readonly state: 'inFlight'; readonly token: string }
  | { readonly state: 'completed'; readonly response: StoredResponse };

/** A response kept for a key: what the first request was answered, and what it was. */
export interface StoredResponse {
  /**
   * The request's fingerprint: SHA-256 (hex) of its method, request target and the digest of its body bytes as
   * received. A repeat whose fingerprint differs is answered 422.
   */
  readonly fingerprint: string;
  readonly status: number;
  /** The response headers as sent, without `Content-Length`, `Connection` and authentication replies. */
  readonly headers: Readonly<Record<string, string>>;
  /** The response body as sent (empty when `bodyOmitted`). */
  readonly body: Uint8Array;
  /** The body was larger than `maxResponseBytes` and was not kept: a replay has the status and headers only. */
  readonly bodyOmitted: boolean;
}

import {
  MemoryIdempotencyStore,
  RedisIdempotencyStore,
  isOriginError,
  type IdempotencyStore,
  type StoredResponse,
} from 'rest-service-origin';
import { Redis } from 'ioredis';
import { startRedis, type TestRedis } from './test-redis';

/**
 * The IdempotencyStore contract as one table of cases, run against every implementation: the in-memory store and
 * the Redis store on a real redis-server started here (the test fails when it cannot start). A host's own store
 * can be held to the same table.
 */

let redis: TestRedis;
const opened: IdempotencyStore[] = [];
let counter = 0;

beforeAll(async () => {
  redis = await startRedis();
});

afterAll(async () => {
  for (const store of opened.splice(0)) await store.close?.();
  await redis?.stop();
});

/** A key no other case uses, so that the cases share one Redis database without meeting. */
function freshKey(): string {
  return `contract-${process.pid}-${++counter}`;
}

function response(fingerprint: string, body = 'hello'): StoredResponse {
  return {
    fingerprint,
    status: 201,
    headers: { 'Content-Type': 'application/json; charset=UTF-8', 'X-Trace': 'a b' },
    body: new Uint8Array(Buffer.from(body)),
    bodyOmitted: false,
  };
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

interface Case {
  name: string;
  run(store: IdempotencyStore): Promise<void>;
}

const cases: Case[] = [
  {
    name: 'the first acquire takes the lock; a second finds it in flight',
    async run(store) {
      const key = freshKey();
      const first = await store.acquire(key, 10_000);
      expect(first.outcome).toBe('acquired');
      expect(await store.acquire(key, 10_000)).toEqual({ outcome: 'inFlight' });
      const entry = await store.get(key);
      expect(entry?.state).toBe('inFlight');
      if (first.outcome === 'acquired' && entry?.state === 'inFlight') expect(entry.token).toBe(first.token);
    },
  },
  {
    name: 'of many concurrent acquires of one key, exactly one gets the lock',
    async run(store) {
      const key = freshKey();
      const outcomes = await Promise.all(Array.from({ length: 50 }, () => store.acquire(key, 10_000)));
      expect(outcomes.filter((found) => found.outcome === 'acquired')).toHaveLength(1);
      expect(outcomes.filter((found) => found.outcome === 'inFlight')).toHaveLength(49);
    },
  },
  {
    name: 'complete stores the response: status, headers and body bytes come back as given',
    async run(store) {
      const key = freshKey();
      const taken = await store.acquire(key, 10_000);
      if (taken.outcome !== 'acquired') throw new Error('not acquired');
      const kept = { ...response('fp-1', 'é\u0000\u00ff'), body: new Uint8Array([0, 255, 1, 128]) };
      await store.complete(key, taken.token, kept, 60_000);
      expect(await store.acquire(key, 10_000)).toEqual({ outcome: 'completed', response: kept });
      expect(await store.get(key)).toEqual({ state: 'completed', response: kept });
    },
  },
  {
    name: 'a response kept without its body says so',
    async run(store) {
      const key = freshKey();
      const taken = await store.acquire(key, 10_000);
      if (taken.outcome !== 'acquired') throw new Error('not acquired');
      const kept: StoredResponse = { ...response('fp'), body: new Uint8Array(0), bodyOmitted: true };
      await store.complete(key, taken.token, kept, 60_000);
      expect(await store.get(key)).toEqual({ state: 'completed', response: kept });
    },
  },
  {
    name: 'release drops the lock: the next acquire takes it again',
    async run(store) {
      const key = freshKey();
      const taken = await store.acquire(key, 10_000);
      if (taken.outcome !== 'acquired') throw new Error('not acquired');
      await store.release(key, taken.token);
      expect(await store.get(key)).toBeUndefined();
      expect((await store.acquire(key, 10_000)).outcome).toBe('acquired');
    },
  },
  {
    name: 'release and complete with another token change nothing',
    async run(store) {
      const key = freshKey();
      const taken = await store.acquire(key, 10_000);
      if (taken.outcome !== 'acquired') throw new Error('not acquired');
      await store.release(key, 'not-the-token');
      await store.complete(key, 'not-the-token', response('fp'), 60_000);
      expect(await store.get(key)).toEqual({ state: 'inFlight', token: taken.token });
    },
  },
  {
    name: 'a completed entry is never released',
    async run(store) {
      const key = freshKey();
      const taken = await store.acquire(key, 10_000);
      if (taken.outcome !== 'acquired') throw new Error('not acquired');
      await store.complete(key, taken.token, response('fp'), 60_000);
      await store.release(key, taken.token);
      expect((await store.get(key))?.state).toBe('completed');
    },
  },
  {
    name: 'a lock expires after its TTL; completing it afterwards changes nothing',
    async run(store) {
      const key = freshKey();
      const taken = await store.acquire(key, 100);
      if (taken.outcome !== 'acquired') throw new Error('not acquired');
      await sleep(250);
      expect(await store.get(key)).toBeUndefined();
      const again = await store.acquire(key, 10_000);
      expect(again.outcome).toBe('acquired');
      // The first holder comes back late: it must not overwrite the new holder's lock.
      await store.complete(key, taken.token, response('late'), 60_000);
      expect((await store.get(key))?.state).toBe('inFlight');
    },
  },
  {
    name: 'a stored response expires after its TTL',
    async run(store) {
      const key = freshKey();
      const taken = await store.acquire(key, 10_000);
      if (taken.outcome !== 'acquired') throw new Error('not acquired');
      await store.complete(key, taken.token, response('fp'), 100);
      expect((await store.get(key))?.state).toBe('completed');
      await sleep(250);
      expect(await store.get(key)).toBeUndefined();
      expect((await store.acquire(key, 10_000)).outcome).toBe('acquired');
    },
  },
  {
    name: 'keys are independent',
    async run(store) {
      const a = freshKey();
      const b = freshKey();
      expect((await store.acquire(a, 10_000)).outcome).toBe('acquired');
      expect((await store.acquire(b, 10_000)).outcome).toBe('acquired');
      expect(await store.get(freshKey())).toBeUndefined();
    },
  },
  {
    name: 'the store keeps its own copy of a completed response',
    async run(store) {
      const key = freshKey();
      const taken = await store.acquire(key, 10_000);
      if (taken.outcome !== 'acquired') throw new Error('not acquired');
      const kept = response('fp', 'abc');
      const headers = kept.headers as Record<string, string>;
      await store.complete(key, taken.token, kept, 60_000);
      kept.body.fill(0);
      headers['X-Trace'] = 'changed';
      const entry = await store.get(key);
      if (entry?.state !== 'completed') throw new Error('not completed');
      expect(Buffer.from(entry.response.body).toString()).toBe('abc');
      expect(entry.response.headers['X-Trace']).toBe('a b');
    },
  },
];

const stores: { name: string; make(): IdempotencyStore }[] = [
  { name: 'MemoryIdempotencyStore', make: () => new MemoryIdempotencyStore({ maxEntries: 1000 }) },
  {
    name: 'RedisIdempotencyStore',
    make: () => new RedisIdempotencyStore({ redisUrl: redis.url, timeoutMs: 2000 }),
  },
];

describe.each(stores)('$name keeps the IdempotencyStore contract', ({ make }) => {
  let store: IdempotencyStore;
  beforeAll(() => {
    store = make();
    opened.push(store);
  });

  it.each(cases)('$name', async ({ run }) => {
    await run(store);
  });
});

describe('MemoryIdempotencyStore bounds', () => {
  it('drops the least recently used key beyond maxEntries', async () => {
    const store = new MemoryIdempotencyStore({ maxEntries: 3 });
    for (const key of ['a', 'b', 'c']) await store.acquire(key, 10_000);
    await store.get('a');
    await store.acquire('d', 10_000);
    expect(store.size).toBe(3);
    expect(await store.get('b')).toBeUndefined();
    expect((await store.get('a'))?.state).toBe('inFlight');
  });

  it('drops expired keys before live ones', async () => {
    let now = 0;
    const store = new MemoryIdempotencyStore({ maxEntries: 2, now: () => now });
    await store.acquire('short', 10);
    await store.acquire('long', 10_000);
    now = 100;
    await store.acquire('new', 10_000);
    expect((await store.get('long'))?.state).toBe('inFlight');
    expect(await store.get('short')).toBeUndefined();
  });
});

describe('RedisIdempotencyStore faults', () => {
  it('a key holding a value the store did not write is ORIGIN_IDEMPOTENCY_STORE_UNAVAILABLE, not a crash', async () => {
    const store = new RedisIdempotencyStore({ redisUrl: redis.url, keyPrefix: 'foreign:' });
    const other = new Redis(redis.url);
    try {
      await other.set('foreign:k', 'not json');
      await other.set('foreign:j', '{"s":"x"}');
      for (const key of ['k', 'j']) {
        await expect(store.acquire(key, 1000)).rejects.toMatchObject({
          code: 'ORIGIN_IDEMPOTENCY_STORE_UNAVAILABLE',
        });
        await expect(store.get(key)).rejects.toMatchObject({ code: 'ORIGIN_IDEMPOTENCY_STORE_UNAVAILABLE' });
      }
    } finally {
      other.disconnect();
      await store.close();
    }
  });

  it('fails each call within timeoutMs with ORIGIN_IDEMPOTENCY_STORE_UNAVAILABLE, and recovers when Redis is back', async () => {
    const own = await startRedis();
    const store = new RedisIdempotencyStore({ redisUrl: own.url, timeoutMs: 300 });
    try {
      // The first call also connects; on a loaded machine that may take longer than timeoutMs, so it may be retried.
      expect(await acquiredEventually(store, 'k1')).toBe('acquired');
      await own.pause();
      const failure = await store.acquire('k2', 10_000).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(isOriginError(failure, 'ORIGIN_IDEMPOTENCY_STORE_UNAVAILABLE')).toBe(true);
      await own.resume();
      expect(await acquiredEventually(store, 'k3')).toBe('acquired');
    } finally {
      await store.close();
      await own.stop();
    }
  });

  it('a store whose Redis never answers fails at once, not after the socket times out', async () => {
    const store = new RedisIdempotencyStore({ redisUrl: 'redis://127.0.0.1:1/0', timeoutMs: 200 });
    try {
      await expect(store.acquire('k', 1000)).rejects.toMatchObject({
        code: 'ORIGIN_IDEMPOTENCY_STORE_UNAVAILABLE',
        httpStatus: 503,
      });
    } finally {
      await store.close();
    }
  });
});

/** The outcome of acquiring `key`, tried every 100 ms (at most 50 times) while the store fails. */
async function acquiredEventually(store: RedisIdempotencyStore, key: string): Promise<string | undefined> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const outcome = await store.acquire(key, 10_000).then(
      (found) => found.outcome,
      () => undefined,
    );
    if (outcome !== undefined) return outcome;
    await sleep(100);
  }
  return undefined;
}

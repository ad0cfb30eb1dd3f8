import { Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { request } from 'undici';
import {
  ConfigError,
  InProcessRunnerPool,
  MemoryIdempotencyStore,
  Origin,
  SendResponse,
  type Batch,
  type Pipeline,
} from 'rest-service-origin';
import { gate, send, startOrigin, type TestConfig, type TestOrigin } from '../origin/origin-helpers';
import { httpsAgent, sendHttps, startHttpsOrigin } from '../tls/https-client';
import { makeTlsMaterial } from '../tls/tls-material';
import { startRedis } from './test-redis';

/** http.idempotency over real sockets: replay, 409, 422, 400, what is kept and what is released. */

const running: TestOrigin[] = [];
afterEach(async () => {
  for (const origin of running.splice(0)) await origin.stop();
});

/** An origin whose pipeline answers each record with `{ n, run }` (`run` counts the batches) and status 201. */
async function keyed(
  config: TestConfig = {},
  pipeline?: Pipeline,
): Promise<TestOrigin & { runs: () => number; bodies: unknown[] }> {
  let runs = 0;
  const bodies: unknown[] = [];
  const answering: Pipeline =
    pipeline ??
    ((batch: Batch) => {
      runs++;
      for (const record of batch.records) {
        bodies.push(record.value);
        record.set('/run', runs);
      }
      new SendResponse({ statusCode: 201, headers: { 'X-Run': String(runs) } }).write(batch);
    });
  const started = await startOrigin(
    { ...config, http: { idempotency: {}, ...config.http } },
    pipeline === undefined ? answering : pipeline,
  );
  running.push(started);
  return { ...started, runs: () => runs, bodies };
}

const KEY = { 'Idempotency-Key': '"8e03978e-40d5-43e8-bc93-6894a57f9324"' };

describe('a repeat with the same key', () => {
  it('gets the first answer replayed (status, headers, body) with Idempotent-Replayed: true, without reaching the pipeline', async () => {
    const { origin, url, runs } = await keyed();
    const first = await send(url, { body: '{"n":1}', headers: KEY });
    expect(first.status).toBe(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const again = await send(url, { body: '{"n":1}', headers: KEY });
    expect(again.status).toBe(201);
    expect(again.text).toBe(first.text);
    expect(again.headers['x-run']).toBe('1');
    expect(again.headers['content-type']).toBe(first.headers['content-type']);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(runs()).toBe(1);
    const replays = origin
      .metrics({ format: 'snapshot' })
      .families.find((family) => family.name === 'rest_origin_idempotent_replays_total');
    expect(replays?.samples).toEqual([{ labels: { origin: 'REST Service 1' }, value: 1 }]);
    expect(origin.metrics().requests.byStatus).toEqual({ '201': 2 });
  });

  it('the bare and the quoted form of a key are the same key', async () => {
    const { url, runs } = await keyed();
    await send(url, { body: '{"n":1}', headers: { 'Idempotency-Key': 'abc-1' } });
    const again = await send(url, { body: '{"n":1}', headers: { 'Idempotency-Key': '"abc-1"' } });
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(runs()).toBe(1);
  });

  it('with another body, path or method is answered 422 ORIGIN_IDEMPOTENCY_KEY_REUSED', async () => {
    const { url, runs } = await keyed();
    await send(url, { body: '{"n":1}', headers: KEY });
    for (const variant of [
      { body: '{"n":2}' },
      { body: '{"n":1}', path: '/other' },
      { body: '{"n":1}', method: 'PUT' },
    ]) {
      const answer = await send(url, { ...variant, headers: KEY });
      expect(answer.status).toBe(422);
      expect(answer.text).toContain('ORIGIN_IDEMPOTENCY_KEY_REUSED');
    }
    expect(runs()).toBe(1);
  });

  it('while the first is in the pipeline is answered 409 with Retry-After, and replayed once it is done', async () => {
    const held = gate();
    let runs = 0;
    const { url } = await keyed({}, async (batch) => {
      runs++;
      await held.promise;
      new SendResponse().write(batch);
    });
    const first = send(url, { body: '{"n":1}', headers: KEY });
    while (runs === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    const concurrent = await send(url, { body: '{"n":1}', headers: KEY });
    expect(concurrent.status).toBe(409);
    expect(concurrent.headers['retry-after']).toBe('1');
    expect(concurrent.text).toContain('ORIGIN_IDEMPOTENCY_KEY_IN_FLIGHT');
    held.open();
    expect((await first).status).toBe(200);
    const after = await send(url, { body: '{"n":1}', headers: KEY });
    expect(after.status).toBe(200);
    expect(after.headers['idempotent-replayed']).toBe('true');
    expect(runs).toBe(1);
  });

  it('digests the body as received: a gzip body replays, the same records sent plain are another request', async () => {
    const { url, runs } = await keyed();
    const gzipped = gzipSync('{"n":1}');
    const headers = { ...KEY, 'Content-Encoding': 'gzip' };
    expect((await send(url, { body: gzipped, headers })).status).toBe(201);
    expect((await send(url, { body: gzipped, headers })).headers['idempotent-replayed']).toBe('true');
    expect((await send(url, { body: '{"n":1}', headers: KEY })).status).toBe(422);
    expect(runs()).toBe(1);
  });
});

describe('keys', () => {
  it('are scoped by application ID: the same key under two IDs is two requests', async () => {
    const { url, runs } = await keyed({ http: { applicationIds: ['a', 'b'], idempotency: {} } });
    const one = await send(url, { body: '{"n":1}', headers: { ...KEY, 'X-ENGINE-APPLICATION-ID': 'a' } });
    const two = await send(url, { body: '{"n":1}', headers: { ...KEY, 'X-ENGINE-APPLICATION-ID': 'b' } });
    expect([one.status, two.status]).toEqual([201, 201]);
    expect(two.headers['idempotent-replayed']).toBeUndefined();
    expect(runs()).toBe(2);
  });

  it('are scoped by authenticated user: alice cannot replay (or block) bob’s key', async () => {
    const material = makeTlsMaterial();
    let runs = 0;
    const started = await startHttpsOrigin(
      material,
      {
        http: { idempotency: {} },
        tls: {
          basicAuthenticationUsers: [
            { user: 'alice', password: 'alice-secret' },
            { user: 'bob', password: 'bob-secret' },
          ],
        },
      },
      {
        pipeline: (batch) => {
          runs++;
          new SendResponse().write(batch);
        },
      },
    );
    const agent = httpsAgent(material);
    try {
      const as = (user: string): Record<string, string> => ({
        ...KEY,
        Authorization: `Basic ${Buffer.from(`${user}:${user}-secret`).toString('base64')}`,
      });
      const bob = await sendHttps(started.url, agent, { body: '{"n":1}', headers: as('bob') });
      const alice = await sendHttps(started.url, agent, { body: '{"n":1}', headers: as('alice') });
      expect([bob.status, alice.status]).toEqual([200, 200]);
      expect(alice.headers['idempotent-replayed']).toBeUndefined();
      const bobAgain = await sendHttps(started.url, agent, { body: '{"n":1}', headers: as('bob') });
      expect(bobAgain.headers['idempotent-replayed']).toBe('true');
      expect(runs).toBe(2);
    } finally {
      await agent.close();
      await started.stop();
      material.remove();
    }
  });

  it('are refused 400 ORIGIN_IDEMPOTENCY_KEY_INVALID when empty, too long, not ASCII or sent twice', async () => {
    const { url, runs } = await keyed();
    for (const value of ['', '""', 'x'.repeat(256), 'clé', 'a, b']) {
      const answer = await send(url, { body: '{"n":1}', headers: { 'Idempotency-Key': value } });
      expect(answer.status).toBe(400);
      expect(answer.text).toContain('ORIGIN_IDEMPOTENCY_KEY_INVALID');
    }
    const twice = await request(url, {
      method: 'POST',
      body: '{"n":1}',
      headers: ['Idempotency-Key', 'a', 'Idempotency-Key', 'b'],
    });
    expect(twice.statusCode).toBe(400);
    await twice.body.text();
    expect(runs()).toBe(0);
  });

  it('with required: POST, PUT and PATCH without a key get 400 ORIGIN_IDEMPOTENCY_KEY_MISSING; GET goes through', async () => {
    const { url, runs } = await keyed({ http: { idempotency: { required: true } } });
    for (const method of ['POST', 'PUT', 'PATCH']) {
      const answer = await send(url, { method, body: '{"n":1}' });
      expect(answer.status).toBe(400);
      expect(answer.text).toContain('ORIGIN_IDEMPOTENCY_KEY_MISSING');
    }
    expect((await send(url, { method: 'GET' })).status).toBe(201);
    expect(runs()).toBe(1);
  });

  it('without required: a request without a key is processed every time', async () => {
    const { url, runs } = await keyed();
    await send(url, { body: '{"n":1}' });
    await send(url, { body: '{"n":1}' });
    expect(runs()).toBe(2);
  });

  it('take another header name when configured', async () => {
    const { url, runs } = await keyed({ http: { idempotency: { header: 'X-Request-Id' } } });
    await send(url, { body: '{"n":1}', headers: { 'X-Request-Id': 'r1' } });
    const again = await send(url, { body: '{"n":1}', headers: { 'X-Request-Id': 'r1' } });
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(runs()).toBe(1);
  });
});

describe('what is kept', () => {
  it('a refusal before the pipeline (413 mid-body) keeps nothing: the retry is processed', async () => {
    const { url, runs } = await keyed({ http: { maxRequestSizeMb: 1, idempotency: {} } });
    // Chunked, so that the 413 comes while reading, after the key's lock was taken.
    const big = await request(url, {
      method: 'POST',
      headers: KEY,
      body: Readable.from([Buffer.from('{"n":1}\n'), Buffer.alloc(1_100_000, 0x20)]),
    });
    expect(big.statusCode).toBe(413);
    await big.body.text().catch(() => undefined);
    const retry = await send(url, { body: '{"n":1}', headers: KEY });
    expect(retry.status).toBe(201);
    expect(retry.headers['idempotent-replayed']).toBeUndefined();
    expect(runs()).toBe(1);
  });

  it('a pipeline failure (500) is kept and replayed: the pipeline may have acted on the batch', async () => {
    let runs = 0;
    const { url } = await keyed({}, () => {
      runs++;
      throw new Error('stage failed');
    });
    const failed = await send(url, { body: '{"n":2}', headers: KEY });
    expect(failed.status).toBe(500);
    const replayed = await send(url, { body: '{"n":2}', headers: KEY });
    expect(replayed.status).toBe(500);
    expect(replayed.headers['idempotent-replayed']).toBe('true');
    expect(replayed.text).toBe(failed.text);
    expect(runs).toBe(1);
  });

  it('a batch withdrawn before a runner took it (503 ORIGIN_PIPELINE_NOT_STARTED) keeps nothing', async () => {
    const held = gate();
    let runs = 0;
    const pool = new InProcessRunnerPool(
      1,
      async (batch: Batch) => {
        runs++;
        if ((batch.records[0]?.value as { n: number }).n === 0) await held.promise;
        new SendResponse().write(batch);
      },
      { runnerIdleTimeMs: 0 },
    );
    const origin = new Origin(
      {
        http: {
          host: '127.0.0.1',
          port: 0,
          maxConcurrentRequests: 2,
          responseTimeoutMs: 300,
          idempotency: {},
        },
        dataFormat: { format: 'json' },
      },
      { runners: pool },
    );
    const url = await origin.start();
    try {
      // The one runner is busy, so the keyed batch waits for it until responseTimeoutMs withdraws it.
      const blocker = send(url, { body: '{"n":0}' });
      while (runs === 0) await new Promise((resolve) => setTimeout(resolve, 5));
      const withdrawn = await send(url, { body: '{"n":1}', headers: KEY });
      expect(withdrawn.status).toBe(503);
      expect(withdrawn.text).toContain('ORIGIN_PIPELINE_NOT_STARTED');
      held.open();
      await blocker;
      const retry = await send(url, { body: '{"n":1}', headers: KEY });
      expect(retry.status).toBe(200);
      expect(retry.headers['idempotent-replayed']).toBeUndefined();
      expect(runs).toBe(2);
    } finally {
      await origin.destroy();
      await pool.close();
    }
  });

  it('a response over maxResponseBytes is answered as usual and replayed without its body', async () => {
    const { url, runs } = await keyed({ http: { idempotency: { maxResponseBytes: 10 } } });
    const first = await send(url, { body: '{"n":1}', headers: KEY });
    expect(first.status).toBe(201);
    expect(first.text.length).toBeGreaterThan(10);
    const again = await send(url, { body: '{"n":1}', headers: KEY });
    expect(again.status).toBe(201);
    expect(again.text).toBe('');
    expect(again.headers['idempotent-replayed']).toBe('body-omitted');
    expect(runs()).toBe(1);
  });
});

describe('the store', () => {
  it('may be the host’s own, passed in the options', async () => {
    const store = new MemoryIdempotencyStore({ maxEntries: 10 });
    const pool = new InProcessRunnerPool(2, (batch) => new SendResponse().write(batch), {
      runnerIdleTimeMs: 0,
    });
    const origin = new Origin(
      { http: { host: '127.0.0.1', port: 0, idempotency: {} }, dataFormat: { format: 'json' } },
      { runners: pool, idempotencyStore: store },
    );
    const url = await origin.start();
    try {
      await send(url, { body: '{"n":1}', headers: KEY });
      expect(store.size).toBe(1);
    } finally {
      await origin.destroy();
      await pool.close();
    }
  });

  it('given without http.idempotency is a ConfigError', () => {
    const pool = new InProcessRunnerPool(1, () => undefined, { runnerIdleTimeMs: 0 });
    expect(
      () =>
        new Origin(
          { dataFormat: { format: 'json' } },
          { runners: pool, idempotencyStore: new MemoryIdempotencyStore({ maxEntries: 1 }) },
        ),
    ).toThrow(ConfigError);
    return pool.close();
  });

  it('a Redis store that cannot be reached: 503 ORIGIN_IDEMPOTENCY_STORE_UNAVAILABLE with Retry-After, nothing processed', async () => {
    const redis = await startRedis();
    await redis.stop();
    const { url, runs } = await keyed({
      http: { idempotency: { store: { redisUrl: redis.url, timeoutMs: 200 } } },
    });
    const answer = await send(url, { body: '{"n":1}', headers: KEY });
    expect(answer.status).toBe(503);
    expect(answer.headers['retry-after']).toBe('1');
    expect(answer.text).toContain('ORIGIN_IDEMPOTENCY_STORE_UNAVAILABLE');
    expect(runs()).toBe(0);
    // A request without a key does not need the store.
    expect((await send(url, { body: '{"n":1}' })).status).toBe(201);
  });

  it('Redis going away under traffic: keyed requests get 503 (never a hang), and are served again once it is back', async () => {
    const redis = await startRedis();
    try {
      const { url, runs } = await keyed({
        http: { idempotency: { store: { redisUrl: redis.url, timeoutMs: 300 } } },
      });
      const keyedSend = (n: number): ReturnType<typeof send> =>
        send(url, { body: `{"n":${n}}`, headers: { 'Idempotency-Key': `k-${n}` } });
      expect((await keyedSend(1)).status).toBe(201);
      await redis.pause();
      const during = await Promise.all([2, 3, 4, 5].map(keyedSend));
      for (const answer of during) {
        expect(answer.status).toBe(503);
        expect(answer.text).toContain('ORIGIN_IDEMPOTENCY_STORE_UNAVAILABLE');
        expect(answer.headers['retry-after']).toBe('1');
      }
      expect(runs()).toBe(1);
      await redis.resume();
      let status = 0;
      for (let attempt = 0; attempt < 50 && status !== 201; attempt++) {
        status = (await keyedSend(2)).status;
        if (status !== 201) await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(status).toBe(201);
      expect((await keyedSend(1)).headers['idempotent-replayed']).toBeUndefined();
      expect(runs()).toBe(3);
    } finally {
      for (const origin of running.splice(0)) await origin.stop();
      await redis.stop();
    }
  });

  it('a Redis store shared by two origins: the second replays what the first answered', async () => {
    const redis = await startRedis();
    try {
      const store = { store: { redisUrl: redis.url } };
      const a = await keyed({ http: { idempotency: store } });
      const b = await keyed({ http: { idempotency: store } });
      const first = await send(a.url, { body: '{"n":1}', headers: KEY });
      const again = await send(b.url, { body: '{"n":1}', headers: KEY });
      expect(again.headers['idempotent-replayed']).toBe('true');
      expect(again.text).toBe(first.text);
      expect(a.runs() + b.runs()).toBe(1);
      expect((await send(b.url, { body: '{"n":9}', headers: KEY })).status).toBe(422);
    } finally {
      for (const origin of running.splice(0)) await origin.stop();
      await redis.stop();
    }
  });
});

import { Readable } from 'node:stream';
import { request as httpRequest } from 'node:http';
import { request } from 'undici';
import {
  ConfigError,
  SendResponse,
  defaultRegistry,
  resolveConfig,
  type Batch,
  type Pipeline,
} from 'rest-service-origin';
import { send, startOrigin, type TestOrigin } from './origin-helpers';

const stops: Array<() => Promise<void>> = [];

afterEach(async () => {
  for (const stop of stops.splice(0).reverse()) await stop();
});

async function started(...args: Parameters<typeof startOrigin>): Promise<TestOrigin> {
  const origin = await startOrigin(...args);
  stops.push(origin.stop);
  return origin;
}

const TENANTS = ['tenant-a', 'tenant-b'];

function asTenant(id: string, body = '{"a":1}'): { headers: Record<string, string>; body: string } {
  return { headers: { 'X-ENGINE-APPLICATION-ID': id, 'Content-Type': 'application/json' }, body };
}

/** The `errorMessage` of an envelope answer. */
function errorMessage(json: unknown): string {
  return String((json as { errorMessage: unknown }).errorMessage);
}

describe('http.rateLimits by application ID', () => {
  it('answers 429 with Retry-After and the RateLimit headers to the tenant over its limit, and 200 to the one under it', async () => {
    // 5 requests per window of 50 s: the test never outlives a window, however busy the machine.
    const { url, origin } = await started({
      http: {
        applicationIds: TENANTS,
        rateLimits: [{ key: 'applicationId', requestsPerSecond: 0.1, burst: 5 }],
      },
    });
    const a = [];
    for (let i = 0; i < 8; i++) a.push(await send(url, asTenant('tenant-a')));
    const b = [];
    for (let i = 0; i < 5; i++) b.push(await send(url, asTenant('tenant-b')));

    expect(a.map((answer) => answer.status)).toEqual([200, 200, 200, 200, 200, 429, 429, 429]);
    expect(b.map((answer) => answer.status)).toEqual([200, 200, 200, 200, 200]);
    for (const refused of a.slice(5)) {
      const retryAfter = Number(refused.headers['retry-after']);
      expect(Number.isInteger(retryAfter)).toBe(true);
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(50);
      expect(refused.headers['ratelimit-policy']).toBe('"applicationId";q=5;w=50');
      expect(refused.headers['ratelimit']).toMatch(/^"applicationId";r=0;t=(\d+)$/);
      // The draft: Retry-After does not end before the effective window does.
      const t = Number(/t=(\d+)/.exec(String(refused.headers['ratelimit']))![1]);
      expect(retryAfter).toBeGreaterThanOrEqual(t);
      expect(refused.headers['content-type']).toMatch(/^application\/json/);
      expect(refused.json).toMatchObject({ httpStatusCode: 429, data: [], error: [] });
      expect(errorMessage(refused.json)).toMatch(/^ORIGIN_HTTP_RATE_LIMITED - /);
      // The application ID is a shared secret: the answer never names it.
      expect(refused.text).not.toContain('tenant-a');
    }
    // Answers under the limit carry the headers too, counting down.
    expect(b.map((answer) => /r=(\d+)/.exec(String(answer.headers['ratelimit']))?.[1])).toEqual([
      '4',
      '3',
      '2',
      '1',
      '0',
    ]);
    const metrics = origin.metrics();
    expect(metrics.rateLimitedByKey).toEqual({ applicationId: 3, user: 0, clientAddress: 0 });
    expect(metrics.rejectedByReason.ORIGIN_HTTP_RATE_LIMITED).toBe(3);
    expect(metrics.requests.byStatus).toEqual({ '200': 10, '429': 3 });
    expect(metrics.inFlight).toBe(0);
    expect(metrics.queued).toBe(0);
    // The same count in the Prometheus exposition, by key kind (docs/metrics.md).
    expect(origin.metrics({ format: 'prometheus' })).toContain(
      'rest_origin_rate_limited_total{origin="REST Service 1",key="applicationId"} 3',
    );
  });

  it('refuses a limited request before admission: it holds no slot and no queue place', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const { url, origin } = await started(
      {
        http: {
          applicationIds: TENANTS,
          maxConcurrentRequests: 1,
          queueSize: 0,
          rateLimits: [{ key: 'applicationId', requestsPerSecond: 0.1, burst: 1 }],
        },
      },
      holdingPipeline(gate),
    );
    // tenant-b holds the only slot, and there is no queue: a request that reached admission would get 503.
    const held = send(url, asTenant('tenant-b', '{"hold":true}'));
    await until(() => origin.metrics().inFlight === 1);
    const first = await send(url, asTenant('tenant-a'));
    expect(first.status).toBe(503);
    const second = await send(url, asTenant('tenant-a'));
    expect(second.status).toBe(429);
    release();
    expect((await held).status).toBe(200);
  });

  it('sends no RateLimit headers when no limit is configured', async () => {
    const { url } = await started({ http: { applicationIds: TENANTS } });
    const answer = await send(url, asTenant('tenant-a'));
    expect(answer.status).toBe(200);
    expect(answer.headers['ratelimit']).toBeUndefined();
    expect(answer.headers['ratelimit-policy']).toBeUndefined();
  });

  it('rounds Retry-After up to a whole second, never 0, for a window shorter than a second', async () => {
    // 1 request per 100 ms.
    const { url } = await started({
      http: {
        applicationIds: TENANTS,
        rateLimits: [{ key: 'applicationId', requestsPerSecond: 10, burst: 1 }],
      },
    });
    let refused: Awaited<ReturnType<typeof send>> | undefined;
    for (let i = 0; i < 20 && refused === undefined; i++) {
      const answer = await send(url, asTenant('tenant-a'));
      if (answer.status === 429) refused = answer;
    }
    expect(refused).toBeDefined();
    expect(refused!.headers['retry-after']).toBe('1');
    expect(refused!.headers['ratelimit-policy']).toBe('"applicationId";q=1;w=1');
    expect(refused!.headers['ratelimit']).toBe('"applicationId";r=0;t=1');
  });
});

describe('http.rateLimits bytesPerSecond', () => {
  const config = {
    http: {
      applicationIds: TENANTS,
      rateLimits: [
        { key: 'applicationId' as const, requestsPerSecond: 1000, burst: 1000, bytesPerSecond: 1000 },
      ],
    },
  };

  it('charges the declared Content-Length: a body past the allowance passes once, then the tenant waits', async () => {
    const { url, origin } = await started(config);
    const body = JSON.stringify({ pad: 'x'.repeat(590) });
    expect(Buffer.byteLength(body)).toBeGreaterThan(590);
    const first = await send(url, asTenant('tenant-a', body));
    const second = await send(url, asTenant('tenant-a', body));
    const third = await send(url, asTenant('tenant-a', body));
    const other = await send(url, asTenant('tenant-b', body));
    expect([first.status, second.status, third.status, other.status]).toEqual([200, 200, 429, 200]);
    expect(third.headers['ratelimit-policy']).toBe(
      '"applicationId";q=1000;w=1, "applicationId-bytes";q=1000;qu="content-bytes";w=1',
    );
    expect(third.headers['ratelimit']).toMatch(/"applicationId-bytes";r=0;t=[12]$/);
    expect(Number(third.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(errorMessage(third.json)).toContain('policy "applicationId-bytes"');
    expect(origin.metrics().rateLimitedByKey.applicationId).toBe(1);
  });

  it('charges a chunked body with its bytes once read: the next request waits until the debt is paid', async () => {
    const { url } = await started(config);
    // Ten objects of 500 bytes (JSON's maxObjectLengthChars is 4096).
    const body = `${JSON.stringify({ pad: 'x'.repeat(489) })}\n`.repeat(10);
    expect(Buffer.byteLength(body)).toBe(5000);
    const chunked = await request(url, {
      method: 'POST',
      headers: asTenant('tenant-a').headers,
      body: Readable.from([Buffer.from(body.slice(0, 2000)), Buffer.from(body.slice(2000))]),
    });
    expect(chunked.statusCode).toBe(200);
    await chunked.body.text();
    const next = await send(url, asTenant('tenant-a'));
    expect(next.status).toBe(429);
    // About 4 s of debt at 1000 bytes per second, plus what was left of the window.
    expect(Number(next.headers['retry-after'])).toBeGreaterThanOrEqual(4);
    expect(Number(next.headers['retry-after'])).toBeLessThanOrEqual(6);
  });
});

describe('http.rateLimits by client address', () => {
  it('limits each client address on its own', async () => {
    const { url, origin } = await started({
      http: { rateLimits: [{ key: 'clientAddress', requestsPerSecond: 0.1, burst: 2 }] },
    });
    // Linux routes all of 127.0.0.0/8 to loopback: a client bound to 127.0.0.2 is another address.
    const from = (localAddress: string): Promise<number> =>
      new Promise((resolve, reject) => {
        const outgoing = httpRequest(url, { method: 'POST', localAddress, agent: false }, (answer) => {
          answer.resume();
          answer.on('end', () => resolve(answer.statusCode ?? 0));
        });
        outgoing.on('error', reject);
        outgoing.end('{"a":1}');
      });
    const first = [await from('127.0.0.1'), await from('127.0.0.1'), await from('127.0.0.1')];
    const second = [await from('127.0.0.2'), await from('127.0.0.2')];
    expect(first).toEqual([200, 200, 429]);
    expect(second).toEqual([200, 200]);
    expect(origin.metrics().rateLimitedByKey).toEqual({ applicationId: 0, user: 0, clientAddress: 1 });
  });
});

describe('http.rateLimits by client address behind a trusted proxy', () => {
  it("limits the address the proxy's X-Forwarded-For names, not the proxy's own", async () => {
    const { url } = await started({
      http: {
        trustedProxies: ['127.0.0.1'],
        rateLimits: [{ key: 'clientAddress', requestsPerSecond: 0.1, burst: 1 }],
      },
    });
    const via = async (client: string): Promise<number> =>
      (await send(url, { body: '{"a":1}', headers: { 'X-Forwarded-For': client } })).status;
    expect([await via('203.0.113.7'), await via('203.0.113.7'), await via('198.51.100.2')]).toEqual([
      200, 429, 200,
    ]);
  });
});

describe('http.maxConcurrentRequestsPerKey by application ID', () => {
  it("admits another tenant's request while one tenant holds its share of the slots", async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const { url, origin } = await started(
      {
        http: {
          applicationIds: TENANTS,
          maxConcurrentRequests: 4,
          queueSize: 20,
          maxConcurrentRequestsPerKey: { key: 'applicationId', limit: 2 },
        },
      },
      holdingPipeline(gate),
    );
    // tenant-a: 2 requests hold slots, 2 wait (its queue share), the fifth is refused at once.
    const held = Array.from({ length: 4 }, () => send(url, asTenant('tenant-a', '{"hold":true}')));
    await until(() => origin.metrics().inFlight === 2 && origin.metrics().queued === 2);
    const busy = await send(url, asTenant('tenant-a', '{"hold":true}'));
    expect(busy.status).toBe(429);
    expect(busy.headers['retry-after']).toBe('1');
    expect(busy.headers['ratelimit-policy']).toBe('"applicationId-concurrency";q=2;qu="concurrent-requests"');
    expect(busy.headers['ratelimit']).toBe('"applicationId-concurrency";r=0');
    expect(errorMessage(busy.json)).toMatch(/^ORIGIN_HTTP_TENANT_BUSY - /);

    // Two slots are still free, and tenant-a's waiting requests may not take them: tenant-b is answered now.
    const other = await Promise.all([send(url, asTenant('tenant-b')), send(url, asTenant('tenant-b'))]);
    expect(other.map((answer) => answer.status)).toEqual([200, 200]);
    expect(origin.metrics().inFlight).toBe(2);
    expect(origin.metrics().queued).toBe(2);

    release();
    expect((await Promise.all(held)).map((answer) => answer.status)).toEqual([200, 200, 200, 200]);
    const metrics = origin.metrics();
    expect(metrics.rateLimitedByKey.applicationId).toBe(1);
    expect(metrics.rejectedByReason.ORIGIN_HTTP_TENANT_BUSY).toBe(1);
    expect(metrics.inFlight).toBe(0);
  });

  it('without it, one tenant takes every slot and the other waits (the case the option is for)', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const { url, origin } = await started(
      { http: { applicationIds: TENANTS, maxConcurrentRequests: 4, queueSize: 20 } },
      holdingPipeline(gate),
    );
    const held = Array.from({ length: 4 }, () => send(url, asTenant('tenant-a', '{"hold":true}')));
    await until(() => origin.metrics().inFlight === 4);
    let answered = false;
    const other = send(url, asTenant('tenant-b')).then((answer) => {
      answered = true;
      return answer;
    });
    await until(() => origin.metrics().queued === 1);
    expect(answered).toBe(false);
    release();
    expect((await other).status).toBe(200);
    await Promise.all(held);
  });
});

describe('http.rateLimits configuration', () => {
  it.each([
    [
      { rateLimits: [{ key: 'applicationId', requestsPerSecond: 0, burst: 1 }] },
      '/http/rateLimits/0/requestsPerSecond',
    ],
    [
      { rateLimits: [{ key: 'applicationId', requestsPerSecond: -5, burst: 1 }] },
      '/http/rateLimits/0/requestsPerSecond',
    ],
    [{ rateLimits: [{ key: 'applicationId', requestsPerSecond: 5, burst: 0 }] }, '/http/rateLimits/0/burst'],
    [
      { rateLimits: [{ key: 'applicationId', requestsPerSecond: 5, burst: 1.5 }] },
      '/http/rateLimits/0/burst',
    ],
    [
      { rateLimits: [{ key: 'applicationId', requestsPerSecond: 5, burst: 5, bytesPerSecond: 0 }] },
      '/http/rateLimits/0/bytesPerSecond',
    ],
    [{ rateLimits: [{ key: 'tenant', requestsPerSecond: 5, burst: 5 }] }, '/http/rateLimits/0/key'],
    [{ rateLimits: [{ key: 'applicationId', burst: 5 }] }, '/http/rateLimits/0/requestsPerSecond'],
    [
      { rateLimits: [{ key: 'applicationId', requestsPerSecond: 5, burst: 5, extra: 1 }] },
      '/http/rateLimits/0/extra',
    ],
    [
      { maxConcurrentRequestsPerKey: { key: 'applicationId', limit: 0 } },
      '/http/maxConcurrentRequestsPerKey/limit',
    ],
    [{ maxConcurrentRequestsPerKey: { key: 'host', limit: 2 } }, '/http/maxConcurrentRequestsPerKey/key'],
  ])('refuses %j naming %s', (http, path) => {
    const problems = configProblems({ applicationIds: TENANTS, ...http });
    expect(problems.map((problem) => problem.path)).toContain(path);
  });

  it('refuses keys every request would share, two limits of one key, and a per-key limit that limits nothing', () => {
    expect(
      configProblems({ rateLimits: [{ key: 'applicationId', requestsPerSecond: 1, burst: 1 }] }),
    ).toEqual([
      {
        path: '/http/rateLimits/0/key',
        message: "is 'applicationId' but http.applicationIds is empty: every request would share one tenant",
      },
    ]);
    expect(configProblems({ maxConcurrentRequestsPerKey: { key: 'user', limit: 2 } })[0]?.message).toMatch(
      /^is 'user' but no authentication method is on/,
    );
    expect(
      configProblems({
        rateLimits: [
          { key: 'clientAddress', requestsPerSecond: 1, burst: 1 },
          { key: 'clientAddress', requestsPerSecond: 2, burst: 2 },
        ],
      }),
    ).toEqual([
      { path: '/http/rateLimits/1/key', message: "repeats key 'clientAddress': give each key one limit" },
    ]);
    expect(
      configProblems({
        maxConcurrentRequests: 4,
        maxConcurrentRequestsPerKey: { key: 'clientAddress', limit: 4 },
      }),
    ).toEqual([
      {
        path: '/http/maxConcurrentRequestsPerKey/limit',
        message: 'must be less than http.maxConcurrentRequests (4), or it limits nothing',
      },
    ]);
  });
});

/** The problems `new Origin` reports for these `http` options (none: `[]`). */
function configProblems(http: Record<string, unknown>): Array<{ path: string; message: string }> {
  try {
    resolveConfig({ http, dataFormat: { format: 'json' } }, defaultRegistry);
    return [];
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    return error.problems.map(({ path, message }) => ({ path, message }));
  }
}

/** Echoes each batch, once `gate` opens for a body that asks to be held (`{"hold":true}`). */
function holdingPipeline(gate: Promise<void>): Pipeline {
  return async (batch: Batch) => {
    const value = batch.records[0]?.value as { hold?: boolean } | undefined;
    if (value?.hold === true) await gate;
    new SendResponse().write(batch);
  };
}

async function until(condition: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

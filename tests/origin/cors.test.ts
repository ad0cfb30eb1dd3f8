import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { createServer } from 'node:net';
import {
  ConfigError,
  InProcessRunnerPool,
  Origin,
  echoPipeline,
  type OriginConfigInput,
  type Pipeline,
} from 'rest-service-origin';
import { createTestOrigin, type TestOrigin } from 'rest-service-origin/testing';
import { makeTlsMaterial } from '../tls/tls-material';

const PAGE = 'http://127.0.0.1:5173';
const OTHER_PAGE = 'http://127.0.0.1:6000';

function corsConfig(
  cors: Record<string, unknown> = {},
  http: Record<string, unknown> = {},
): OriginConfigInput {
  return {
    dataFormat: { format: 'json' },
    http: {
      applicationIds: ['shop'],
      maxRequestSizeMb: 1,
      ...http,
      cors: { enabled: true, allowedOrigins: [PAGE], exposedHeaders: ['traceparent'], ...cors },
    },
  };
}

function preflight(origin: string, method = 'POST', headers = 'content-type, x-engine-application-id') {
  return {
    method: 'OPTIONS',
    path: '/orders',
    headers: {
      Origin: origin,
      'Access-Control-Request-Method': method,
      ...(headers === '' ? {} : { 'Access-Control-Request-Headers': headers }),
    },
  };
}

describe('CORS (http.cors)', () => {
  let test: TestOrigin;
  const seen: string[] = [];
  const pipeline: Pipeline = (batch, context) => {
    seen.push(batch.request?.method ?? '');
    return echoPipeline(batch, context);
  };

  beforeEach(() => {
    seen.length = 0;
    test = createTestOrigin(corsConfig(), pipeline);
  });
  afterEach(() => test.close());

  it('answers an allowed preflight with 204 and the CORS headers, without an application ID or the pipeline', async () => {
    const answer = await test.inject(preflight(PAGE));
    expect(answer.status).toBe(204);
    expect(answer.body).toBe('');
    expect(answer.headers['access-control-allow-origin']).toBe(PAGE);
    expect(answer.headers['access-control-allow-methods']).toBe('POST');
    expect(answer.headers['access-control-allow-headers']).toBe('content-type, x-engine-application-id');
    expect(answer.headers['access-control-max-age']).toBe('600');
    expect(answer.headers['access-control-allow-credentials']).toBeUndefined();
    expect(answer.headers['vary']).toBe(
      'Origin, Access-Control-Request-Method, Access-Control-Request-Headers',
    );
    expect(answer.batches).toHaveLength(0);
    expect(seen).toEqual([]);
    expect(test.origin.metrics().requests.byStatus['204']).toBe(1);
  });

  it.each([
    ['an origin not in allowedOrigins', preflight(OTHER_PAGE), "origin 'http://127.0.0.1:6000'"],
    ['a method not in allowedMethods', preflight(PAGE, 'PROPFIND'), "method 'PROPFIND'"],
    ['a header not in allowedHeaders', preflight(PAGE, 'PUT', 'content-type, x-secret'), "header 'x-secret'"],
  ])(
    'refuses a preflight from %s with 403 and no Access-Control-Allow-Origin',
    async (_case, request, why) => {
      const answer = await test.inject(request);
      expect(answer.status).toBe(403);
      expect(answer.headers['access-control-allow-origin']).toBeUndefined();
      const body = answer.json<{ errorMessage: string }>();
      expect(body.errorMessage).toContain('ORIGIN_CORS_PREFLIGHT_REFUSED');
      expect(body.errorMessage).toContain(why);
      expect(seen).toEqual([]);
    },
  );

  it('lets GET, HEAD and POST through a preflight whatever allowedMethods says (Fetch standard)', async () => {
    await test.close();
    test = createTestOrigin(corsConfig({ allowedMethods: ['PUT'] }), pipeline);
    expect((await test.inject(preflight(PAGE, 'POST'))).status).toBe(204);
    expect((await test.inject(preflight(PAGE, 'DELETE'))).status).toBe(403);
  });

  it('adds the CORS headers to a successful answer to an allowed origin', async () => {
    const answer = await test.inject({
      path: '/orders',
      headers: { Origin: PAGE, 'X-ENGINE-APPLICATION-ID': 'shop', 'Content-Type': 'application/json' },
      body: '{"id":1}',
    });
    expect(answer.status).toBe(200);
    expect(answer.headers['access-control-allow-origin']).toBe(PAGE);
    expect(answer.headers['access-control-expose-headers']).toBe('traceparent');
    expect(answer.headers['vary']).toBe('Origin');
    expect(answer.batches).toHaveLength(1);
  });

  it('sends only Vary: Origin to another origin, and to a request without Origin', async () => {
    for (const headers of [{ Origin: OTHER_PAGE }, {}] as Record<string, string>[]) {
      const answer = await test.inject({
        path: '/orders',
        headers: { ...headers, 'X-ENGINE-APPLICATION-ID': 'shop' },
        body: '{"id":1}',
      });
      expect(answer.status).toBe(200);
      expect(answer.headers['access-control-allow-origin']).toBeUndefined();
      expect(answer.headers['access-control-expose-headers']).toBeUndefined();
      expect(answer.headers['vary']).toBe('Origin');
    }
  });

  it.each([
    ['403 without an application ID', {}, undefined, 403],
    ['403 with a wrong application ID', { 'X-ENGINE-APPLICATION-ID': 'nope' }, undefined, 403],
    ['405 for TRACE', { 'X-ENGINE-APPLICATION-ID': 'shop' }, 'TRACE', 405],
    [
      '413 for a declared body over the limit',
      { 'X-ENGINE-APPLICATION-ID': 'shop', 'Content-Length': '2000001' },
      undefined,
      413,
    ],
    [
      '415 for an unknown Content-Encoding',
      { 'X-ENGINE-APPLICATION-ID': 'shop', 'Content-Encoding': 'br' },
      undefined,
      415,
    ],
  ])('adds the CORS headers to a rejection: %s', async (_case, headers, method, status) => {
    const answer = await test.inject({
      method: method ?? 'POST',
      path: '/orders',
      headers: { Origin: PAGE, ...headers },
      ...(status === 413 ? {} : { body: '{"id":1}' }),
    });
    expect(answer.status).toBe(status);
    expect(answer.headers['access-control-allow-origin']).toBe(PAGE);
    expect(answer.headers['vary']).toBe('Origin');
  });

  it('adds the CORS headers to the 503 of a closing origin, and to a 500 of a failing pipeline', async () => {
    await test.close();
    test = createTestOrigin(corsConfig(), () => {
      throw new Error('broken stage');
    });
    const failed = await test.inject({
      path: '/',
      headers: { Origin: PAGE, 'X-ENGINE-APPLICATION-ID': 'shop' },
      body: '{}',
    });
    expect(failed.status).toBe(500);
    expect(failed.headers['access-control-allow-origin']).toBe(PAGE);
    let release: () => void = () => undefined;
    await test.close();
    test = createTestOrigin(corsConfig(), () => new Promise<void>((resolve) => (release = resolve)));
    const running = test.inject({ headers: { Origin: PAGE, 'X-ENGINE-APPLICATION-ID': 'shop' }, body: '{}' });
    await new Promise((resolve) => setTimeout(resolve, 20));
    const closing = test.close();
    const refused = await test.inject({
      headers: { Origin: PAGE, 'X-ENGINE-APPLICATION-ID': 'shop' },
      body: '{}',
    });
    release();
    await running;
    await closing;
    expect(refused.status).toBe(503);
    expect(refused.headers['access-control-allow-origin']).toBe(PAGE);
    expect(refused.headers['retry-after']).toBe('1');
  });

  it('sends an OPTIONS request that is not a preflight to the pipeline, with the CORS headers', async () => {
    const answer = await test.inject({
      method: 'OPTIONS',
      path: '/orders',
      headers: { Origin: PAGE, 'X-ENGINE-APPLICATION-ID': 'shop' },
    });
    expect(answer.status).toBe(200);
    expect(seen).toEqual(['OPTIONS']);
    expect(answer.headers['access-control-allow-origin']).toBe(PAGE);
  });

  it("answers '*' to any origin without credentials, and echoes the origin with credentials", async () => {
    await test.close();
    test = createTestOrigin(corsConfig({ allowedOrigins: ['*'] }), pipeline);
    const any = await test.inject(preflight(OTHER_PAGE));
    expect(any.headers['access-control-allow-origin']).toBe('*');
    await test.close();
    test = createTestOrigin(corsConfig({ allowCredentials: true }), pipeline);
    const credentialed = await test.inject({
      path: '/',
      headers: { Origin: PAGE, 'X-ENGINE-APPLICATION-ID': 'shop' },
      body: '{}',
    });
    expect(credentialed.headers['access-control-allow-origin']).toBe(PAGE);
    expect(credentialed.headers['access-control-allow-credentials']).toBe('true');
  });

  it("allows any requested header with '*' in allowedHeaders", async () => {
    await test.close();
    test = createTestOrigin(corsConfig({ allowedHeaders: ['*'] }), pipeline);
    const answer = await test.inject(preflight(PAGE, 'PUT', 'x-anything, content-type'));
    expect(answer.status).toBe(204);
    expect(answer.headers['access-control-allow-headers']).toBe('x-anything, content-type');
  });

  it('sends no CORS header at all when http.cors is off (the default)', async () => {
    await test.close();
    test = createTestOrigin({ dataFormat: { format: 'json' } }, pipeline);
    const answer = await test.inject(preflight(PAGE));
    expect(answer.status).toBe(200);
    expect(seen).toEqual(['OPTIONS']);
    expect(answer.headers['access-control-allow-origin']).toBeUndefined();
    expect(answer.headers['vary']).toBeUndefined();
  });
});

describe('CORS with basic authentication', () => {
  const material = makeTlsMaterial();
  afterAll(() => material.remove());

  it('answers a preflight without credentials, and adds the CORS headers to the 401 and its challenge', async () => {
    const test = createTestOrigin(
      {
        ...corsConfig({}, { applicationIds: [] }),
        general: { resourcesDirectory: material.dir },
        tls: {
          useTls: true,
          keystoreType: 'pem',
          keystoreFile: material.files.pemKeystore,
          basicAuthenticationUsers: [{ user: 'alice', password: 'a long password' }],
        },
      },
      echoPipeline,
    );
    try {
      const allowed = await test.inject(preflight(PAGE, 'POST', 'authorization, content-type'));
      expect(allowed.status).toBe(204);
      const unauthenticated = await test.inject({ headers: { Origin: PAGE }, body: '{}' });
      expect(unauthenticated.status).toBe(401);
      expect(unauthenticated.headers['www-authenticate']).toMatch(/^Basic realm=/);
      expect(unauthenticated.headers['access-control-allow-origin']).toBe(PAGE);
      const authorization = `Basic ${Buffer.from('alice:a long password').toString('base64')}`;
      const ok = await test.inject({ headers: { Origin: PAGE, Authorization: authorization }, body: '{}' });
      expect(ok.status).toBe(200);
      expect(ok.headers['access-control-allow-origin']).toBe(PAGE);
    } finally {
      await test.close();
    }
  });
});

describe('CORS config', () => {
  const runners = new InProcessRunnerPool(10, echoPipeline);
  afterAll(() => runners.close());

  function problems(cors: Record<string, unknown>): string[] {
    try {
      new Origin({ dataFormat: { format: 'json' }, http: { cors } }, { runners });
    } catch (error) {
      if (error instanceof ConfigError) return error.problems.map((p) => `${p.path} ${p.message}`);
      throw error;
    }
    return [];
  }

  it('refuses every malformed origin with its path and the form to write', () => {
    expect(
      problems({
        enabled: true,
        allowedOrigins: [
          'https://shop.example/',
          'HTTPS://Shop.example',
          'http://a.example:80',
          'null',
          'shop',
        ],
      }),
    ).toEqual([
      "/http/cors/allowedOrigins/0 'https://shop.example/' is not written as a browser sends it in Origin: write 'https://shop.example'",
      "/http/cors/allowedOrigins/1 'HTTPS://Shop.example' is not written as a browser sends it in Origin: write 'https://shop.example'",
      "/http/cors/allowedOrigins/2 'http://a.example:80' is not written as a browser sends it in Origin: write 'http://a.example'",
      "/http/cors/allowedOrigins/3 'null' is not an origin: write scheme://host[:port] (e.g. https://shop.example), or '*'",
      "/http/cors/allowedOrigins/4 'shop' is not an origin: write scheme://host[:port] (e.g. https://shop.example), or '*'",
    ]);
  });

  it("refuses allowCredentials with '*', and enabled without origins", () => {
    expect(problems({ enabled: true, allowedOrigins: ['*'], allowCredentials: true })).toEqual([
      "/http/cors/allowCredentials cannot be true with '*' in allowedOrigins: every site could then make requests with its visitors' credentials; list the origins instead",
    ]);
    expect(problems({ enabled: true })).toEqual([
      '/http/cors/allowedOrigins needs at least one origin when enabled is true',
    ]);
    expect(problems({ enabled: false, allowedOrigins: ['not checked while off'] })).toEqual([]);
  });
});

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

function send(
  port: number,
  method: string,
  headers: Record<string, string>,
): Promise<{ status: number; headers: IncomingHttpHeaders }> {
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest({ host: '127.0.0.1', port, method, path: '/', headers, agent: false });
    outgoing.on('error', reject);
    outgoing.on('response', (answer) => {
      answer.resume();
      answer.on('end', () => resolve({ status: answer.statusCode!, headers: answer.headers }));
    });
    outgoing.end();
  });
}

describe('CORS on a port shared by application IDs', () => {
  it('answers a preflight (which carries no application ID) by the origin whose rules allow its page', async () => {
    const port = await freePort();
    const runners = new InProcessRunnerPool(20, echoPipeline);
    const first = new Origin(
      { dataFormat: { format: 'json' }, http: { host: '127.0.0.1', port, applicationIds: ['a'] } },
      { runners },
    );
    const second = new Origin(corsConfig({}, { host: '127.0.0.1', port, applicationIds: ['b'] }), {
      runners,
    });
    await first.start();
    await second.start();
    try {
      const allowed = await send(port, 'OPTIONS', preflight(PAGE).headers);
      expect(allowed.status).toBe(204);
      expect(allowed.headers['access-control-allow-origin']).toBe(PAGE);
      const other = await send(port, 'OPTIONS', preflight(OTHER_PAGE).headers);
      expect(other.status).toBe(403);
      expect(other.headers['access-control-allow-origin']).toBeUndefined();
      // A request no origin of the port claims is refused by the port's first origin, which has no CORS here.
      const unrouted = await send(port, 'POST', { Origin: PAGE, 'X-ENGINE-APPLICATION-ID': 'nope' });
      expect(unrouted.status).toBe(403);
      expect(unrouted.headers['access-control-allow-origin']).toBeUndefined();
      const routed = await send(port, 'POST', { Origin: PAGE, 'X-ENGINE-APPLICATION-ID': 'b' });
      expect(routed.headers['access-control-allow-origin']).toBe(PAGE);
    } finally {
      await first.close();
      await second.close();
      await runners.close();
    }
  });

  it("adds the first origin's CORS headers to the refusal of a request no origin of the port claims", async () => {
    const port = await freePort();
    const runners = new InProcessRunnerPool(20, echoPipeline);
    const first = new Origin(corsConfig({}, { host: '127.0.0.1', port, applicationIds: ['a'] }), { runners });
    const second = new Origin(
      { dataFormat: { format: 'json' }, http: { host: '127.0.0.1', port, applicationIds: ['b'] } },
      { runners },
    );
    await first.start();
    await second.start();
    try {
      for (const id of ['nope', undefined]) {
        const headers: Record<string, string> = { Origin: PAGE };
        if (id !== undefined) headers['X-ENGINE-APPLICATION-ID'] = id;
        const unrouted = await send(port, 'POST', headers);
        expect(unrouted.status).toBe(403);
        expect(unrouted.headers['access-control-allow-origin']).toBe(PAGE);
        expect(unrouted.headers['vary']).toBe('Origin');
      }
    } finally {
      await first.close();
      await second.close();
      await runners.close();
    }
  });
});

import { constants, type ClientHttp2Session } from 'node:http2';
import { gzipSync } from 'node:zlib';
import { DataRecord, SendResponse, type Batch, type Pipeline } from 'rest-service-origin';
import {
  FLAG,
  FRAME,
  clientPreface,
  curl,
  frame,
  h2Request,
  h2Session,
  requestHeaderBlock,
  serverClose,
  tcpConnection,
} from './http2-client';
import { freePort, send, startOrigin, type TestConfig, type TestOrigin } from './origin-helpers';

const started: TestOrigin[] = [];
const sessions: ClientHttp2Session[] = [];

afterEach(async () => {
  for (const session of sessions.splice(0)) session.destroy();
  for (const origin of started.splice(0)) await origin.stop();
});

async function startH2(config: TestConfig = {}, pipeline?: Pipeline): Promise<TestOrigin> {
  const origin = await startOrigin({ ...config, http: { http2: true, ...config.http } }, pipeline);
  started.push(origin);
  return origin;
}

async function session(url: string): Promise<ClientHttp2Session> {
  const opened = await h2Session(url);
  sessions.push(opened);
  return opened;
}

function loopback(url: string): string {
  return url.replace(/\/\/[^:/]+:/, '//127.0.0.1:');
}

/** Answers every request with its header attributes, as one record. */
const attributesPipeline: Pipeline = (batch: Batch) => {
  new SendResponse().write(batch, [new DataRecord({ ...batch.request!.headers })]);
};

async function waitFor(check: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('HTTP/2 with prior knowledge beside HTTP/1.1 on one port (http.http2)', () => {
  it('answers node:http2, curl --http2-prior-knowledge and HTTP/1.1 clients on the same port', async () => {
    const { url } = await startH2();
    const base = loopback(url);
    const h2 = await h2Request(await session(base), { body: '{"over":"h2"}' });
    expect(h2.status).toBe(200);
    expect(h2.json).toEqual({ httpStatusCode: 200, data: [{ over: 'h2' }], error: [], errorMessage: null });
    expect(h2.headers).not.toHaveProperty('connection');

    const viaCurl = await curl([
      '--http2-prior-knowledge',
      '-w',
      '\n%{http_version} %{http_code}',
      '--data-binary',
      '{"c":1}',
      base,
    ]);
    expect(viaCurl.exitCode).toBe(0);
    expect(viaCurl.stdout).toMatch(/"data":\[\{"c":1\}\][\s\S]*\n2 200$/);

    const h1 = await send(base, { body: '{"over":"h1"}' });
    expect(h1.status).toBe(200);
    expect(h1.json).toMatchObject({ data: [{ over: 'h1' }] });
    const h1Curl = await curl([
      '--http1.1',
      '-w',
      '\n%{http_version} %{http_code}',
      '--data-binary',
      '{"d":1}',
      base,
    ]);
    expect(h1Curl.stdout).toMatch(/\n1\.1 200$/);
  });

  it('gives a pipeline the same header attributes on both protocols: no pseudo-headers, :authority as Host', async () => {
    const { url } = await startH2({}, attributesPipeline);
    const base = loopback(url);
    const headers = { 'x-trace': 'abc', 'content-type': 'application/json' };
    const h2 = await h2Request(await session(base), { path: '/in?q=1', body: '{}', headers });
    const h1 = await send(base, { path: '/in?q=1', body: '{}', headers });
    const h2Attributes = (h2.json as { data: Record<string, string>[] }).data[0]!;
    const h1Attributes = (h1.json as { data: Record<string, string>[] }).data[0]!;
    expect(Object.keys(h2Attributes).filter((name) => name.startsWith(':'))).toEqual([]);
    expect(h2Attributes).toMatchObject({
      method: 'POST',
      path: '/in',
      queryString: 'q=1',
      remoteHost: '127.0.0.1',
      Host: new URL(base).host,
      'x-trace': 'abc',
    });
    // undici spells it `host`; curl and browsers `Host`, the name HTTP/2's :authority gets.
    expect(h1Attributes).toMatchObject({ host: h2Attributes['Host'], path: '/in', 'x-trace': 'abc' });
  });

  it('applies application IDs, limits and the envelope to each stream as to an HTTP/1.1 request', async () => {
    const { url } = await startH2({ http: { applicationIds: ['app-a'], maxRequestSizeMb: 1 } });
    const h2 = await session(loopback(url));
    const missing = await h2Request(h2, { body: '{}' });
    expect(missing.status).toBe(403);
    expect(missing.json).toMatchObject({
      httpStatusCode: 403,
      errorMessage: expect.stringMatching(/^ORIGIN_APP_ID_MISSING/),
    });
    const tooLarge = await h2Request(h2, {
      body: 'x'.repeat(1_000_001),
      headers: { 'x-engine-application-id': 'app-a' },
    });
    expect(tooLarge.status).toBe(413);
    const good = await h2Request(h2, {
      body: '{"ok":true}',
      headers: { 'x-engine-application-id': 'app-a' },
    });
    expect(good.status).toBe(200);
    const gzipped = await h2Request(h2, {
      body: gzipSync('{"zipped":true}'),
      headers: { 'x-engine-application-id': 'app-a', 'content-encoding': 'gzip' },
    });
    expect(gzipped.json).toMatchObject({ httpStatusCode: 200, data: [{ zipped: true }] });
    // The session survived the refusals.
    expect(h2.closed).toBe(false);
  });

  it('admits streams, not connections: streams beyond the slots and queue of one connection get 503', async () => {
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    const slow: Pipeline = async (batch) => {
      await held;
      new SendResponse().write(batch);
    };
    const { url, origin } = await startH2({ http: { maxConcurrentRequests: 2, queueSize: 1 } }, slow);
    const h2 = await session(loopback(url));
    const answers = Array.from({ length: 5 }, (_, i) => h2Request(h2, { body: `{"n":${i}}` }));
    await waitFor(() => origin.metrics().inFlight === 2 && origin.metrics().queued === 1);
    release();
    const statuses = (await Promise.all(answers)).map((answer) => answer.status).sort();
    expect(statuses).toEqual([200, 200, 200, 503, 503]);
    expect(origin.metrics()).toMatchObject({ inFlight: 0, queued: 0 });
  });

  it('announces http2MaxConcurrentStreams (100 by default) to its clients', async () => {
    const { url } = await startH2();
    const h2 = await session(loopback(url));
    await waitFor(() => h2.remoteSettings.maxConcurrentStreams !== undefined);
    expect(h2.remoteSettings.maxConcurrentStreams).toBe(100);
    const other = await startH2({ http: { http2MaxConcurrentStreams: 7 } });
    const h2Other = await session(loopback(other.url));
    await waitFor(() => h2Other.remoteSettings.maxConcurrentStreams === 7);
  });

  it('drains like HTTP/1.1: every stream opened before close() is answered 200, running or queued', async () => {
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    const slow: Pipeline = async (batch) => {
      await held;
      new SendResponse().write(batch);
    };
    const { url, origin } = await startH2({ http: { maxConcurrentRequests: 4 } }, slow);
    const clients = [await session(loopback(url)), await session(loopback(url))];
    const answers = clients.flatMap((h2, c) =>
      Array.from({ length: 10 }, (_, i) => h2Request(h2, { body: `{"c":${c},"i":${i}}` })),
    );
    await waitFor(() => origin.metrics().inFlight === 4 && origin.metrics().queued === 16);
    const closed = origin.close({ timeoutMs: 10_000 });
    release();
    const statuses = (await Promise.all(answers)).map((answer) => answer.status);
    expect(statuses).toEqual(Array(20).fill(200));
    await closed;
    expect(origin.metrics().requests.byStatus).toEqual({ '200': 20 });
  });

  it('shares a port by application ID over HTTP/2 with origins of the same HTTP/2 settings only', async () => {
    const port = await freePort();
    const first = await startH2({ http: { port, applicationIds: ['app-a'] } });
    const second = await startH2({ http: { port, applicationIds: ['app-b'] } });
    const h2 = await session(loopback(second.url));
    for (const [id, origin] of [
      ['app-a', first],
      ['app-b', second],
    ] as const) {
      const answer = await h2Request(h2, {
        body: `{"to":"${id}"}`,
        headers: { 'x-engine-application-id': id },
      });
      expect(answer.status).toBe(200);
      expect(origin.origin.metrics().requests.byOutcome.answered).toBe(1);
    }
    expect(
      (await h2Request(h2, { body: '{}', headers: { 'x-engine-application-id': 'app-c' } })).status,
    ).toBe(403);
    await expect(startOrigin({ http: { port, applicationIds: ['app-h1'] } })).rejects.toMatchObject({
      code: 'ORIGIN_LISTEN_PORT_SHARED',
      message: expect.stringMatching(/HTTP\/2 settings/),
    });
  });

  describe('a stream the client resets mid-body is an aborted request: nothing of it reaches the pipeline', () => {
    const multipleObjects: TestConfig = {
      general: { onRecordError: 'discard' },
      dataFormat: { format: 'json', json: { jsonContent: 'multipleObjects' } },
    };

    async function startRecording(config: TestConfig = {}): Promise<{
      origin: TestOrigin;
      batches: number[];
      release: () => void;
    }> {
      const batches: number[] = [];
      let release: () => void = () => undefined;
      const held = new Promise<void>((resolve) => (release = resolve));
      const recording: Pipeline = async (batch) => {
        batches.push(batch.records.length);
        if (batch.request?.headers['x-hold'] !== undefined) await held;
        new SendResponse().write(batch);
      };
      const origin = await startH2({ ...multipleObjects, ...config }, recording);
      return { origin, batches, release };
    }

    it('a reset without END_STREAM (node:http2 destroy), body cut inside its second record', async () => {
      const { origin, batches } = await startRecording();
      const h2 = await session(loopback(origin.url));
      const cancelled = 50;
      for (let i = 0; i < cancelled; i++) {
        await new Promise<void>((resolve) => {
          const stream = h2.request({ ':method': 'POST', ':path': '/' });
          stream.on('error', () => undefined);
          stream.on('close', () => resolve());
          stream.write('{"a":1}\n{"b":', () => setImmediate(() => stream.destroy(new Error('cancelled'))));
        });
      }
      const whole = await h2Request(h2, { body: '{"a":1}\n{"b":2}' });
      expect(whole.status).toBe(200);
      await waitFor(() => origin.origin.metrics().inFlight === 0);
      expect(batches).toEqual([2]);
      expect(origin.origin.metrics().rejectedByReason).toMatchObject({ ORIGIN_HTTP_BODY_ABORTED: cancelled });
    });

    // NO_ERROR too: Node ends such a stream as if its body were whole.
    it.each([
      ['CANCEL', 8, 21],
      ['NO_ERROR', 0, 5],
    ])('hand-made frames: HEADERS, DATA without END_STREAM, RST_STREAM %s', async (_, errorCode, streams) => {
      const { origin, batches } = await startRecording();
      const socket = await tcpConnection(origin.url);
      const closed = serverClose(socket);
      const authority = new URL(origin.url).host;
      const frames: Buffer[] = [clientPreface()];
      for (let id = 1; id < 2 * streams; id += 2) {
        frames.push(
          frame(FRAME.HEADERS, FLAG.END_HEADERS, id, requestHeaderBlock(authority)),
          frame(FRAME.DATA, 0, id, Buffer.from('{"a":1}\n{"b":')),
          frame(FRAME.RST_STREAM, 0, id, Buffer.from([0, 0, 0, errorCode])),
        );
      }
      socket.write(Buffer.concat(frames));
      await waitFor(
        () => (origin.origin.metrics().rejectedByReason.ORIGIN_HTTP_BODY_ABORTED ?? 0) === streams,
      );
      socket.end();
      await closed;
      expect(batches).toEqual([]);
      expect(origin.origin.metrics()).toMatchObject({ inFlight: 0, queued: 0 });
    });

    it('a reset after END_STREAM (node:http2 close) while the stream waits for a slot', async () => {
      const { origin, batches, release } = await startRecording({ http: { maxConcurrentRequests: 1 } });
      const h2 = await session(loopback(origin.url));
      const holder = h2Request(h2, { body: '{"first":1}', headers: { 'x-hold': '1' } });
      await waitFor(() => origin.origin.metrics().inFlight === 1);
      const cancelled = Array.from(
        { length: 10 },
        () =>
          new Promise<void>((resolve) => {
            const stream = h2.request({ ':method': 'POST', ':path': '/' });
            stream.on('error', () => undefined);
            stream.on('close', () => resolve());
            stream.write('{"a":1}\n{"b":', () => setImmediate(() => stream.close(constants.NGHTTP2_CANCEL)));
          }),
      );
      await Promise.all(cancelled);
      // The PING's answer comes after the server has taken every frame sent before it, the resets included.
      await new Promise<void>((resolve, reject) => h2.ping((error) => (error ? reject(error) : resolve())));
      release();
      expect((await holder).status).toBe(200);
      await waitFor(() => origin.origin.metrics().inFlight === 0 && origin.origin.metrics().queued === 0);
      expect(batches).toEqual([1]);
      expect((await h2Request(h2, { body: '{"after":1}' })).status).toBe(200);
    });
  });

  it('applies CORS, idempotency keys, rate limits and the metrics path to streams as to HTTP/1.1 requests', async () => {
    const page = 'https://page.example';
    const origin = await startH2({
      http: {
        applicationIds: ['shop'],
        cors: { enabled: true, allowedOrigins: [page] },
        idempotency: {},
        // 3 requests per window of 30 s: the test never outlives a window.
        rateLimits: [{ key: 'applicationId', requestsPerSecond: 0.1, burst: 3 }],
        metricsPath: '/metrics',
      },
    });
    const h2 = await session(loopback(origin.url));
    const preflight = await h2Request(h2, {
      method: 'OPTIONS',
      headers: { origin: page, 'access-control-request-method': 'POST' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers['access-control-allow-origin']).toBe(page);
    const keyed = { origin: page, 'x-engine-application-id': 'shop', 'idempotency-key': 'k1' };
    const first = await h2Request(h2, { body: '{"n":1}', headers: keyed });
    expect(first.status).toBe(200);
    expect(first.headers['access-control-allow-origin']).toBe(page);
    expect(first.headers['ratelimit-policy']).toBeDefined();
    const replayed = await h2Request(h2, { body: '{"n":1}', headers: keyed });
    expect(replayed.status).toBe(200);
    expect(replayed.headers['idempotent-replayed']).toBe('true');
    expect(replayed.json).toEqual(first.json);
    const third = await h2Request(h2, { body: '{"n":3}', headers: { ...keyed, 'idempotency-key': 'k3' } });
    expect(third.status).toBe(200);
    const limited = await h2Request(h2, { body: '{"n":4}', headers: { ...keyed, 'idempotency-key': 'k4' } });
    expect(limited.status).toBe(429);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    const metrics = await h2Request(h2, { method: 'GET', path: '/metrics' });
    expect(metrics.status).toBe(200);
    expect(metrics.text).toMatch(/rest_origin_\w+/);
    const head = await h2Request(h2, { method: 'HEAD', path: '/metrics' });
    expect(head).toMatchObject({ status: 200, text: '' });
  });

  it('answers Expect: 100-continue with an interim 100 before the body, and any other expectation 417', async () => {
    const origin = await startH2();
    const h2 = await session(loopback(origin.url));
    const continued = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const stream = h2.request({ ':method': 'POST', ':path': '/', expect: '100-continue' });
      stream.on('error', reject);
      // The body goes only once the server said to go on, as a client that waits for 100 does.
      stream.on('continue', () => stream.end('{"after":"100"}'));
      let status = 0;
      let body = '';
      stream.on('response', (headers) => (status = Number(headers[':status'])));
      stream.setEncoding('utf8');
      stream.on('data', (chunk: string) => (body += chunk));
      stream.on('end', () => resolve({ status, body }));
    });
    expect(continued.status).toBe(200);
    expect(JSON.parse(continued.body)).toMatchObject({ data: [{ after: '100' }] });
    const other = await h2Request(h2, { body: '{}', headers: { expect: 'something-else' } });
    expect(other.status).toBe(417);
    expect(origin.origin.metrics().requests.byOutcome.answered).toBe(1);
  });

  it('on close() sends GOAWAY and answers the streams it had admitted', async () => {
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    const slow: Pipeline = async (batch) => {
      await held;
      new SendResponse().write(batch);
    };
    const { url, origin } = await startH2({}, slow);
    const h2 = await session(loopback(url));
    const goAway = new Promise<number>((resolve) => h2.once('goaway', (code: number) => resolve(code)));
    const admitted = h2Request(h2, { body: '{"admitted":true}' });
    await waitFor(() => origin.metrics().inFlight === 1);
    const closed = origin.close({ timeoutMs: 5000 });
    expect(await goAway).toBe(constants.NGHTTP2_NO_ERROR);
    release();
    const answer = await admitted;
    expect(answer.status).toBe(200);
    expect(answer.json).toMatchObject({ data: [{ admitted: true }] });
    await closed;
    expect(origin.state).toBe('closed');
  });
});

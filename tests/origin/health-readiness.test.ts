import { Client, request } from 'undici';
import {
  InProcessRunnerPool,
  Origin,
  echoPipeline,
  mergeMetricsSnapshots,
  type Batch,
  type Pipeline,
  type RunnerPool,
  type RunProgress,
} from 'rest-service-origin';

const PATHS = { metricsPath: '/metrics', healthPath: '/healthz', readinessPath: '/readyz' };

async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((resolve) => setTimeout(resolve, 5));
}

/** A pipeline that holds every batch until `release()`, then echoes it. */
function heldPipeline(): { pipeline: Pipeline; release(): void } {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  return {
    pipeline: async (batch, context) => {
      await gate;
      await echoPipeline(batch, context);
    },
    release: () => release(),
  };
}

async function probe(client: Client, path: string, method: 'GET' | 'HEAD' | 'POST' = 'GET') {
  const answer = await client.request({ path, method });
  const text = await answer.body.text();
  return { status: answer.statusCode, text, headers: answer.headers };
}

describe('http.healthPath and http.readinessPath', () => {
  const stops: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const stop of stops.splice(0).reverse()) await stop();
  });

  async function start(pipeline: Pipeline, runners?: RunnerPool) {
    const pool = new InProcessRunnerPool(1, pipeline, { runnerIdleTimeMs: 0 });
    stops.push(() => pool.close());
    const origin = new Origin(
      {
        http: {
          host: '127.0.0.1',
          port: 0,
          ...PATHS,
          maxConcurrentRequests: 1,
          queueSize: 1,
          applicationIds: ['k'],
        },
        dataFormat: { format: 'json' },
      },
      { runners: runners ?? pool },
    );
    stops.push(() => origin.destroy());
    const url = await origin.start();
    const client = new Client(new URL(url).origin);
    stops.push(() => client.close());
    return { origin, url, client };
  }

  it('answers readiness 503 while the admission queue is full and 200 again once it drains; health stays 200', async () => {
    const held = heldPipeline();
    const { origin, url, client } = await start(held.pipeline);
    stops.push(async () => held.release());
    expect(await probe(client, '/readyz')).toMatchObject({ status: 200, text: 'ready\n' });
    expect(await probe(client, '/healthz')).toMatchObject({ status: 200, text: 'ok\n' });
    const send = () =>
      request(url, { method: 'POST', body: '{}', headers: { 'X-ENGINE-APPLICATION-ID': 'k' } });
    const first = send();
    await until(() => origin.metrics().inFlight === 1);
    // One slot held, the queue (of one) still has room: a request would still be taken.
    expect((await probe(client, '/readyz')).status).toBe(200);
    const second = send();
    await until(() => origin.metrics().queued === 1);
    expect(await probe(client, '/readyz')).toMatchObject({
      status: 503,
      text: 'not ready: admission queue full\n',
    });
    expect((await probe(client, '/healthz')).status).toBe(200);
    held.release();
    for (const answer of await Promise.all([first, second])) {
      expect(answer.statusCode).toBe(200);
      await answer.body.dump();
    }
    await until(() => origin.metrics().inFlight === 0);
    expect((await probe(client, '/readyz')).status).toBe(200);
    // Probes never reach the pipeline, and are not requests of the metrics.
    expect(origin.metrics().requests.total).toBe(2);
  });

  it('answers both 503 with Connection: close while the origin is closing', async () => {
    const held = heldPipeline();
    const { origin, url, client } = await start(held.pipeline);
    stops.push(async () => held.release());
    // The clients' connections are open before close(): a closing origin accepts no new one.
    const second = new Client(new URL(url).origin);
    stops.push(() => second.destroy());
    expect((await probe(client, '/healthz')).status).toBe(200);
    expect((await probe(second, '/healthz')).status).toBe(200);
    const running = request(url, { method: 'POST', body: '{}', headers: { 'X-ENGINE-APPLICATION-ID': 'k' } });
    await until(() => origin.metrics().inFlight === 1);
    const closed = origin.close();
    expect(origin.state).toBe('closing');
    const health = await probe(client, '/healthz');
    expect(health).toMatchObject({ status: 503, text: 'unhealthy: closing\n' });
    expect(health.headers['connection']).toBe('close');
    const readiness = await probe(second, '/readyz');
    expect(readiness).toMatchObject({ status: 503, text: 'not ready: closing\n' });
    expect(readiness.headers['connection']).toBe('close');
    const other = new Client(new URL(url).origin);
    stops.push(() => other.destroy());
    // A second connection made before the close would answer the same; this one is refused at connect.
    await expect(other.request({ path: '/readyz', method: 'GET' })).rejects.toThrow();
    held.release();
    expect((await running).statusCode).toBe(200);
    await closed;
  });

  it('answers readiness 503 while the runner pool says it is not ready', async () => {
    const pool = new InProcessRunnerPool(1, echoPipeline, { runnerIdleTimeMs: 0 });
    stops.push(() => pool.close());
    let ready = false;
    const runners: RunnerPool = {
      size: 1,
      run: (batch: Batch, signal: AbortSignal, progress?: RunProgress) => pool.run(batch, signal, progress),
      ready: () => ready,
    };
    const { client } = await start(echoPipeline, runners);
    expect(await probe(client, '/readyz')).toMatchObject({
      status: 503,
      text: 'not ready: runner pool not ready\n',
    });
    expect((await probe(client, '/healthz')).status).toBe(200);
    ready = true;
    expect((await probe(client, '/readyz')).status).toBe(200);
  });

  it('answers HEAD without a body, refuses other methods with 405, and needs no application ID', async () => {
    const { client } = await start(echoPipeline);
    const head = await probe(client, '/readyz', 'HEAD');
    expect([head.status, head.text, head.headers['content-length']]).toEqual([200, '', '6']);
    const post = await probe(client, '/metrics', 'POST');
    expect([post.status, post.headers['allow']]).toEqual([405, 'GET, HEAD']);
    // The query string is not part of the path.
    expect((await probe(client, '/healthz?verbose=1')).status).toBe(200);
    // Other paths still go to the pipeline, with its checks.
    expect((await probe(client, '/healthz/more')).status).toBe(403);
  });

  it('answers the paths on a server the host owns, through origin.handleRequest', async () => {
    const { createServer } = await import('node:http');
    const pool = new InProcessRunnerPool(1, echoPipeline, { runnerIdleTimeMs: 0 });
    stops.push(() => pool.close());
    const origin = new Origin({ http: { ...PATHS }, dataFormat: { format: 'json' } }, { runners: pool });
    stops.push(() => origin.close());
    const server = createServer((req, res) => void origin.handleRequest(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    stops.push(() => new Promise((resolve) => server.close(resolve)));
    const { port } = server.address() as { port: number };
    const metrics = await request(`http://127.0.0.1:${port}/metrics`);
    expect(metrics.statusCode).toBe(200);
    expect(await metrics.body.text()).toContain('# TYPE rest_origin_requests_total counter');
    const echoed = await request(`http://127.0.0.1:${port}/orders`, { method: 'POST', body: '{"a":1}' });
    expect(echoed.statusCode).toBe(200);
    await echoed.body.dump();
  });

  it('lets origins share a port only when their paths are the same', async () => {
    const pool = new InProcessRunnerPool(2, echoPipeline, { runnerIdleTimeMs: 0 });
    stops.push(() => pool.close());
    const { freePort } = await import('./origin-helpers');
    const port = await freePort();
    const make = (id: string, paths: Record<string, string>) => {
      const origin = new Origin(
        { http: { host: '127.0.0.1', port, applicationIds: [id], ...paths }, dataFormat: { format: 'json' } },
        { runners: pool },
      );
      stops.push(() => origin.destroy());
      return origin;
    };
    await make('a', PATHS).start();
    await expect(make('b', { ...PATHS, metricsPath: '/other' }).start()).rejects.toThrow(
      /the metrics, health and readiness paths differ/,
    );
    await make('c', PATHS).start();
  });

  it('refuses a config whose paths are not distinct, or carry a query', () => {
    const pool = new InProcessRunnerPool(1, echoPipeline, { runnerIdleTimeMs: 0 });
    stops.push(() => pool.close());
    const make = (http: Record<string, string>) =>
      new Origin({ http: { ...http }, dataFormat: { format: 'json' } }, { runners: pool });
    expect(() => make({ metricsPath: '/x', healthPath: '/x' })).toThrow(
      /\/http\/healthPath.*already http.metricsPath/s,
    );
    expect(() => make({ readinessPath: '/ready?now' })).toThrow(/\/http\/readinessPath/);
    expect(() => make({ healthPath: 'healthz' })).toThrow(/\/http\/healthPath/);
  });
});

describe('OriginOptions.metricsSource', () => {
  const stops: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const stop of stops.splice(0).reverse()) await stop();
  });

  it('serves what the source gives (a promise, as from a cluster primary), and 503 when it fails', async () => {
    const pool = new InProcessRunnerPool(1, echoPipeline, { runnerIdleTimeMs: 0 });
    stops.push(() => pool.close());
    let fail = false;
    const origin: Origin = new Origin(
      {
        general: { name: 'worker' },
        http: { host: '127.0.0.1', port: 0, ...PATHS },
        dataFormat: { format: 'json' },
      },
      {
        runners: pool,
        metricsSource: async () => {
          await new Promise((resolve) => setTimeout(resolve, 5));
          if (fail) throw new Error('primary\ngone');
          const own = origin.metrics({ format: 'snapshot' });
          return mergeMetricsSnapshots([own, own]);
        },
      },
    );
    stops.push(() => origin.destroy());
    const url = await origin.start();
    await request(url, { method: 'POST', body: '{}' }).then((answer) => answer.body.dump());
    const scraped = await request(new URL('/metrics', url));
    expect(scraped.statusCode).toBe(200);
    expect(await scraped.body.text()).toContain(
      'rest_origin_requests_total{origin="worker",status="200",outcome="answered"} 2',
    );
    fail = true;
    const warnings: unknown[][] = [];
    const spy = jest.spyOn(process, 'emitWarning').mockImplementation((...args: unknown[]) => {
      warnings.push(args);
    });
    stops.push(async () => spy.mockRestore());
    const failed = await request(new URL('/metrics', url));
    // The source's words go to the host, not to whoever can reach the port.
    expect([failed.statusCode, await failed.body.text()]).toEqual([503, 'metrics unavailable\n']);
    expect(warnings).toEqual([
      [
        'The metrics source failed: primary\ngone',
        { type: 'OriginWarning', code: 'REST_ORIGIN_METRICS_SOURCE_FAILED' },
      ],
    ]);
  });
});

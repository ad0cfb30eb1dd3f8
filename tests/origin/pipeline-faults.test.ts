import {
  InProcessRunnerPool,
  Origin,
  SendResponse,
  type Batch,
  type OriginConfigInput,
  type Pipeline,
  type RunnerPool,
} from 'rest-service-origin';
import { send } from './origin-helpers';

/**
 * Issue 12, scope 5: faults in the pipeline. Each gives its documented status (docs/reliability.md, "Faults in
 * the pipeline"), and the origin keeps serving: the request after it is answered 200.
 */

const started: { origin: Origin; pool?: InProcessRunnerPool }[] = [];
afterEach(async () => {
  for (const { origin, pool } of started.splice(0)) {
    await origin.destroy();
    // Not awaited: a pool whose runner hangs for good never finishes closing.
    void pool?.close();
  }
});

const echo: Pipeline = (batch) => new SendResponse().write(batch);

/** An origin whose first request goes to `fault` and every later one to the echo pipeline. */
async function faulty(
  fault: Pipeline,
  config: { http?: OriginConfigInput['http']; httpResponse?: OriginConfigInput['httpResponse'] } = {},
): Promise<string> {
  let calls = 0;
  const pool = new InProcessRunnerPool(
    2,
    (batch, context) => (calls++ === 0 ? fault : echo)(batch, context),
    {
      runnerIdleTimeMs: 0,
    },
  );
  return serve(pool, config, pool);
}

async function serve(
  runners: RunnerPool,
  config: { http?: OriginConfigInput['http']; httpResponse?: OriginConfigInput['httpResponse'] },
  pool?: InProcessRunnerPool,
): Promise<string> {
  const origin = new Origin(
    { ...config, http: { host: '127.0.0.1', port: 0, ...config.http }, dataFormat: { format: 'json' } },
    { runners },
  );
  started.push({ origin, ...(pool ? { pool } : {}) });
  return origin.start();
}

function codeOf(answer: { json: unknown }): string {
  return ((answer.json as { errorMessage: string | null }).errorMessage ?? '').split(' - ')[0]!;
}

async function expectStillServing(url: string): Promise<void> {
  const next = await send(url, { body: '{"next":true}' });
  expect(next.status).toBe(200);
  expect(next.json).toMatchObject({ data: [{ next: true }] });
}

describe('faults in the pipeline', () => {
  it.each([
    ['throws an Error', () => Promise.reject(new Error('boom'))],
    [
      'throws synchronously',
      () => {
        throw new Error('boom');
      },
    ],
    ['throws a string', () => Promise.reject('boom')],
    ['throws undefined', () => Promise.reject(undefined)],
    [
      'throws after sending a response',
      (batch: Batch) => {
        new SendResponse().write(batch);
        throw new Error('boom');
      },
    ],
  ] as [string, Pipeline][])('a runner that %s: 500 ORIGIN_PIPELINE_FAILED', async (_, fault) => {
    const url = await faulty(fault);
    const answer = await send(url, { body: '{"a":1}' });
    expect(answer.status).toBe(500);
    expect(codeOf(answer)).toBe('ORIGIN_PIPELINE_FAILED');
    expect(answer.json).toMatchObject({ data: [] });
    await expectStillServing(url);
  });

  it('a runner that hangs past responseTimeoutMs, ignoring its signal: 504, and the other runner serves', async () => {
    const url = await faulty(() => new Promise<void>(() => undefined), { http: { responseTimeoutMs: 100 } });
    const answer = await send(url, { body: '{"a":1}' });
    expect(answer.status).toBe(504);
    expect(codeOf(answer)).toBe('ORIGIN_PIPELINE_TIMEOUT');
    expect(answer.headers['retry-after']).toBeUndefined();
    await expectStillServing(url);
  });

  it('a runner that calls SendResponse after the timeout: the client has its 504, the late records go nowhere', async () => {
    let wroteLate = false;
    const url = await faulty(
      (batch, { signal }) =>
        new Promise<void>((resolve) =>
          signal.addEventListener('abort', () => {
            setTimeout(() => {
              new SendResponse({ statusCode: 201 }).write(batch);
              wroteLate = true;
              resolve();
            }, 20);
          }),
        ),
      { http: { responseTimeoutMs: 100 } },
    );
    const answer = await send(url, { body: '{"a":1}' });
    expect(answer.status).toBe(504);
    while (!wroteLate) await new Promise((resolve) => setTimeout(resolve, 10));
    await expectStillServing(url);
  });

  it('a runner that calls SendResponse twice: both writes are answered, in order (each call appends)', async () => {
    const url = await faulty((batch) => {
      new SendResponse().write(batch);
      new SendResponse({ statusCode: 201 }).write(batch);
    });
    const answer = await send(url, { body: '{"a":1}' });
    expect(answer.status).toBe(207);
    expect(answer.json).toMatchObject({ data: [{ a: 1 }, { a: 1 }] });
    await expectStillServing(url);
  });

  it('a runner pool that rejects, or throws: 500 ORIGIN_PIPELINE_FAILED', async () => {
    for (const failure of ['reject', 'throw'] as const) {
      let calls = 0;
      const inner = new InProcessRunnerPool(1, echo, { runnerIdleTimeMs: 0 });
      const runners: RunnerPool = {
        size: 1,
        run: (batch, signal, progress) => {
          if (calls++ > 0) return inner.run(batch, signal, progress);
          if (failure === 'throw') throw new Error('pool down');
          return Promise.reject(new Error('pool down'));
        },
      };
      const url = await serve(runners, {}, inner);
      const answer = await send(url, { body: '{"a":1}' });
      expect(answer.status).toBe(500);
      expect(codeOf(answer)).toBe('ORIGIN_PIPELINE_FAILED');
      await expectStillServing(url);
    }
  });

  it.each([
    [
      'a cycle, JSON response',
      'json',
      (batch: Batch) => {
        const value = batch.records[0]!.value as Record<string, unknown>;
        value['self'] = value;
        new SendResponse().write(batch);
      },
    ],
    [
      'a cycle, XML response',
      'xml',
      (batch: Batch) => {
        const value = batch.records[0]!.value as Record<string, unknown>;
        value['self'] = value;
        new SendResponse().write(batch);
      },
    ],
    [
      'a function, JSON response',
      'json',
      (batch: Batch) => {
        (batch.records[0]!.value as Record<string, unknown>)['f'] = () => 1;
        new SendResponse().write(batch);
      },
    ],
    [
      'a function, XML response (its source text is not sent)',
      'xml',
      (batch: Batch) => {
        (batch.records[0]!.value as Record<string, unknown>)['f'] = () => 'secret';
        new SendResponse().write(batch);
      },
    ],
    [
      'a Map instance, XML response',
      'xml',
      (batch: Batch) => {
        (batch.records[0]!.value as Record<string, unknown>)['m'] = new Map([['k', 1]]);
        new SendResponse().write(batch);
      },
    ],
    [
      'a symbol, XML response',
      'xml',
      (batch: Batch) => {
        (batch.records[0]!.value as Record<string, unknown>)['s'] = Symbol('s');
        new SendResponse().write(batch);
      },
    ],
  ] as [string, 'json' | 'xml', Pipeline][])(
    'a record whose value cannot be rendered (%s): 500 ORIGIN_RESPONSE_RENDER_FAILED',
    async (_, dataFormat, fault) => {
      const url = await faulty(fault, { httpResponse: { dataFormat } });
      const answer = await send(url, { body: '{"a":1}' });
      expect(answer.status).toBe(500);
      expect(answer.text).toContain('ORIGIN_RESPONSE_RENDER_FAILED');
      const next = await send(url, { body: '{"next":true}' });
      expect(next.status).toBe(200);
    },
  );

  it('a bigint in an XML response is rendered exactly, as a LONG', async () => {
    const url = await faulty(
      (batch) => {
        (batch.records[0]!.value as Record<string, unknown>)['big'] = 2n ** 70n;
        new SendResponse().write(batch);
      },
      { httpResponse: { dataFormat: 'xml', prettyFormat: false } },
    );
    const answer = await send(url, { body: '{"a":1}' });
    expect(answer.status).toBe(200);
    expect(answer.text).toContain(String(2n ** 70n));
  });
});

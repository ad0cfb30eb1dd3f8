import { InProcessRunnerPool, Origin, SendResponse, type Batch, type RunnerPool } from 'rest-service-origin';
import { gate, send } from './origin-helpers';

/**
 * Issue 12, Found 7 (decision 0045): a 503 means "not processed". A batch the origin gives up on before a runner
 * took it is withdrawn (503 + Retry-After, it never reaches the pipeline); a batch already in the pipeline is
 * answered 504 without Retry-After, since it may have been processed.
 */

interface Answer {
  n: number;
  status: number;
  retryAfter: string | undefined;
  code: string;
}

interface Rig {
  origin: Origin;
  url: string;
  pool: InProcessRunnerPool;
  /** The `n` of every batch that reached the pipeline, in the order they reached it. */
  processed: number[];
  release: () => void;
}

const started: Rig[] = [];

/** 8 request slots, 2 runners whose pipeline holds every batch until `release()`. */
async function rig(http: Record<string, unknown> = {}): Promise<Rig> {
  const held = gate();
  const processed: number[] = [];
  const pool = new InProcessRunnerPool(
    2,
    async (batch: Batch) => {
      processed.push((batch.records[0]!.value as { n: number }).n);
      await held.promise;
      new SendResponse().write(batch);
    },
    { runnerIdleTimeMs: 0 },
  );
  const origin = new Origin(
    {
      http: { host: '127.0.0.1', port: 0, maxConcurrentRequests: 8, ...http },
      dataFormat: { format: 'json' },
    },
    { runners: pool },
  );
  const url = await origin.start();
  const made = { origin, url, pool, processed, release: held.open };
  started.push(made);
  return made;
}

afterEach(async () => {
  for (const { origin, pool, release } of started.splice(0)) {
    release();
    await origin.destroy();
    await pool.close();
  }
});

async function post(url: string, n: number): Promise<Answer> {
  const answer = await send(url, { body: JSON.stringify({ n }) });
  const retryAfter = answer.headers['retry-after'];
  return {
    n,
    status: answer.status,
    retryAfter: typeof retryAfter === 'string' ? retryAfter : undefined,
    code: ((answer.json as { errorMessage: string | null }).errorMessage ?? '').split(' - ')[0]!,
  };
}

async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 5));
}

/** Every 503 was withdrawn before the pipeline and invites a retry; every 504 reached it and does not. */
function expectTruthfulAnswers(answers: Answer[], processed: number[]): void {
  for (const answer of answers) {
    if (answer.status === 503) {
      expect(processed).not.toContain(answer.n);
      expect(answer.retryAfter).toBe('1');
    } else {
      expect(answer.status).toBe(504);
      expect(processed).toContain(answer.n);
      expect(answer.retryAfter).toBeUndefined();
    }
  }
}

describe('a batch the origin gives up on', () => {
  it('on the response timeout: 504 without Retry-After when running, 503 + Retry-After when withdrawn', async () => {
    const { url, pool, processed, release } = await rig({ responseTimeoutMs: 100 });
    const answers = await Promise.all(Array.from({ length: 8 }, (_, n) => post(url, n)));
    // The runners are held until every answer is in: only the two batches they took can ever be processed.
    release();
    await until(() => pool.busyCount === 0);
    expectTruthfulAnswers(answers, processed);
    expect(processed).toHaveLength(2);
    expect(answers.filter((a) => a.status === 504).map((a) => a.code)).toEqual([
      'ORIGIN_PIPELINE_TIMEOUT',
      'ORIGIN_PIPELINE_TIMEOUT',
    ]);
    expect(new Set(answers.filter((a) => a.status === 503).map((a) => a.code))).toEqual(
      new Set(['ORIGIN_PIPELINE_NOT_STARTED']),
    );
  });

  it('on destroy(): 504 ORIGIN_PIPELINE_ABANDONED when running, 503 ORIGIN_HTTP_CLOSING when withdrawn', async () => {
    const { url, origin, pool, processed, release } = await rig();
    const answers = Promise.all(Array.from({ length: 8 }, (_, n) => post(url, n)));
    await until(() => pool.busyCount === 2 && pool.waitingCount === 6);
    await origin.destroy();
    const settled = await answers;
    release();
    await until(() => pool.busyCount === 0);
    expectTruthfulAnswers(settled, processed);
    expect(processed).toHaveLength(2);
    expect(settled.filter((a) => a.status === 504).map((a) => a.code)).toEqual([
      'ORIGIN_PIPELINE_ABANDONED',
      'ORIGIN_PIPELINE_ABANDONED',
    ]);
    expect(settled.filter((a) => a.status === 503).map((a) => a.code)).toEqual(
      Array(6).fill('ORIGIN_HTTP_CLOSING'),
    );
  });

  it('is answered 504 by a host pool that does not report starts: it may have been processed', async () => {
    let calls = 0;
    const silent: RunnerPool = {
      size: 1,
      run: () => {
        calls++;
        return new Promise<void>(() => undefined);
      },
    };
    const origin = new Origin(
      { http: { host: '127.0.0.1', port: 0, responseTimeoutMs: 50 }, dataFormat: { format: 'json' } },
      { runners: silent },
    );
    const url = await origin.start();
    try {
      const answer = await post(url, 1);
      expect(answer).toMatchObject({ status: 504, code: 'ORIGIN_PIPELINE_TIMEOUT', retryAfter: undefined });
      expect(calls).toBe(1);
    } finally {
      await origin.destroy();
    }
  });

  it('is answered with its response when a synchronous pipeline destroys its own origin: it was processed', async () => {
    const host: { origin?: Origin } = {};
    const pool = new InProcessRunnerPool(
      1,
      (batch) => {
        new SendResponse().write(batch);
        void host.origin?.destroy();
      },
      { runnerIdleTimeMs: 0 },
    );
    host.origin = new Origin(
      { http: { host: '127.0.0.1', port: 0 }, dataFormat: { format: 'json' } },
      { runners: pool },
    );
    const url = await host.origin.start();
    try {
      const answer = await send(url, { body: '{"n":1}' });
      expect(answer.status).toBe(200);
      expect(answer.headers['connection']).toBe('close');
      expect(answer.json).toMatchObject({ data: [{ n: 1 }] });
    } finally {
      await host.origin.destroy();
      await pool.close();
    }
  });
});

import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import {
  InProcessRunnerPool,
  MemoryIdempotencyStore,
  Origin,
  SendResponse,
  type Batch,
  type IdempotencyStore,
} from 'rest-service-origin';
import { stopProcess } from '../support/server-process';
import { startRedis, type TestRedis } from './test-redis';

/**
 * Issue 18's promise over the reliability work's drain test (tests/origin/drain.test.ts): clients send numbered
 * records, each with its own idempotency key, and retry every failure (503 while draining, 409 while the first
 * attempt is in flight, connection errors, their own timeouts) until a 200 comes; mid-run the origin closes and
 * another takes over. Every numbered record reaches the pipeline exactly once. Loopback only, bounded in count
 * and time.
 */

const MAX_ATTEMPTS = 400;
/**
 * A first attempt waits less than the pipeline's slowest batch (100 ms), so that many time out while still in
 * flight and are retried; a retry waits long enough to be answered (409 or the replay) on a busy machine. The
 * origins have a slot and a runner per client, so that a first attempt reaches the pipeline at once.
 */
const FIRST_TIMEOUT_MS = 60;
const RETRY_TIMEOUT_MS = 2000;

interface Tally {
  attempts: number;
  ok: number;
  replayed: number;
  byStatus: Map<number, number>;
  byError: Map<string, number>;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

function count<K>(map: Map<K, number>, key: K): void {
  map.set(key, (map.get(key) ?? 0) + 1);
}

/**
 * `clients` workers deliver records 0 .. total - 1 between them; attempt `a` of record `n` goes to
 * `pick(n, a)`. `progress` is told the number of records delivered after each one. Rejects when a record is not
 * delivered within {@link MAX_ATTEMPTS} attempts.
 */
async function deliverAll(
  total: number,
  clients: number,
  pick: (n: number, attempt: number) => string,
  progress: (delivered: number) => void,
  keyed = true,
): Promise<Tally> {
  const tally: Tally = { attempts: 0, ok: 0, replayed: 0, byStatus: new Map(), byError: new Map() };
  const agent = new Agent({ connections: 32, keepAliveTimeout: 1000 });
  let next = 0;
  const deliver = async (n: number): Promise<void> => {
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      tally.attempts++;
      try {
        const answer = await request(pick(n, attempt), {
          method: 'POST',
          body: JSON.stringify({ n }),
          headers: keyed ? { 'Idempotency-Key': `"record-${n}"` } : {},
          dispatcher: agent,
          // undici's own timeouts tick in whole seconds; an abort signal is as short as asked.
          signal: AbortSignal.timeout(attempt === 0 ? FIRST_TIMEOUT_MS : RETRY_TIMEOUT_MS),
        });
        await answer.body.text();
        if (answer.statusCode === 200) {
          tally.ok++;
          if (answer.headers['idempotent-replayed'] === 'true') tally.replayed++;
          return;
        }
        count(tally.byStatus, answer.statusCode);
      } catch (error) {
        const { code, name } = error as { code?: string; name?: string };
        count(tally.byError, name === 'TimeoutError' ? 'timeout' : (code ?? String(error)));
      }
      await sleep(5 + Math.floor(Math.random() * 10));
    }
    throw new Error(`record ${n} was not delivered in ${MAX_ATTEMPTS} attempts`);
  };
  const worker = async (): Promise<void> => {
    for (let n = next++; n < total; n = next++) {
      await deliver(n);
      progress(tally.ok);
    }
  };
  try {
    await Promise.all(Array.from({ length: clients }, worker));
  } finally {
    await agent.close();
  }
  return tally;
}

function report(name: string, total: number, tally: Tally, seen: number[]): void {
  const list = (map: Map<unknown, number>): string =>
    [...map].map(([key, value]) => `${String(key)} ${value}`).join(', ') || 'none';
  console.log(
    `${name}: ${total} records, ${tally.attempts} attempts: ${tally.ok} delivered (${tally.replayed} of them replayed), ` +
      `refusals ${list(tally.byStatus)}, client errors ${list(tally.byError)}; ` +
      `the pipeline saw ${seen.length} records, ${new Set(seen).size} distinct`,
  );
}

/** Every numbered record reached the pipeline exactly once. */
function expectExactlyOnce(total: number, seen: number[]): void {
  const sorted = [...seen].sort((a, b) => a - b);
  expect(sorted).toEqual(Array.from({ length: total }, (_, n) => n));
}

describe('drain and retry with idempotency keys', () => {
  /**
   * One process: an origin closes mid-run and a second, sharing its store, takes over. Resolves with the records
   * the pipeline saw, in order.
   */
  async function oneProcessRun(total: number, keyed: boolean): Promise<{ tally: Tally; seen: number[] }> {
    const seen: number[] = [];
    const store = new MemoryIdempotencyStore({ maxEntries: 10_000 });
    const pool = new InProcessRunnerPool(
      24,
      async (batch: Batch) => {
        for (const record of batch.records) seen.push((record.value as { n: number }).n);
        await sleep(Math.floor(Math.random() * 100));
        new SendResponse().write(batch);
      },
      { runnerIdleTimeMs: 0 },
    );
    const started: Origin[] = [];
    const startOne = async (shared: IdempotencyStore): Promise<{ origin: Origin; url: string }> => {
      const origin = new Origin(
        {
          http: { host: '127.0.0.1', port: 0, maxConcurrentRequests: 24, queueSize: 64, idempotency: {} },
          dataFormat: { format: 'json' },
        },
        { runners: pool, idempotencyStore: shared },
      );
      started.push(origin);
      return { origin, url: await origin.start() };
    };
    try {
      const first = await startOne(store);
      let current = first.url;
      let closing: Promise<void> | undefined;
      const tally = await deliverAll(
        total,
        24,
        () => current,
        (delivered) => {
          if (closing !== undefined || delivered < total / 3) return;
          // The new origin is up before the old one drains: a load balancer switching over.
          closing = startOne(store).then(async (second) => {
            current = second.url;
            await first.origin.close({ timeoutMs: 10_000 });
          });
        },
        keyed,
      );
      await closing;
      expect(first.origin.state).toBe('closed');
      return { tally, seen };
    } finally {
      for (const origin of started) await origin.destroy();
      await pool.close();
    }
  }

  it('one process: the origin closes mid-run, a second takes over with the same store; every record processed once', async () => {
    const total = 400;
    const { tally, seen } = await oneProcessRun(total, true);
    report('one process, close() mid-run', total, tally, seen);
    expectExactlyOnce(total, seen);
  });

  it('the same clients without keys: nothing lost, but what timed out in the pipeline was processed again (printed)', async () => {
    const total = 400;
    const { tally, seen } = await oneProcessRun(total, false);
    report('one process, close() mid-run, no keys', total, tally, seen);
    expect(new Set(seen).size).toBe(total);
    const twice = new Set(seen.filter((n, i) => seen.indexOf(n) !== i)).size;
    console.log(
      `without keys: ${twice} records reached the pipeline more than once (${seen.length - total} extra times)`,
    );
  });

  describe('two origin processes sharing one Redis store', () => {
    let redis: TestRedis;
    const children: ChildProcess[] = [];

    beforeAll(async () => {
      redis = await startRedis();
    });

    afterAll(async () => {
      for (const child of children.splice(0)) await stopProcess(child);
      await redis?.stop();
    });

    /** Starts an origin process; resolves with its URL and the records its pipeline saw (filled as they come). */
    async function originProcess(
      seen: number[],
      options: { http?: Record<string, unknown>; pipelineMs?: number } = {},
    ): Promise<{ child: ChildProcess; url: string; closed: Promise<void> }> {
      const config = {
        http: {
          host: '127.0.0.1',
          port: 0,
          maxConcurrentRequests: 24,
          queueSize: 64,
          idempotency: { store: { redisUrl: redis.url, timeoutMs: 2000 } },
          ...options.http,
        },
        dataFormat: { format: 'json' },
      };
      const env =
        options.pipelineMs === undefined
          ? process.env
          : { ...process.env, PIPELINE_MS: String(options.pipelineMs) };
      const child = spawn(
        process.execPath,
        ['--import', 'tsx', join(__dirname, 'origin-process.ts'), JSON.stringify(config)],
        { stdio: ['ignore', 'pipe', 'pipe'], env },
      );
      children.push(child);
      let errors = '';
      child.stderr?.on('data', (chunk: Buffer) => (errors += chunk.toString()));
      let pending = '';
      let onStart: (url: string) => void = () => undefined;
      let onClosed: () => void = () => undefined;
      const url = new Promise<string>((resolve, reject) => {
        onStart = resolve;
        child.once('exit', (code) => reject(new Error(`origin process exited with ${code}: ${errors}`)));
      });
      const closed = new Promise<void>((resolve) => (onClosed = resolve));
      child.stdout?.on('data', (chunk: Buffer) => {
        pending += chunk.toString();
        const lines = pending.split('\n');
        pending = lines.pop() ?? '';
        for (const line of lines) {
          const event = JSON.parse(line) as { event: string; n?: number; url?: string };
          if (event.event === 'record') seen.push(event.n!);
          else if (event.event === 'start') onStart(event.url!);
          else if (event.event === 'closed') onClosed();
        }
      });
      return { child, url: await url, closed };
    }

    it('one closes mid-run and a new one takes over; every record processed once across the processes', async () => {
      const total = 400;
      const seen: number[] = [];
      const [a, b] = await Promise.all([originProcess(seen), originProcess(seen)]);
      const urls = [a.url, b.url];
      let takeover: Promise<void> | undefined;
      const tally = await deliverAll(
        total,
        24,
        // Spread over the live origins, and a retry goes to the next one, as a load balancer's would.
        (n, attempt) => urls[(n + attempt) % urls.length]!,
        (delivered) => {
          if (takeover !== undefined || delivered < total / 3) return;
          takeover = (async () => {
            a.child.kill('SIGTERM');
            const c = await originProcess(seen);
            urls[0] = c.url;
            await a.closed;
          })();
        },
      );
      await takeover;
      // Records printed by a process arrive on its pipe a moment after its answer.
      await sleep(200);
      report('two processes on one Redis, SIGTERM mid-run', total, tally, seen);
      expectExactlyOnce(total, seen);
    });

    it('a process killed mid-batch holds its key until the lock expires; then the retry is processed (at least once)', async () => {
      // Lock TTL = requestTimeoutMs + responseTimeoutMs = 3 s.
      const http = { requestTimeoutMs: 1500, headersTimeoutMs: 1500, responseTimeoutMs: 1500 };
      const seen: number[] = [];
      const [a, b] = await Promise.all([
        originProcess(seen, { http, pipelineMs: 60_000 }),
        originProcess(seen, { http }),
      ]);
      const post = (url: string): Promise<{ status: number; replayed: unknown }> =>
        request(url, { method: 'POST', body: '{"n":7}', headers: { 'Idempotency-Key': 'crash-7' } }).then(
          async (answer) => {
            await answer.body.text();
            return { status: answer.statusCode, replayed: answer.headers['idempotent-replayed'] };
          },
        );
      const lost = post(a.url).catch((error: unknown) => error);
      while (!seen.includes(7)) await sleep(20);
      a.child.kill('SIGKILL');
      expect(await lost).toBeInstanceOf(Error);
      expect((await post(b.url)).status).toBe(409);
      const killedAt = performance.now();
      let answer = await post(b.url);
      for (let attempt = 0; attempt < 100 && answer.status === 409; attempt++) {
        await sleep(100);
        answer = await post(b.url);
      }
      console.log(
        `a process killed mid-batch: its key answered 409 for ${Math.round(performance.now() - killedAt)} ms, ` +
          `then ${answer.status}; the pipeline saw record 7 ${seen.filter((n) => n === 7).length} times`,
      );
      expect(answer.status).toBe(200);
      expect(seen.filter((n) => n === 7)).toHaveLength(2);
      expect((await post(b.url)).replayed).toBe('true');
    });
  });
});

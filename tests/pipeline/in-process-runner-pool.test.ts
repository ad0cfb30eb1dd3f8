import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { isOriginError } from '../../src/errors/origin-error';
import type { Batch } from '../../src/pipeline/batch';
import { InProcessRunnerPool } from '../../src/pipeline/in-process-runner-pool';
import type { Pipeline, PipelineContext } from '../../src/pipeline/runner-pool';
import { DataRecord } from '../../src/record/data-record';
import { batchOf } from './batch-fixtures';

interface Deferred<T = void> {
  readonly promise: Promise<T>;
  resolve(value: T): void;
  reject(reason: unknown): void;
}

function deferred<T = void>(): Deferred<T> {
  let resolve!: (value: T) => void;
  let reject!: (reason: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

function requestBatch(n: number): Batch {
  return batchOf([new DataRecord({ n })], [], `r-${n}`);
}

function numberOf(batch: Batch): number {
  return (batch.records[0]?.value as { n: number }).n;
}

const turn = (): Promise<void> => new Promise((res) => setImmediate(res));

const never = (): AbortSignal => new AbortController().signal;

const pools: InProcessRunnerPool[] = [];
function pool(...args: ConstructorParameters<typeof InProcessRunnerPool>): InProcessRunnerPool {
  const created = new InProcessRunnerPool(...args);
  pools.push(created);
  return created;
}

afterEach(async () => {
  // Spies first: a spy made on a fake timer function would otherwise bring the fake back.
  jest.restoreAllMocks();
  jest.useRealTimers();
  await Promise.all(pools.splice(0).map((p) => p.close()));
});

describe('InProcessRunnerPool: running batches', () => {
  it('never runs more than size batches at once under 50 concurrent runs', async () => {
    let active = 0;
    let maxActive = 0;
    const done: number[] = [];
    const runners = pool(4, async (batch) => {
      active++;
      maxActive = Math.max(maxActive, active);
      for (let i = numberOf(batch) % 4; i >= 0; i--) await turn();
      active--;
      done.push(numberOf(batch));
    });
    await Promise.all(Array.from({ length: 50 }, (_, n) => runners.run(requestBatch(n), never())));
    expect(maxActive).toBe(4);
    expect(done.sort((a, b) => a - b)).toEqual(Array.from({ length: 50 }, (_, n) => n));
    expect(runners.busyCount).toBe(0);
    expect(runners.waitingCount).toBe(0);
  });

  it('gives waiting runs a runner in the order they called', async () => {
    const gate = deferred();
    const started: number[] = [];
    const runners = pool(1, async (batch) => {
      started.push(numberOf(batch));
      if (numberOf(batch) === 0) await gate.promise;
    });
    const runs = Array.from({ length: 10 }, (_, n) => runners.run(requestBatch(n), never()));
    expect(started).toEqual([0]);
    expect(runners.busyCount).toBe(1);
    expect(runners.waitingCount).toBe(9);
    gate.resolve();
    await Promise.all(runs);
    expect(started).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });

  it('passes runner ids 0..size-1 and gives each runner one batch at a time', async () => {
    const busy = new Set<number>();
    const seen = new Set<number>();
    let overlap = false;
    const runners = pool(3, async (_batch, { runnerId }) => {
      if (busy.has(runnerId)) overlap = true;
      busy.add(runnerId);
      seen.add(runnerId);
      await turn();
      busy.delete(runnerId);
    });
    await Promise.all(Array.from({ length: 30 }, (_, n) => runners.run(requestBatch(n), never())));
    expect([...seen].sort()).toEqual([0, 1, 2]);
    expect(overlap).toBe(false);
  });

  it('passes the batch and the run signal to the pipeline', async () => {
    const calls: [Batch, PipelineContext][] = [];
    const runners = pool(1, (batch, context) => {
      calls.push([batch, context]);
    });
    const batch = requestBatch(7);
    const signal = never();
    await runners.run(batch, signal);
    expect(calls).toHaveLength(1);
    expect(calls[0]?.[0]).toBe(batch);
    expect(calls[0]?.[1]).toEqual({ runnerId: 0, signal });
  });

  it('rejects with the very error a synchronous pipeline throws, and frees the runner', async () => {
    const failure = new Error('stage broke');
    const runners = pool(1, (batch) => {
      if (numberOf(batch) === 0) throw failure;
    });
    await expect(runners.run(requestBatch(0), never())).rejects.toBe(failure);
    await expect(runners.run(requestBatch(1), never())).resolves.toBeUndefined();
    expect(runners.busyCount).toBe(0);
  });

  it('rejects with the very reason an async pipeline rejects with', async () => {
    const failure = new Error('async stage broke');
    const runners = pool(2, async () => {
      await turn();
      throw failure;
    });
    await expect(runners.run(requestBatch(0), never())).rejects.toBe(failure);
  });

  it('rejects a waiting run with the signal reason when it aborts, and drops it from the queue', async () => {
    const gate = deferred();
    const started: number[] = [];
    const runners = pool(1, async (batch) => {
      started.push(numberOf(batch));
      await gate.promise;
    });
    const first = runners.run(requestBatch(0), never());
    const controller = new AbortController();
    const abandoned = runners.run(requestBatch(1), controller.signal);
    const third = runners.run(requestBatch(2), never());
    expect(runners.waitingCount).toBe(2);
    const reason = new Error('response timeout');
    controller.abort(reason);
    await expect(abandoned).rejects.toBe(reason);
    expect(runners.waitingCount).toBe(1);
    gate.resolve();
    await Promise.all([first, third]);
    expect(started).toEqual([0, 2]);
  });

  it('rejects at once, without running, when the signal has already aborted', async () => {
    const pipeline = jest.fn<void, Parameters<Pipeline>>();
    const runners = pool(1, pipeline);
    const controller = new AbortController();
    controller.abort(new Error('gone'));
    await expect(runners.run(requestBatch(0), controller.signal)).rejects.toThrow('gone');
    expect(pipeline).not.toHaveBeenCalled();
  });

  it('lets a running batch finish when its signal aborts, keeping the runner busy until then', async () => {
    const gate = deferred();
    let sawAbort = false;
    const runners = pool(1, async (_batch, { signal }) => {
      await gate.promise;
      sawAbort = signal.aborted;
    });
    const controller = new AbortController();
    const running = runners.run(requestBatch(0), controller.signal);
    controller.abort();
    await turn();
    expect(runners.busyCount).toBe(1);
    gate.resolve();
    await expect(running).resolves.toBeUndefined();
    expect(sawAbort).toBe(true);
    expect(runners.busyCount).toBe(0);
  });

  it('reports a start just before the pipeline sees the batch, and never for a batch withdrawn while waiting', async () => {
    const events: string[] = [];
    const held = deferred();
    const runners = pool(
      1,
      async (batch) => {
        events.push(`pipeline ${numberOf(batch)}`);
        await held.promise;
      },
      { runnerIdleTimeMs: 0 },
    );
    expect(runners.reportsStarts).toBe(true);
    const progress = (n: number) => ({ started: () => events.push(`started ${n}`) });
    const first = runners.run(requestBatch(1), never(), progress(1));
    const withdrawn = new AbortController();
    const second = runners.run(requestBatch(2), withdrawn.signal, progress(2));
    const third = runners.run(requestBatch(3), never(), progress(3));
    withdrawn.abort(new Error('gave up'));
    await expect(second).rejects.toThrow('gave up');
    held.resolve();
    await Promise.all([first, third]);
    expect(events).toEqual(['started 1', 'pipeline 1', 'started 3', 'pipeline 3']);
  });

  it.each([0, -1, 1.5, Number.NaN])('refuses size %p', (size) => {
    expect(() => new InProcessRunnerPool(size, () => undefined)).toThrow(
      expect.objectContaining({ code: 'ORIGIN_RUNNER_POOL_OPTION_INVALID' }),
    );
  });

  it('refuses a runnerIdleTimeMs that is not a number', () => {
    expect(() => new InProcessRunnerPool(1, () => undefined, { runnerIdleTimeMs: Number.NaN })).toThrow(
      expect.objectContaining({ code: 'ORIGIN_RUNNER_POOL_OPTION_INVALID' }),
    );
  });
});

describe('InProcessRunnerPool: idle batches', () => {
  it('sends an empty idle batch to every runner that has been idle for runnerIdleTimeMs', async () => {
    const idleRunners = new Set<number>();
    const bothIdle = deferred();
    const idleBatches: Batch[] = [];
    pool(
      2,
      (batch, { runnerId }) => {
        idleBatches.push(batch);
        idleRunners.add(runnerId);
        if (idleRunners.size === 2) bothIdle.resolve();
      },
      { runnerIdleTimeMs: 50 },
    );
    await bothIdle.promise;
    for (const batch of idleBatches) {
      expect(batch.idle).toBe(true);
      expect(batch.records).toEqual([]);
      expect(batch.errorRecords).toEqual([]);
      expect(batch.request).toBeUndefined();
      expect(batch.response).toBeUndefined();
    }
  });

  it('sends the first idle batch only once the runner has been idle for runnerIdleTimeMs', async () => {
    jest.useFakeTimers();
    const idle: number[] = [];
    pool(1, (batch, { runnerId }) => void (batch.idle && idle.push(runnerId)), { runnerIdleTimeMs: 1000 });
    await jest.advanceTimersByTimeAsync(900);
    expect(idle).toEqual([]);
    await jest.advanceTimersByTimeAsync(200);
    expect(idle).toEqual([0]);
    await jest.advanceTimersByTimeAsync(1000);
    expect(idle).toEqual([0, 0]);
  });

  it('sends no idle batch to a busy runner, and restarts the idle clock when it is freed', async () => {
    jest.useFakeTimers();
    const gate = deferred();
    const idle: number[] = [];
    const runners = pool(
      1,
      async (batch, { runnerId }) => {
        if (batch.idle) idle.push(runnerId);
        else await gate.promise;
      },
      { runnerIdleTimeMs: 1000 },
    );
    const running = runners.run(requestBatch(0), never());
    await jest.advanceTimersByTimeAsync(5000);
    expect(idle).toEqual([]);
    gate.resolve();
    await running;
    await jest.advanceTimersByTimeAsync(900);
    expect(idle).toEqual([]);
    await jest.advanceTimersByTimeAsync(200);
    expect(idle).toEqual([0]);
  });

  it.each([0, -1])('sends no idle batches and starts no timer when runnerIdleTimeMs is %p', async (ms) => {
    jest.useFakeTimers();
    const setIntervalSpy = jest.spyOn(global, 'setInterval');
    const pipeline = jest.fn<void, Parameters<Pipeline>>();
    pool(2, pipeline, { runnerIdleTimeMs: ms });
    await jest.advanceTimersByTimeAsync(600_000);
    expect(pipeline).not.toHaveBeenCalled();
    expect(setIntervalSpy).not.toHaveBeenCalled();
  });

  it('checks idle runners with one interval of runnerIdleTimeMs / 10, at least 10 ms', () => {
    const setIntervalSpy = jest.spyOn(global, 'setInterval');
    pool(4, () => undefined, { runnerIdleTimeMs: 60_000 });
    pool(4, () => undefined, { runnerIdleTimeMs: 20 });
    expect(setIntervalSpy).toHaveBeenCalledTimes(2);
    expect(setIntervalSpy.mock.calls[0]?.[1]).toBe(6000);
    expect(setIntervalSpy.mock.calls[1]?.[1]).toBe(10);
  });

  it('makes a run wait while an idle batch occupies the runner', async () => {
    jest.useFakeTimers();
    const idleGate = deferred();
    const order: string[] = [];
    const runners = pool(
      1,
      async (batch) => {
        order.push(batch.idle ? 'idle' : `request ${numberOf(batch)}`);
        if (batch.idle) await idleGate.promise;
      },
      { runnerIdleTimeMs: 100 },
    );
    await jest.advanceTimersByTimeAsync(110);
    expect(order).toEqual(['idle']);
    const running = runners.run(requestBatch(1), never());
    expect(runners.waitingCount).toBe(1);
    idleGate.resolve();
    await running;
    expect(order).toEqual(['idle', 'request 1']);
  });

  it('reports an idle batch failure to onIdleBatchError with the runner id', async () => {
    const failure = new Error('flush failed');
    const reported = deferred<[unknown, number]>();
    pool(
      1,
      (batch) => {
        if (batch.idle) throw failure;
      },
      { runnerIdleTimeMs: 20, onIdleBatchError: (error, runnerId) => reported.resolve([error, runnerId]) },
    );
    await expect(reported.promise).resolves.toEqual([failure, 0]);
  });

  it('emits a process warning for an idle batch failure by default', async () => {
    const warned = deferred<unknown[]>();
    jest.spyOn(process, 'emitWarning').mockImplementation((...args: unknown[]) => warned.resolve(args));
    pool(
      1,
      async (batch) => {
        if (batch.idle) throw new Error('flush failed');
      },
      { runnerIdleTimeMs: 20 },
    );
    const [message, options] = await warned.promise;
    expect(message).toMatch(/runner 0: flush failed/);
    expect(options).toEqual({ type: 'RunnerPoolWarning', code: 'REST_ORIGIN_IDLE_BATCH_FAILED' });
  });

  it('survives an onIdleBatchError handler that throws', async () => {
    const handled = deferred();
    const runners = pool(
      1,
      (batch) => {
        if (batch.idle) throw new Error('flush failed');
      },
      {
        runnerIdleTimeMs: 20,
        onIdleBatchError: () => {
          handled.resolve();
          throw new Error('handler broke');
        },
      },
    );
    await handled.promise;
    await turn();
    await expect(runners.run(requestBatch(0), never())).resolves.toBeUndefined();
  });

  it('does not keep the process alive with its idle timer', () => {
    const dir = mkdtempSync(join(tmpdir(), 'runner-pool-'));
    try {
      const script = join(dir, 'idle-pool.ts');
      const modulePath = resolve(__dirname, '../../src/pipeline/in-process-runner-pool.ts');
      writeFileSync(
        script,
        `import { InProcessRunnerPool } from ${JSON.stringify(modulePath)};\n` +
          `new InProcessRunnerPool(2, () => undefined, { runnerIdleTimeMs: 50 });\n` +
          `console.log('started');\n`,
      );
      // The timeout only stops a hung child so that the test fails instead of hanging.
      const child = spawnSync(process.execPath, ['--import', 'tsx', script], {
        cwd: resolve(__dirname, '../..'),
        encoding: 'utf8',
        timeout: 20_000,
      });
      expect(child.error).toBeUndefined();
      expect(child.stderr).toBe('');
      expect(child.stdout).toBe('started\n');
      expect(child.status).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('InProcessRunnerPool: close', () => {
  it('resolves at once when no batch is running, and returns the same promise when called again', async () => {
    const runners = pool(2, () => undefined, { runnerIdleTimeMs: 0 });
    const closing = runners.close();
    expect(runners.close()).toBe(closing);
    await expect(closing).resolves.toBeUndefined();
  });

  it('waits for running and waiting batches, then resolves', async () => {
    const gate = deferred();
    const finished: number[] = [];
    const runners = pool(1, async (batch) => {
      await gate.promise;
      finished.push(numberOf(batch));
    });
    const runs = [runners.run(requestBatch(0), never()), runners.run(requestBatch(1), never())];
    let closed = false;
    const closing = runners.close().then(() => {
      closed = true;
    });
    await turn();
    expect(closed).toBe(false);
    gate.resolve();
    await closing;
    expect(finished).toEqual([0, 1]);
    await Promise.all(runs);
  });

  it('rejects runs called after close with ORIGIN_RUNNER_POOL_CLOSED', async () => {
    const pipeline = jest.fn<void, Parameters<Pipeline>>();
    const runners = pool(1, pipeline);
    const closing = runners.close();
    const refused = runners.run(requestBatch(0), never());
    await expect(refused).rejects.toThrow(expect.objectContaining({ code: 'ORIGIN_RUNNER_POOL_CLOSED' }));
    await refused.catch((error: unknown) =>
      expect(isOriginError(error, 'ORIGIN_RUNNER_POOL_CLOSED')).toBe(true),
    );
    await closing;
    expect(pipeline).not.toHaveBeenCalled();
  });

  it('stops idle batches', async () => {
    jest.useFakeTimers();
    const pipeline = jest.fn<void, Parameters<Pipeline>>();
    const runners = pool(2, pipeline, { runnerIdleTimeMs: 100 });
    await runners.close();
    await jest.advanceTimersByTimeAsync(10_000);
    expect(pipeline).not.toHaveBeenCalled();
    expect(jest.getTimerCount()).toBe(0);
  });
});

import { OriginError } from '../errors/origin-error';
import { createIdleBatch, type Batch } from './batch';
import { FINISHED_RUN, type Pipeline, type RunProgress, type RunnerPool } from './runner-pool';

/** Options of {@link InProcessRunnerPool}. */
export interface InProcessRunnerPoolOptions {
  /**
   * Runner Idle Time: a runner idle for at least this many milliseconds receives an empty idle batch, and again
   * after each further idle period. `0` or less turns idle batches off. Default 60 000 (the engine's default).
   */
  readonly runnerIdleTimeMs?: number;
  /**
   * Told when the pipeline throws or rejects on an idle batch. An idle batch has no request to fail, so its
   * error has nowhere else to go. The default emits a process warning (type `RunnerPoolWarning`, code
   * `REST_ORIGIN_IDLE_BATCH_FAILED`) so that the failure is visible without ending the process. Whatever the
   * handler throws is ignored.
   */
  readonly onIdleBatchError?: (error: unknown, runnerId: number) => void;
}

interface Runner {
  readonly id: number;
  /** `performance.now()` when the runner last became free. */
  idleSince: number;
}

interface Waiter {
  readonly batch: Batch;
  readonly signal: AbortSignal;
  readonly progress: RunProgress | undefined;
  readonly resolve: () => void;
  readonly reject: (reason: unknown) => void;
  readonly onAbort: () => void;
}

const MIN_IDLE_CHECK_INTERVAL_MS = 10;
// setInterval turns a longer delay into 1 ms (with a TimeoutOverflowWarning), which would make the check spin.
const MAX_TIMER_DELAY_MS = 2 ** 31 - 1;

function defaultIdleBatchErrorHandler(error: unknown, runnerId: number): void {
  const detail = error instanceof Error ? error.message : String(error);
  process.emitWarning(`The pipeline failed on an idle batch on runner ${runnerId}: ${detail}`, {
    type: 'RunnerPoolWarning',
    code: 'REST_ORIGIN_IDLE_BATCH_FAILED',
  });
}

/**
 * The embedded {@link RunnerPool}: `size` runners in this process, each running one batch at a time through
 * `pipeline`.
 *
 * - A runner is a runner id, `0 .. size - 1`, passed to the pipeline, so a host can keep per-runner stage
 *   instances. A free batch goes to the runner that has been free the longest.
 * - When every runner is busy, `run` waits; waiting calls get runners in the order they called (FIFO). A waiting
 *   call whose signal aborts leaves the queue and rejects with the signal's reason.
 * - A running batch is not interrupted when its signal aborts: the pipeline gets the signal and `run` settles
 *   when the pipeline does. The runner stays busy until then, so at most `size` pipelines ever run at once.
 * - `run` rejects with exactly the error the pipeline threw or rejected with.
 * - Idle batches: one `unref()`ed interval timer (runnerIdleTimeMs / 10, at least 10 ms) gives every runner that
 *   has been free for at least runnerIdleTimeMs an idle batch ({@link createIdleBatch}). An idle batch occupies
 *   its runner like any batch; a request batch arriving meanwhile waits for it. The timer does not keep the
 *   process alive.
 */
export class InProcessRunnerPool implements RunnerPool {
  readonly size: number;
  /** `progress.started()` is called just before the pipeline function, never after the signal aborted. */
  readonly reportsStarts = true;
  readonly runnerIdleTimeMs: number;
  readonly #pipeline: Pipeline;
  readonly #onIdleBatchError: (error: unknown, runnerId: number) => void;
  /** Free runners, the one free the longest first (runners are appended as they become free). */
  readonly #free: Runner[] = [];
  readonly #waiters: Waiter[] = [];
  // Idle batches are never given up on; one signal that never aborts serves them all.
  readonly #idleSignal = new AbortController().signal;
  #busyCount = 0;
  #timer: ReturnType<typeof setInterval> | undefined;
  #closed: Promise<void> | undefined;
  #onDrained: (() => void) | undefined;

  /**
   * @param size - the number of runners; an integer of at least 1.
   * @param pipeline - the stages after the origin; called with one batch at a time per runner.
   * @throws OriginError `ORIGIN_RUNNER_POOL_OPTION_INVALID` when `size`, `pipeline` or `runnerIdleTimeMs` is
   *   not usable.
   */
  constructor(size: number, pipeline: Pipeline, options: InProcessRunnerPoolOptions = {}) {
    const { runnerIdleTimeMs = 60_000, onIdleBatchError = defaultIdleBatchErrorHandler } = options;
    if (!Number.isInteger(size) || size < 1) {
      throw new OriginError('ORIGIN_RUNNER_POOL_OPTION_INVALID', {
        option: 'size',
        value: String(size),
        expected: 'an integer of at least 1',
      });
    }
    if (typeof pipeline !== 'function') {
      throw new OriginError('ORIGIN_RUNNER_POOL_OPTION_INVALID', {
        option: 'pipeline',
        value: typeof pipeline,
        expected: 'a function of a batch',
      });
    }
    if (typeof runnerIdleTimeMs !== 'number' || Number.isNaN(runnerIdleTimeMs)) {
      throw new OriginError('ORIGIN_RUNNER_POOL_OPTION_INVALID', {
        option: 'runnerIdleTimeMs',
        value: String(runnerIdleTimeMs),
        expected: 'a number of milliseconds (0 or less turns idle batches off)',
      });
    }
    this.size = size;
    this.runnerIdleTimeMs = runnerIdleTimeMs;
    this.#pipeline = pipeline;
    this.#onIdleBatchError = onIdleBatchError;
    const now = performance.now();
    for (let id = 0; id < size; id++) this.#free.push({ id, idleSince: now });
    if (runnerIdleTimeMs > 0 && Number.isFinite(runnerIdleTimeMs)) {
      const interval = Math.min(
        Math.max(MIN_IDLE_CHECK_INTERVAL_MS, runnerIdleTimeMs / 10),
        MAX_TIMER_DELAY_MS,
      );
      this.#timer = setInterval(() => this.#sendIdleBatches(), interval);
      this.#timer.unref();
    }
  }

  /** Runners running a batch now, idle batches included. */
  get busyCount(): number {
    return this.#busyCount;
  }

  /** `run` calls waiting for a free runner. */
  get waitingCount(): number {
    return this.#waiters.length;
  }

  /**
   * Runs `batch` on a free runner, or waits (FIFO) for one. Resolves when the pipeline is done with the batch;
   * rejects with the pipeline's error when it throws or rejects, with `signal.reason` when the signal aborts
   * before a runner took the batch, and with `ORIGIN_RUNNER_POOL_CLOSED` once {@link close} has been called.
   * `progress.started()` is called just before the pipeline function, never for a batch whose signal aborted
   * (such a batch left the queue at the abort), so the origin knows a withdrawn batch was never processed.
   */
  run(batch: Batch, signal: AbortSignal, progress?: RunProgress): Promise<void> {
    if (this.#closed) return Promise.reject(new OriginError('ORIGIN_RUNNER_POOL_CLOSED'));
    if (signal.aborted) return Promise.reject(signal.reason);
    const runner = this.#free.shift();
    if (runner) return this.#runOn(runner, batch, signal, progress);
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = {
        batch,
        signal,
        progress,
        resolve,
        reject,
        onAbort: () => {
          const index = this.#waiters.indexOf(waiter);
          if (index >= 0) this.#waiters.splice(index, 1);
          reject(signal.reason);
        },
      };
      signal.addEventListener('abort', waiter.onAbort, { once: true });
      this.#waiters.push(waiter);
    });
  }

  /** Ready until {@link InProcessRunnerPool.close} is called (see {@link RunnerPool.ready}). */
  ready(): boolean {
    return this.#closed === undefined;
  }

  /**
   * Stops idle batches and refuses new `run` calls at once (they reject with `ORIGIN_RUNNER_POOL_CLOSED`);
   * batches already running or waiting still run. Resolves when the last of them is done. Calling it again
   * returns the same promise.
   */
  close(): Promise<void> {
    if (this.#closed) return this.#closed;
    clearInterval(this.#timer);
    this.#timer = undefined;
    this.#closed = new Promise<void>((resolve) => {
      if (this.#busyCount === 0) resolve();
      else this.#onDrained = resolve;
    });
    return this.#closed;
  }

  #runOn(runner: Runner, batch: Batch, signal: AbortSignal, progress?: RunProgress): Promise<void> {
    this.#busyCount++;
    let result: void | Promise<void>;
    try {
      progress?.started();
      result = this.#pipeline(batch, { runnerId: runner.id, signal });
    } catch (error) {
      this.#release(runner);
      return Promise.reject(error as Error);
    }
    // A synchronous pipeline (the echo pipeline, most stages) is done now: no await, no extra tick.
    if (!isThenable(result)) {
      this.#release(runner);
      return FINISHED_RUN;
    }
    return Promise.resolve(result).then(
      () => this.#release(runner),
      (error: unknown) => {
        this.#release(runner);
        throw error;
      },
    );
  }

  #release(runner: Runner): void {
    this.#busyCount--;
    // Only idle batches read it: with them off (the timer was never started), no clock read per batch.
    if (this.#timer !== undefined) runner.idleSince = performance.now();
    const waiter = this.#waiters.shift();
    if (waiter) {
      waiter.signal.removeEventListener('abort', waiter.onAbort);
      this.#runOn(runner, waiter.batch, waiter.signal, waiter.progress).then(waiter.resolve, waiter.reject);
      return;
    }
    this.#free.push(runner);
    if (this.#busyCount === 0 && this.#onDrained) {
      this.#onDrained();
      this.#onDrained = undefined;
    }
  }

  #sendIdleBatches(): void {
    const now = performance.now();
    // #free is ordered by idleSince, so the runners due for an idle batch are a prefix of it.
    for (let runner = this.#free[0]; runner; runner = this.#free[0]) {
      if (now - runner.idleSince < this.runnerIdleTimeMs) break;
      this.#free.shift();
      const runnerId = runner.id;
      this.#runOn(runner, createIdleBatch(), this.#idleSignal).catch((error: unknown) => {
        try {
          this.#onIdleBatchError(error, runnerId);
        } catch {
          // The handler's own failure has nowhere to go; an unhandled rejection would end the process.
        }
      });
    }
  }
}

function isThenable(value: unknown): value is PromiseLike<void> {
  return typeof (value as PromiseLike<void> | undefined)?.then === 'function';
}

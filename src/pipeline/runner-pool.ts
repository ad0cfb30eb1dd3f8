import type { Batch } from './batch';

/**
 * The contract between the origin and the host engine that runs the pipeline. A host implements it to run the
 * stages after the origin; `InProcessRunnerPool` is the embedded default.
 *
 * The origin calls `run` once per admitted request, from as many requests at once as `maxConcurrentRequests`
 * allows, and never for the same batch twice. The pool decides which runner takes the batch and when; when all
 * runners are busy, `run` waits for one.
 *
 * Ordering: the records of one batch are in body order and a pool must hand them to the stages in that order.
 * Batches of different requests may finish in any order.
 */
export interface RunnerPool {
  /** The number of runners: how many batches can be in the pipeline at the same time. At least 1. */
  readonly size: number;

  /**
   * Optional. `true` when `run` keeps the {@link RunProgress} contract: it calls `progress.started()` before a
   * stage sees the batch, and never starts a batch whose signal aborted. Only then does the origin answer a
   * batch it gives up on before its start 503 ("withdrawn, retry"); without it every such batch is answered 504
   * ("may have been processed"). `InProcessRunnerPool` reports starts.
   */
  readonly reportsStarts?: boolean;

  /**
   * Runs `batch` through every stage after the origin.
   *
   * Resolves when every stage is done with the batch; from then on the origin reads `batch.response` and owns it
   * again, so no stage may touch the batch afterwards. Rejects when the pipeline failed (a stage threw, or the
   * pipeline was stopped); the origin answers such a request with 500 (`ORIGIN_PIPELINE_FAILED`).
   *
   * `signal` aborts when the origin gives up on the batch: the response timeout passed, or the origin is being
   * destroyed. A pool should then drop the batch if it has not started it yet and tell running stages, so that
   * they can stop early; after the abort the origin no longer waits for the returned promise, so it may settle
   * whenever the stages are done.
   *
   * The signal belongs to this run only. The origin reuses the signals of batches that ended without an abort
   * (making an `AbortSignal` costs a few µs per request), so a pool or stage may read `signal.aborted`, add abort
   * listeners and pass the signal on while the run lasts, but must remove its listeners before the returned
   * promise settles (a signal that still has a listener is not reused, only dropped) and must not keep the
   * signal, or act on it, after that: a kept signal may later abort for another batch.
   *
   * `progress` (passed by the origin with every request batch) is how the pool says when the batch reaches the
   * pipeline; see {@link RunProgress} and {@link RunnerPool.reportsStarts}. A pool that ignores it still works:
   * the origin then treats every batch it gives up on as possibly processed (504, no `Retry-After`).
   */
  run(batch: Batch, signal: AbortSignal, progress?: RunProgress): Promise<void>;

  /**
   * Optional. Whether the pool would take a batch now; `false` makes the origin's readiness path
   * (`http.readinessPath`) answer 503, so that a load balancer sends requests elsewhere (decision 0081). Called on
   * every readiness probe, never on the request path: keep it cheap and synchronous. A pool without it counts as
   * ready. `InProcessRunnerPool` is ready until it is closed.
   */
  ready?(): boolean;

  /**
   * Optional. Called once by the host when it shuts the pool down (the origin does not own the pool and never
   * calls it). Should let running batches finish and resolve when they have.
   */
  close?(): Promise<void>;
}

/**
 * What a {@link RunnerPool} tells the origin about one run, so that the answer to a batch the origin gives up on
 * (response timeout, `destroy()`) says truly whether it was processed (decision 0045):
 *
 * - a batch whose `started()` was not called when the origin gives up is answered 503 with `Retry-After`
 *   ("not processed, retry"), and the pool must never hand it to a stage after its signal aborted;
 * - a batch whose `started()` was called is answered 504 without `Retry-After` ("outcome unknown").
 *
 * Contract for a pool that calls it: call `started()` once, before the first stage can see the batch (for a pool
 * that sends batches to other threads or processes: before sending), and only while the signal has not aborted;
 * check `signal.aborted` in the same synchronous step as the call, since the origin decides between the two
 * answers when the signal aborts.
 */
export interface RunProgress {
  /** The batch is being handed to the pipeline now; from here on it may be processed. */
  started(): void;
}

/**
 * The promise {@link InProcessRunnerPool} returns when the pipeline finished the batch synchronously: already
 * resolved, and known to the origin by identity, which then goes on at once instead of waiting a microtask for
 * it (and making a promise of its own to wait with). Not part of the package's API; any other resolved promise
 * means the same, a tick later.
 */
export const FINISHED_RUN: Promise<void> = Promise.resolve();

/** What a {@link Pipeline} learns about the run it is called for. */
export interface PipelineContext {
  /**
   * The runner taking the batch, `0 .. size - 1`. A runner runs one batch at a time, so a host can keep one set
   * of stage instances per runner id without locking.
   */
  readonly runnerId: number;
  /** Aborts when the origin gives up on the batch (response timeout, destroy); never aborts for idle batches. */
  readonly signal: AbortSignal;
}

/**
 * The stages after the origin, as one function of a batch, for `InProcessRunnerPool`. It is done with the
 * batch when it returns (or its promise resolves); throwing (or rejecting) fails the batch.
 */
export type Pipeline = (batch: Batch, context: PipelineContext) => void | Promise<void>;

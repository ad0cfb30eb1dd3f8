import cluster, { type Worker } from 'node:cluster';
import { mergeMetricsSnapshots, type MetricsSnapshot } from '../metrics/metrics-snapshot';
import { startRateLimiterClusterPrimary } from '../origin/rate-limits';
import { isClusterMessage, type ClusterMessage, type ClusterMetrics } from './cluster-messages';

/** How long the primary waits for each worker's metrics before it answers without them. */
export const WORKER_METRICS_TIMEOUT_MS = 1000;

/** The services the primary of `rest-origin serve --workers` runs for its workers. */
export interface PrimaryServices {
  /** The cluster's metrics: every live worker asked over IPC, plus the final counters of retired workers. */
  collectMetrics(timeoutMs?: number): Promise<ClusterMetrics>;
  /** Stops the services (after the last worker has exited). */
  close(): void;
}

/**
 * The one place where services that live on the primary of `rest-origin serve --workers` start, before the
 * first worker is forked and so before any worker can ask them anything. Each service talks to the workers
 * over the cluster's IPC channel (`cluster.on('message')`, `worker.send`), with messages of its own shape:
 * the origin's are typed `rest-origin:*` (see cluster-messages.ts) and ignore the rest.
 *
 * Started here: the metrics aggregator (answers a worker's `rest-origin:cluster-metrics-request`, and is what
 * the primary prints on SIGUSR2 and at the end), and the rate limiters' cluster master
 * (`startRateLimiterClusterPrimary`: rate-limiter-flexible's `RateLimiterClusterMaster`, where the workers'
 * `http.rateLimits` count, so that a limit holds for the whole port, not per worker; it listens only to its own
 * messages and costs nothing without limits). A further service that must run on the primary is started by
 * adding it to this function and, when it holds resources, to its `close()`.
 */
export function startPrimaryServices(): PrimaryServices {
  // Before the first fork: a worker's limiter announces itself when its origin is made, and one announced before
  // the master exists waits unanswered.
  startRateLimiterClusterPrimary();
  const metrics = new MetricsAggregator();
  return {
    collectMetrics: (timeoutMs) => metrics.collect(timeoutMs),
    close: () => metrics.close(),
  };
}

/** Sums the workers' metrics on the primary; see {@link PrimaryServices.collectMetrics}. */
class MetricsAggregator {
  /** The counters of workers that have exited after sending their final metrics. */
  readonly #retired = new Map<number, MetricsSnapshot>();
  readonly #pending = new Map<number, (worker: Worker, metrics: MetricsSnapshot) => void>();
  #nextId = 0;
  readonly #onMessage = (worker: Worker, message: unknown): void => {
    if (!isClusterMessage(message)) return;
    if (message.type === 'rest-origin:metrics') {
      this.#pending.get(message.id)?.(worker, message.metrics);
    } else if (message.type === 'rest-origin:final-metrics') {
      this.#retired.set(worker.id, message.metrics);
    } else if (message.type === 'rest-origin:cluster-metrics-request') {
      void this.collect().then((metrics) => {
        if (worker.isConnected()) {
          worker.send({
            type: 'rest-origin:cluster-metrics',
            id: message.id,
            metrics,
          } satisfies ClusterMessage);
        }
      });
    }
  };

  constructor() {
    cluster.on('message', this.#onMessage);
  }

  collect(timeoutMs = WORKER_METRICS_TIMEOUT_MS): Promise<ClusterMetrics> {
    const id = ++this.#nextId;
    const live = Object.values(cluster.workers ?? {}).filter(
      (worker): worker is Worker => worker !== undefined && worker.isConnected(),
    );
    const answers = new Map<number, MetricsSnapshot>();
    return new Promise<ClusterMetrics>((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        this.#pending.delete(id);
        // A worker that retired while it was asked counts once, by its final counters.
        const workers = live
          .filter((worker) => answers.has(worker.id) && !this.#retired.has(worker.id))
          .map((worker) => ({ pid: worker.process.pid ?? 0, metrics: answers.get(worker.id)! }));
        resolve({
          total: mergeMetricsSnapshots([...this.#retired.values(), ...workers.map((w) => w.metrics)]),
          workers,
          missing: live.filter((worker) => !answers.has(worker.id)).length,
        });
      };
      const timer = setTimeout(done, timeoutMs);
      this.#pending.set(id, (worker, metrics) => {
        answers.set(worker.id, metrics);
        if (answers.size === live.length) done();
      });
      if (live.length === 0) return done();
      for (const worker of live) {
        worker.send({ type: 'rest-origin:metrics-request', id } satisfies ClusterMessage);
      }
    });
  }

  close(): void {
    cluster.off('message', this.#onMessage);
  }
}

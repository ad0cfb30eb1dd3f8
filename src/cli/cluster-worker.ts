import cluster from 'node:cluster';
import type { Origin } from '../origin/origin';
import { isClusterMessage, type ClusterMessage, type ClusterMetrics } from './cluster-messages';
import { mergeMetricsSnapshots, type MetricsSnapshot } from '../metrics/metrics-snapshot';

/** The origins this process serves, once `serving` named them (a worker sums them for the primary). */
let served: readonly Origin[] = [];
let nextRequestId = 0;
const pendingClusterMetrics = new Map<number, (metrics: ClusterMetrics) => void>();
/** Why the primary wants this worker to stop, once it said so (or went away); `onShutdown` acts on it. */
let drainReason: string | undefined;
let drain: ((why: string) => void) | undefined;

function send(message: ClusterMessage): void {
  if (process.connected) process.send?.(message);
}

/**
 * In a worker of `serve --workers`, called first thing: listens to the primary (drain, metrics requests) from
 * the start, so that a drain sent while the origin is still starting is not lost. Outside a cluster it does
 * nothing.
 */
export function joinCluster(): void {
  if (!cluster.isWorker) return;
  process.on('message', (message: unknown) => {
    if (!isClusterMessage(message)) return;
    if (message.type === 'rest-origin:drain') requestDrain('drain from the primary');
    else if (message.type === 'rest-origin:metrics-request') {
      send({ type: 'rest-origin:metrics', id: message.id, metrics: ownMetrics() });
    } else if (message.type === 'rest-origin:cluster-metrics') {
      pendingClusterMetrics.get(message.id)?.(message.metrics);
      pendingClusterMetrics.delete(message.id);
    }
  });
  // SIGUSR2 is the primary's (it prints the metrics); a signal sent to the whole process group must not end the
  // workers, which Node's default for SIGUSR2 would.
  process.on('SIGUSR2', () => {});
  // A primary that died cannot drain its workers; they drain themselves rather than serve unsupervised.
  process.once('disconnect', () => requestDrain('the primary is gone'));
}

function requestDrain(why: string): void {
  drainReason ??= why;
  drain?.(why);
}

/**
 * Calls `close` once, on the first SIGINT or SIGTERM, or, in a worker of `serve --workers`, on the primary's
 * drain message or when the primary is gone (also when that came before this call). Each signal is caught once:
 * a second SIGINT stops the process at once, the operator's way out of a drain that takes too long.
 */
export function onShutdown(close: () => void): void {
  let closing = false;
  const shutdown = (why: string): void => {
    if (closing) return;
    closing = true;
    console.log(`rest-origin: ${why}, closing`);
    close();
  };
  process.once('SIGINT', () => shutdown('SIGINT received'));
  process.once('SIGTERM', () => shutdown('SIGTERM received'));
  drain = shutdown;
  if (drainReason !== undefined) shutdown(drainReason);
}

/**
 * In a worker of `serve --workers`: tells the primary that `origins` listen at `url`; from then on the
 * worker's metrics are their summed snapshot. Outside a cluster it only records them.
 */
export function serving(origins: readonly Origin[], url: string): void {
  served = origins;
  if (cluster.isWorker) send({ type: 'rest-origin:listening', url });
}

function ownMetrics(): MetricsSnapshot {
  return mergeMetricsSnapshots(served.map((origin) => origin.metrics({ format: 'snapshot' })));
}

/** How long a worker waits for the primary's answer to a cluster metrics request. */
export const CLUSTER_METRICS_TIMEOUT_MS = 2000;

/**
 * The metrics of the whole cluster, asked of the primary over IPC (for a worker that answers a metrics
 * request). Rejects when this process is no worker, or the primary does not answer within `timeoutMs`.
 */
export function clusterMetrics(timeoutMs = CLUSTER_METRICS_TIMEOUT_MS): Promise<ClusterMetrics> {
  if (!cluster.isWorker || !process.connected) {
    return Promise.reject(new Error('not a worker of rest-origin serve --workers'));
  }
  const id = ++nextRequestId;
  return new Promise<ClusterMetrics>((resolve, reject) => {
    const timer = setTimeout(() => {
      pendingClusterMetrics.delete(id);
      reject(new Error(`the primary did not send the cluster metrics within ${timeoutMs} ms`));
    }, timeoutMs);
    pendingClusterMetrics.set(id, (metrics) => {
      clearTimeout(timer);
      resolve(metrics);
    });
    send({ type: 'rest-origin:cluster-metrics-request', id });
  });
}

/**
 * In a worker whose origins have all closed (or failed to start): sends their final counters to the primary
 * (which adds them to the cluster's totals), then exits with `process.exitCode`. Leaving the IPC channel alone
 * would not do: Node ends a worker whose channel closes with code 0, whatever went wrong. Resolves at once
 * outside a cluster.
 */
export function leaveCluster(): Promise<void> {
  if (!cluster.isWorker || !process.connected) return Promise.resolve();
  return new Promise<void>(() => {
    process.send!({ type: 'rest-origin:final-metrics', metrics: ownMetrics() } satisfies ClusterMessage, () =>
      process.exit(),
    );
  });
}

import type { MetricsSnapshot } from '../metrics/metrics-snapshot';

/**
 * The IPC messages between the primary and the workers of `rest-origin serve --workers`. Each carries a `type`
 * starting `rest-origin:`, so that other users of the cluster channel (a rate limiter's cluster master) can
 * share it: a message of another shape is left alone by both sides.
 */
export type ClusterMessage =
  /** Worker → primary: its origins listen at `url`. */
  | { readonly type: 'rest-origin:listening'; readonly url: string }
  /** Primary → worker: close every origin (no new requests; admitted ones are answered), then exit. */
  | { readonly type: 'rest-origin:drain' }
  /** Primary → worker: send the metrics of your origins now, answering with the same `id`. */
  | { readonly type: 'rest-origin:metrics-request'; readonly id: number }
  /** Worker → primary: the answer to a metrics request. */
  | { readonly type: 'rest-origin:metrics'; readonly id: number; readonly metrics: MetricsSnapshot }
  /** Worker → primary: the whole cluster's metrics, please (for a worker that answers a metrics request). */
  | { readonly type: 'rest-origin:cluster-metrics-request'; readonly id: number }
  /** Primary → worker: the answer to a cluster metrics request. */
  | { readonly type: 'rest-origin:cluster-metrics'; readonly id: number; readonly metrics: ClusterMetrics }
  /** Worker → primary, once its origins have closed: their final counters. */
  | { readonly type: 'rest-origin:final-metrics'; readonly metrics: MetricsSnapshot };

/** The metrics of every worker of a cluster, summed on the primary. */
export interface ClusterMetrics {
  /** The workers' snapshots merged (`mergeMetricsSnapshots`), retired workers' final counters included. */
  readonly total: MetricsSnapshot;
  /** Each live worker that answered in time, with its own snapshot. */
  readonly workers: readonly { readonly pid: number; readonly metrics: MetricsSnapshot }[];
  /** Live workers that did not answer within the timeout (their counters are missing from `total`). */
  readonly missing: number;
}

/** Whether `message` is one of ours (by its `type` prefix); anything else on the channel is someone else's. */
export function isClusterMessage(message: unknown): message is ClusterMessage {
  return (
    typeof message === 'object' &&
    message !== null &&
    typeof (message as { type?: unknown }).type === 'string' &&
    (message as { type: string }).type.startsWith('rest-origin:')
  );
}

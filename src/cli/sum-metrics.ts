import type { OriginMetricsSnapshot } from '../origin/origin-metrics';

type Counts = Readonly<Record<string, number | undefined>>;

/**
 * One snapshot of several origins' `metrics()` (the origins of one process, or the workers of `rest-origin serve
 * --workers`): every counter, every count by status and by reason, `inFlight` and `queued` are summed. Latency
 * percentiles of separate windows cannot be added; each merged percentile is the largest of the parts' (an upper
 * bound of the true one) and `count` is summed. No snapshot: all zero.
 */
export function sumMetricsSnapshots(snapshots: readonly OriginMetricsSnapshot[]): OriginMetricsSnapshot {
  const add = (pick: (s: OriginMetricsSnapshot) => number): number =>
    snapshots.reduce((sum, s) => sum + pick(s), 0);
  const most = (pick: (s: OriginMetricsSnapshot) => number): number =>
    snapshots.reduce((max, s) => Math.max(max, pick(s)), 0);
  return {
    requests: {
      total: add((s) => s.requests.total),
      byOutcome: {
        answered: add((s) => s.requests.byOutcome.answered),
        rejected: add((s) => s.requests.byOutcome.rejected),
        failed: add((s) => s.requests.byOutcome.failed),
      },
      byStatus: sumCounts(snapshots.map((s) => s.requests.byStatus)),
    },
    rejectedByReason: sumCounts(snapshots.map((s) => s.rejectedByReason)),
    records: {
      produced: add((s) => s.records.produced),
      errors: add((s) => s.records.errors),
      discarded: add((s) => s.records.discarded),
    },
    bytesReceived: add((s) => s.bytesReceived),
    inFlight: add((s) => s.inFlight),
    queued: add((s) => s.queued),
    latencyMs: {
      count: add((s) => s.latencyMs.count),
      p50: most((s) => s.latencyMs.p50),
      p90: most((s) => s.latencyMs.p90),
      p99: most((s) => s.latencyMs.p99),
      max: most((s) => s.latencyMs.max),
    },
  };
}

function sumCounts(parts: readonly Counts[]): Record<string, number> {
  const sum: Record<string, number> = {};
  for (const part of parts) {
    for (const [key, value] of Object.entries(part)) sum[key] = (sum[key] ?? 0) + (value ?? 0);
  }
  return sum;
}

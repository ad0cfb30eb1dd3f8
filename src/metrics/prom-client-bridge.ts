import type { MetricFamily, MetricLabels, MetricsSnapshot } from './metrics-snapshot';

/**
 * What the bridge needs of a prom-client `Registry` (prom-client 15): `registerMetric` and
 * `removeSingleMetric`. Stated here rather than imported, so that the package does not depend on prom-client
 * (an optional peer dependency): pass the host's own registry, `register` (the default one) or a `new Registry()`.
 */
export interface PromClientRegistry {
  /** Adds a metric (any object with prom-client's `name`, `help`, `type` and `get()`); throws on a name in use. */
  registerMetric(metric: never): void;
  /** Removes the metric of that name. */
  removeSingleMetric(name: string): void;
}

/** Where the bridge reads metrics at each scrape: an origin, or any function that returns a snapshot. */
export type MetricsSource = SnapshotSource | (() => MetricsSnapshot);

/** Anything with an origin's `metrics({ format: 'snapshot' })` (an `Origin`). */
export interface SnapshotSource {
  /** Called with `{ format: 'snapshot' }` at each scrape. */
  metrics(options: { format: 'snapshot' }): MetricsSnapshot;
}

/** One value of a metric as prom-client's registry reads it from `get()`. */
interface PromClientValue {
  value: number;
  labels: Record<string, string | number>;
  metricName?: string;
}

/**
 * Registers an origin's metric families on a prom-client registry, so that a host that already serves
 * `registry.metrics()` exposes the origin's metrics beside its own. Each family becomes one collector that reads
 * a fresh snapshot from `source` when the registry is scraped (one snapshot per scrape per family: snapshots are
 * cheap), in the registry's content type (Prometheus or OpenMetrics); prom-client's cluster aggregation adds them
 * up (`aggregator: 'sum'`). Returns a function that removes them again.
 *
 * @throws Error from prom-client when the registry already has a metric of one of the names (two origins of one
 *   process: register one source that merges both, e.g. `() => mergeMetricsSnapshots([a, b].map(...))`).
 */
export function registerPromClientMetrics(registry: PromClientRegistry, source: MetricsSource): () => void {
  const read = typeof source === 'function' ? source : () => source.metrics({ format: 'snapshot' });
  const names: string[] = [];
  for (const family of read().families) {
    registry.registerMetric(bridgeMetric(family, read) as never);
    names.push(family.name);
  }
  return () => {
    for (const name of names) registry.removeSingleMetric(name);
  };
}

/**
 * A prom-client metric object for one family. prom-client renames a counter (drops `_total`) on the object
 * itself when it renders OpenMetrics, so `get()` reads the current `name` rather than the family's.
 */
function bridgeMetric(family: MetricFamily, read: () => MetricsSnapshot): object {
  const metric = {
    name: family.name,
    help: family.help,
    type: family.type,
    aggregator: 'sum',
    get: () => {
      const now = read().families.find((f) => f.name === family.name) ?? family;
      return Promise.resolve({
        name: metric.name,
        help: metric.help,
        type: metric.type,
        aggregator: metric.aggregator,
        values: promClientValues(now, metric.name),
      });
    },
    reset: () => undefined,
  };
  return metric;
}

function promClientValues(family: MetricFamily, name: string): PromClientValue[] {
  if (family.type !== 'histogram') {
    return family.samples.map((sample) => ({ value: sample.value, labels: { ...sample.labels } }));
  }
  const values: PromClientValue[] = [];
  for (const sample of family.samples) {
    family.buckets.forEach((bound, i) => {
      values.push(bucket(name, sample.labels, bound, sample.bucketCounts[i] ?? 0));
    });
    values.push(bucket(name, sample.labels, '+Inf', sample.count));
    values.push({ metricName: `${name}_sum`, labels: { ...sample.labels }, value: sample.sum });
    values.push({ metricName: `${name}_count`, labels: { ...sample.labels }, value: sample.count });
  }
  return values;
}

function bucket(name: string, labels: MetricLabels, le: number | string, value: number): PromClientValue {
  return { metricName: `${name}_bucket`, labels: { ...labels, le }, value };
}

/**
 * The mergeable form of an origin's metrics: plain, JSON-serialisable data, so that the worker processes of a
 * cluster can send theirs to the primary over IPC, which merges them ({@link mergeMetricsSnapshots}) and renders
 * the sum (`renderPrometheusText`). Counters and gauges are values keyed by labels; histograms are cumulative
 * bucket counts with their sum and count, never percentiles, since percentiles of several processes cannot be
 * added up. Nothing here refers to the origin: a snapshot is only data.
 */

/** A sample's labels: label name → value. Each sample of a family has its own set of label values. */
export type MetricLabels = Readonly<Record<string, string>>;

/** One counter or gauge value under one set of labels. */
export interface ValueSample {
  readonly labels: MetricLabels;
  readonly value: number;
}

/**
 * One histogram under one set of labels. `bucketCounts[i]` is the number of observations less than or equal to
 * the family's `buckets[i]` (cumulative, as Prometheus exposes them); the `+Inf` bucket is `count`.
 */
export interface HistogramSample {
  readonly labels: MetricLabels;
  readonly bucketCounts: readonly number[];
  readonly sum: number;
  readonly count: number;
}

/** What every metric family has: its name (Prometheus conventions, counters end in `_total`) and help text. */
interface FamilyBase {
  readonly name: string;
  readonly help: string;
}

/** A value that only goes up (since the origin was made); merged by adding. */
export interface CounterFamily extends FamilyBase {
  readonly type: 'counter';
  readonly samples: readonly ValueSample[];
}

/** A value that goes up and down (requests in flight, queue depth); merged by adding, as each process has its own. */
export interface GaugeFamily extends FamilyBase {
  readonly type: 'gauge';
  readonly samples: readonly ValueSample[];
}

/** A distribution over fixed buckets; merged by adding bucket by bucket (the buckets must be the same). */
export interface HistogramFamily extends FamilyBase {
  readonly type: 'histogram';
  /** Upper bounds of the buckets, ascending, in the family's base unit; the `+Inf` bucket is implied. */
  readonly buckets: readonly number[];
  readonly samples: readonly HistogramSample[];
}

/** One metric family of a {@link MetricsSnapshot}. */
export type MetricFamily = CounterFamily | GaugeFamily | HistogramFamily;

/**
 * An origin's metrics at one moment (`origin.metrics({ format: 'snapshot' })`): every family the origin keeps, in a
 * fixed order, a family with no sample yet included. Plain data: `JSON.parse(JSON.stringify(s))` is the same
 * snapshot.
 */
export interface MetricsSnapshot {
  readonly families: readonly MetricFamily[];
}

/**
 * Adds snapshots up: families are matched by name (in the order each first appears), samples by their label set;
 * counters, gauges and histogram buckets, sums and counts are added. Pure: the inputs are not changed. Used by a
 * cluster's primary to sum its workers, and by a port shared by several origins to serve them all (their
 * `origin` labels keep their samples apart).
 *
 * @throws TypeError when two snapshots have a family of the same name with different types or buckets.
 */
export function mergeMetricsSnapshots(snapshots: readonly MetricsSnapshot[]): MetricsSnapshot {
  const merged = new Map<string, FamilyMerge>();
  for (const snapshot of snapshots) {
    for (const family of snapshot.families) {
      const into = merged.get(family.name);
      if (into === undefined) merged.set(family.name, new FamilyMerge(family));
      else into.add(family);
    }
  }
  return { families: [...merged.values()].map((family) => family.result()) };
}

/** The samples of one family being merged, by label set. */
class FamilyMerge {
  readonly #first: MetricFamily;
  readonly #values = new Map<string, { labels: MetricLabels; value: number }>();
  readonly #histograms = new Map<
    string,
    { labels: MetricLabels; bucketCounts: number[]; sum: number; count: number }
  >();

  constructor(first: MetricFamily) {
    this.#first = first;
    this.add(first);
  }

  add(family: MetricFamily): void {
    const first = this.#first;
    if (family.type !== first.type) {
      throw new TypeError(
        `Metric ${family.name} is a ${family.type} in one snapshot and a ${first.type} in another`,
      );
    }
    if (family.type === 'histogram') return this.#addHistograms(family, first as HistogramFamily);
    for (const sample of family.samples) {
      const key = labelKey(sample.labels);
      const into = this.#values.get(key);
      if (into === undefined) this.#values.set(key, { labels: { ...sample.labels }, value: sample.value });
      else into.value += sample.value;
    }
  }

  #addHistograms(family: HistogramFamily, first: HistogramFamily): void {
    if (!sameBuckets(family.buckets, first.buckets)) {
      throw new TypeError(`Histogram ${family.name} has different buckets in two snapshots`);
    }
    for (const sample of family.samples) {
      const key = labelKey(sample.labels);
      const into = this.#histograms.get(key);
      if (into === undefined) {
        this.#histograms.set(key, {
          labels: { ...sample.labels },
          bucketCounts: [...sample.bucketCounts],
          sum: sample.sum,
          count: sample.count,
        });
        continue;
      }
      sample.bucketCounts.forEach((n, i) => (into.bucketCounts[i] = (into.bucketCounts[i] ?? 0) + n));
      into.sum += sample.sum;
      into.count += sample.count;
    }
  }

  result(): MetricFamily {
    const { name, help } = this.#first;
    if (this.#first.type === 'histogram') {
      return {
        name,
        help,
        type: 'histogram',
        buckets: [...this.#first.buckets],
        samples: [...this.#histograms.values()],
      };
    }
    return { name, help, type: this.#first.type, samples: [...this.#values.values()] };
  }
}

/** The same label set gives the same key whatever the order of its names. */
function labelKey(labels: MetricLabels): string {
  return Object.keys(labels)
    .sort()
    .map((name) => `${name}\u0000${labels[name]}`)
    .join('\u0001');
}

function sameBuckets(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((bound, i) => bound === b[i]);
}

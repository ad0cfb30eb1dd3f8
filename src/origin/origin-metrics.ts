import type { ErrorCode } from '../errors/error-table';
import type {
  HistogramSample,
  MetricFamily,
  MetricLabels,
  MetricsSnapshot,
  ValueSample,
} from '../metrics/metrics-snapshot';
import type { RateLimitKey } from './rate-limit-options';

/**
 * A summary of an origin's counters, as `origin.metrics()` returns it (the shape of 0.1.0). Counters start at
 * zero at construction. The mergeable form with every label and histogram is `origin.metrics({ format:
 * 'snapshot' })` (docs/metrics.md).
 */
export interface OriginMetricsSnapshot {
  readonly requests: {
    readonly total: number;
    /** `answered`: the pipeline ran and answered; `rejected`: refused before the pipeline; `failed`: the pipeline failed or timed out. */
    readonly byOutcome: { readonly answered: number; readonly rejected: number; readonly failed: number };
    /** Answers by HTTP status, e.g. `{ "200": 10, "403": 1 }`. */
    readonly byStatus: Readonly<Record<string, number>>;
  };
  /** Rejections and failures by error code. */
  readonly rejectedByReason: Readonly<Partial<Record<ErrorCode, number>>>;
  /**
   * 429 answers of the per-tenant limits by the key kind of the limit that refused: http.rateLimits
   * (`ORIGIN_HTTP_RATE_LIMITED`; a request over two limits counts under both) and http.maxConcurrentRequestsPerKey
   * (`ORIGIN_HTTP_TENANT_BUSY`).
   */
  readonly rateLimitedByKey: Readonly<Record<RateLimitKey, number>>;
  readonly records: {
    /** Records handed to the pipeline. */
    readonly produced: number;
    /** Error records made from parse failures (onRecordError sendToError). */
    readonly errors: number;
    /** Failed records dropped (onRecordError discard). */
    readonly discarded: number;
  };
  /** Decoded request body bytes read. */
  readonly bytesReceived: number;
  /** Requests holding a slot right now. */
  readonly inFlight: number;
  /** Requests waiting for a slot right now. */
  readonly queued: number;
  /**
   * Time from arrival to answer written, of every request since the origin was made: `p50`, `p90` and `p99` are
   * estimated from the buckets of `rest_origin_request_duration_seconds` (linear within a bucket, as Prometheus's
   * `histogram_quantile`), `max` is exact.
   */
  readonly latencyMs: {
    readonly count: number;
    readonly p50: number;
    readonly p90: number;
    readonly p99: number;
    readonly max: number;
  };
}

/** What became of a request: `answered` by the pipeline, `rejected` before it, `failed` in it (the `outcome` label). */
export type RequestOutcome = 'answered' | 'rejected' | 'failed';

/**
 * What became of a parse failure (the `action` label): the `general.onRecordError` policy that handled it
 * (`discard`, `sendToError`, `stopPipeline`), or `refused` (a failure of the whole body refused the request).
 */
export type ParseFailureAction = 'discard' | 'sendToError' | 'stopPipeline' | 'refused';

/** Upper bounds of the duration histograms, in seconds: 0.5 ms to a minute. */
export const DURATION_BUCKETS_SECONDS: readonly number[] = [
  0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60,
];
/** Upper bounds of the response size histogram, in bytes: 64 B to 16 MiB. */
export const SIZE_BUCKETS_BYTES: readonly number[] = [
  64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216,
];

const OUTCOMES: readonly RequestOutcome[] = ['answered', 'rejected', 'failed'];
const ACTIONS: readonly ParseFailureAction[] = ['discard', 'sendToError', 'stopPipeline', 'refused'];

/**
 * A histogram being counted: one count per bucket (not cumulative until a snapshot is taken), the sum and the
 * largest value seen. `observe` is a short scan of the bounds and two additions, with no allocation.
 */
class Histogram {
  readonly #bounds: readonly number[];
  readonly #counts: Float64Array;
  #sum = 0;
  #count = 0;
  #max = 0;

  constructor(bounds: readonly number[]) {
    this.#bounds = bounds;
    this.#counts = new Float64Array(bounds.length + 1);
  }

  get count(): number {
    return this.#count;
  }

  get max(): number {
    return this.#max;
  }

  observe(value: number): void {
    const bounds = this.#bounds;
    let i = 0;
    while (i < bounds.length && value > bounds[i]!) i++;
    this.#counts[i]!++;
    this.#sum += value;
    this.#count++;
    if (value > this.#max) this.#max = value;
  }

  sample(labels: MetricLabels): HistogramSample {
    const bucketCounts: number[] = [];
    let below = 0;
    for (let i = 0; i < this.#bounds.length; i++) bucketCounts.push((below += this.#counts[i]!));
    return { labels, bucketCounts, sum: this.#sum, count: this.#count };
  }

  /** The `q` quantile estimated from the buckets (as Prometheus's `histogram_quantile`), capped at the max. */
  quantile(q: number): number {
    if (this.#count === 0) return 0;
    const rank = q * this.#count;
    let below = 0;
    for (let i = 0; i < this.#counts.length; i++) {
      const inBucket = this.#counts[i]!;
      if (below + inBucket >= rank && inBucket > 0) {
        const lower = i === 0 ? 0 : this.#bounds[i - 1]!;
        const upper = i < this.#bounds.length ? this.#bounds[i]! : this.#max;
        return Math.min(this.#max, lower + (upper - lower) * ((rank - below) / inBucket));
      }
      below += inBucket;
    }
    return this.#max;
  }
}

/**
 * The counters behind an origin's metrics, updated on the request path: each call is a few additions and at
 * most one map update, with no allocation. {@link OriginMetrics.snapshot} makes the mergeable
 * {@link MetricsSnapshot}; every sample carries the label `origin` (`general.name`), so that the origins of one
 * process stay apart when their snapshots are merged. Names and labels: docs/metrics.md.
 */
export class OriginMetrics {
  readonly #origin: MetricLabels;
  /** Requests by `status * 4 + outcome index`: one number key rather than a label object per request. */
  readonly #requests = new Map<number, number>();
  readonly #byReason = new Map<ErrorCode, number>();
  /** Parse failures by action (index into ACTIONS), then by code. */
  readonly #parseFailures = ACTIONS.map(() => new Map<string, number>());
  #produced = 0;
  #errors = 0;
  #discarded = 0;
  #dataRecordsSent = 0;
  #errorRecordsSent = 0;
  #bytesReceived = 0;
  #bytesSent = 0;
  readonly #rateLimited = { applicationId: 0, user: 0, clientAddress: 0 };
  #replayed = 0;
  readonly #requestSeconds = new Histogram(DURATION_BUCKETS_SECONDS);
  readonly #batchSeconds = new Histogram(DURATION_BUCKETS_SECONDS);
  readonly #admissionWaitSeconds = new Histogram(DURATION_BUCKETS_SECONDS);
  readonly #responseBytes = new Histogram(SIZE_BUCKETS_BYTES);

  /** `origin` is the value of every sample's `origin` label (the origin's `general.name`). */
  constructor(origin: string) {
    this.#origin = Object.freeze({ origin });
  }

  /** Counts one finished request. `reason` is the error code of a rejection or failure. */
  countRequest(outcome: RequestOutcome, status: number, latencyMs: number, reason?: ErrorCode): void {
    const key = status * 4 + OUTCOMES.indexOf(outcome);
    this.#requests.set(key, (this.#requests.get(key) ?? 0) + 1);
    if (reason) this.#byReason.set(reason, (this.#byReason.get(reason) ?? 0) + 1);
    this.#requestSeconds.observe(latencyMs / 1000);
  }

  countRecords(produced: number, errors: number, discarded: number): void {
    this.#produced += produced;
    this.#errors += errors;
    this.#discarded += discarded;
  }

  /** Counts one parse failure by its code and what became of it. */
  countParseFailure(code: string, action: ParseFailureAction): void {
    const byCode = this.#parseFailures[ACTIONS.indexOf(action)]!;
    byCode.set(code, (byCode.get(code) ?? 0) + 1);
  }

  /** Counts one refusal by a per-tenant limit of `key` (besides the request's own count). */
  countRateLimited(key: RateLimitKey): void {
    this.#rateLimited[key]++;
  }

  /** A request was answered with the kept answer of its idempotency key (its bytes are counted as sent). */
  countReplay(): void {
    this.#replayed++;
  }

  /** Decoded request body bytes read. */
  countBytes(bytes: number): void {
    this.#bytesReceived += bytes;
  }

  /** A request got its slot after waiting `waitMs` in the admission queue (0: at once). */
  countAdmission(waitMs: number): void {
    this.#admissionWaitSeconds.observe(waitMs / 1000);
  }

  /**
   * The pipeline's answer to a batch was written: `bodyBytes` of response body holding `dataRecords` and
   * `errorRecords`, after the pipeline took `batchMs` on the batch.
   */
  countAnswer(bodyBytes: number, dataRecords: number, errorRecords: number, batchMs: number): void {
    this.#bytesSent += bodyBytes;
    this.#responseBytes.observe(bodyBytes);
    this.#dataRecordsSent += dataRecords;
    this.#errorRecordsSent += errorRecords;
    this.#batchSeconds.observe(batchMs / 1000);
  }

  /** An answer not from the pipeline (a refusal, a replay, a preflight) was written with `bodyBytes` of body. */
  countSent(bodyBytes: number): void {
    this.#bytesSent += bodyBytes;
  }

  /** Every family, in the order of docs/metrics.md; `inFlight` and `queued` are read from admission now. */
  snapshot(inFlight: number, queued: number): MetricsSnapshot {
    const origin = this.#origin;
    const one = (value: number): ValueSample[] => [{ labels: origin, value }];
    const families: MetricFamily[] = [
      counter(
        'rest_origin_requests_total',
        'Requests answered, by HTTP status and outcome (answered by the pipeline, rejected before it, failed in it).',
        [...this.#requests].map(([key, value]) => ({
          labels: { ...origin, status: String(Math.floor(key / 4)), outcome: OUTCOMES[key % 4]! },
          value,
        })),
      ),
      counter(
        'rest_origin_rejections_total',
        'Requests rejected or failed, by error code (docs/errors.md).',
        [...this.#byReason].map(([code, value]) => ({ labels: { ...origin, code }, value })),
      ),
      counter(
        'rest_origin_rate_limited_total',
        'Requests answered 429 by a per-tenant limit (http.rateLimits, http.maxConcurrentRequestsPerKey), by the key kind of the limit.',
        // Only the key kinds that refused something, as the other labelled families: most origins have no limit.
        Object.entries(this.#rateLimited)
          .filter(([, value]) => value > 0)
          .map(([key, value]) => ({ labels: { ...origin, key }, value })),
      ),
      counter(
        'rest_origin_idempotent_replays_total',
        'Requests answered with the kept answer of their idempotency key (Idempotent-Replayed), without reaching the pipeline (http.idempotency).',
        // Only once there was one, as the labelled families: most origins have no idempotency keys.
        this.#replayed > 0 ? one(this.#replayed) : [],
      ),
      counter(
        'rest_origin_parse_failures_total',
        'Records the parser could not read, by error code and what became of them (the onRecordError policy, or refused: the whole body was refused).',
        this.#parseFailureSamples(),
      ),
      counter(
        'rest_origin_records_received_total',
        'Records handed to the pipeline in batches.',
        one(this.#produced),
      ),
      counter(
        'rest_origin_error_records_total',
        'Error records the origin made from parse failures (onRecordError sendToError).',
        one(this.#errors),
      ),
      counter(
        'rest_origin_records_sent_total',
        'Records sent back in responses, by kind (data or error records).',
        [
          { labels: { ...origin, kind: 'data' }, value: this.#dataRecordsSent },
          { labels: { ...origin, kind: 'error' }, value: this.#errorRecordsSent },
        ],
      ),
      counter(
        'rest_origin_received_bytes_total',
        'Request body bytes read, after Content-Encoding was decoded.',
        one(this.#bytesReceived),
      ),
      counter(
        'rest_origin_sent_bytes_total',
        'Response body bytes written (answers and refusals).',
        one(this.#bytesSent),
      ),
      gauge(
        'rest_origin_requests_in_flight',
        'Requests holding a request slot now (at most http.maxConcurrentRequests).',
        one(inFlight),
      ),
      gauge(
        'rest_origin_queue_depth',
        'Requests waiting in the admission queue for a slot now (at most http.queueSize).',
        one(queued),
      ),
      histogram(
        'rest_origin_admission_wait_seconds',
        'How long admitted requests waited for a request slot.',
        DURATION_BUCKETS_SECONDS,
        this.#admissionWaitSeconds.sample(origin),
      ),
      histogram(
        'rest_origin_request_duration_seconds',
        'Time from the arrival of a request to its answer written, every answer included.',
        DURATION_BUCKETS_SECONDS,
        this.#requestSeconds.sample(origin),
      ),
      histogram(
        'rest_origin_batch_duration_seconds',
        'How long the pipeline took on the batches it finished (RunnerPool.run).',
        DURATION_BUCKETS_SECONDS,
        this.#batchSeconds.sample(origin),
      ),
      histogram(
        'rest_origin_response_size_bytes',
        'Body size of the answers the pipeline sent.',
        SIZE_BUCKETS_BYTES,
        this.#responseBytes.sample(origin),
      ),
    ];
    return { families };
  }

  /** The summary `origin.metrics()` returns. */
  summary(inFlight: number, queued: number): OriginMetricsSnapshot {
    const byOutcome = { answered: 0, rejected: 0, failed: 0 };
    const byStatus: Record<string, number> = {};
    let total = 0;
    for (const [key, n] of this.#requests) {
      total += n;
      byOutcome[OUTCOMES[key % 4]!] += n;
      const status = String(Math.floor(key / 4));
      byStatus[status] = (byStatus[status] ?? 0) + n;
    }
    const seconds = this.#requestSeconds;
    return {
      requests: { total, byOutcome, byStatus },
      rejectedByReason: Object.fromEntries(this.#byReason),
      rateLimitedByKey: { ...this.#rateLimited },
      records: { produced: this.#produced, errors: this.#errors, discarded: this.#discarded },
      bytesReceived: this.#bytesReceived,
      inFlight,
      queued,
      latencyMs: {
        count: seconds.count,
        p50: seconds.quantile(0.5) * 1000,
        p90: seconds.quantile(0.9) * 1000,
        p99: seconds.quantile(0.99) * 1000,
        max: seconds.max * 1000,
      },
    };
  }

  #parseFailureSamples(): ValueSample[] {
    return ACTIONS.flatMap((action, i) =>
      [...this.#parseFailures[i]!].map(([code, value]) => ({
        labels: { ...this.#origin, code, action },
        value,
      })),
    );
  }
}

function counter(name: string, help: string, samples: ValueSample[]): MetricFamily {
  return { name, help, type: 'counter', samples };
}

function gauge(name: string, help: string, samples: ValueSample[]): MetricFamily {
  return { name, help, type: 'gauge', samples };
}

function histogram(
  name: string,
  help: string,
  buckets: readonly number[],
  sample: HistogramSample,
): MetricFamily {
  return { name, help, type: 'histogram', buckets, samples: [sample] };
}

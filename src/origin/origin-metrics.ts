import type { ErrorCode } from '../errors/error-table';
import type { RateLimitKey } from './rate-limit-options';

/** A snapshot of an origin's counters, as `origin.metrics()` returns it. Counters start at zero at construction. */
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
  /** Latency of answered requests (arrival to response written), over the last `LATENCY_WINDOW` requests. */
  readonly latencyMs: {
    readonly count: number;
    readonly p50: number;
    readonly p90: number;
    readonly p99: number;
    readonly max: number;
  };
}

/** How many recent latencies the percentiles are computed over. */
export const LATENCY_WINDOW = 2048;

export type RequestOutcome = 'answered' | 'rejected' | 'failed';

/** The mutable counters behind {@link OriginMetricsSnapshot}; cheap to update on the request path. */
export class OriginMetrics {
  #total = 0;
  readonly #byOutcome = { answered: 0, rejected: 0, failed: 0 };
  readonly #byStatus = new Map<number, number>();
  readonly #byReason = new Map<ErrorCode, number>();
  #produced = 0;
  #errors = 0;
  #discarded = 0;
  #bytes = 0;
  readonly #rateLimited = { applicationId: 0, user: 0, clientAddress: 0 };
  readonly #latencies = new Float64Array(LATENCY_WINDOW);
  #latencyCount = 0;

  /** Counts one finished request. `reason` is the error code of a rejection or failure. */
  countRequest(outcome: RequestOutcome, status: number, latencyMs: number, reason?: ErrorCode): void {
    this.#total++;
    this.#byOutcome[outcome]++;
    this.#byStatus.set(status, (this.#byStatus.get(status) ?? 0) + 1);
    if (reason) this.#byReason.set(reason, (this.#byReason.get(reason) ?? 0) + 1);
    this.#latencies[this.#latencyCount % LATENCY_WINDOW] = latencyMs;
    this.#latencyCount++;
  }

  countRecords(produced: number, errors: number, discarded: number): void {
    this.#produced += produced;
    this.#errors += errors;
    this.#discarded += discarded;
  }

  /** Counts one refusal by a per-tenant limit of `key` (besides the request's own count). */
  countRateLimited(key: RateLimitKey): void {
    this.#rateLimited[key]++;
  }

  countBytes(bytes: number): void {
    this.#bytes += bytes;
  }

  snapshot(inFlight: number, queued: number): OriginMetricsSnapshot {
    const filled = Math.min(this.#latencyCount, LATENCY_WINDOW);
    const sorted = Array.from(this.#latencies.subarray(0, filled)).sort((a, b) => a - b);
    const at = (q: number): number =>
      filled === 0 ? 0 : (sorted[Math.min(filled - 1, Math.floor(q * filled))] ?? 0);
    return {
      requests: {
        total: this.#total,
        byOutcome: { ...this.#byOutcome },
        byStatus: Object.fromEntries([...this.#byStatus].map(([status, n]) => [String(status), n])),
      },
      rejectedByReason: Object.fromEntries(this.#byReason),
      rateLimitedByKey: { ...this.#rateLimited },
      records: { produced: this.#produced, errors: this.#errors, discarded: this.#discarded },
      bytesReceived: this.#bytes,
      inFlight,
      queued,
      latencyMs: {
        count: this.#latencyCount,
        p50: at(0.5),
        p90: at(0.9),
        p99: at(0.99),
        max: filled ? (sorted[filled - 1] ?? 0) : 0,
      },
    };
  }
}

import cluster from 'node:cluster';
import {
  RateLimiterCluster,
  RateLimiterClusterMaster,
  RateLimiterMemory,
  RateLimiterRes,
  type RateLimiterAbstract,
} from 'rate-limiter-flexible';
import { IDENTITY_ATTRIBUTES } from '../auth/identity-attributes';
import { OriginError } from '../errors/origin-error';
import type { OriginConfig } from './config';
import type { ConcurrencyPerKey, RateLimitKey, RateLimitRule } from './rate-limit-options';

/** What a tenant is known by: the request's application ID, authenticated user and client address. */
export interface TenantSource {
  readonly applicationId: string | undefined;
  readonly identity: Readonly<Record<string, string>> | undefined;
  readonly remoteHost: string;
}

/**
 * The tenant of a request under `key`. A request without one (no authenticated user, say) is the tenant `''`:
 * all such requests share one limit rather than escaping it. The config refuses keys that every request would
 * lack (decision 0105).
 */
export function tenantOf(key: RateLimitKey, source: TenantSource): string {
  switch (key) {
    case 'applicationId':
      return source.applicationId ?? '';
    case 'user':
      return source.identity?.[IDENTITY_ATTRIBUTES.user] ?? '';
    case 'clientAddress':
      return source.remoteHost;
  }
}

/**
 * `headers` with the per-tenant concurrency policy added to its RateLimit fields, for the 429 of a tenant whose
 * slots and queue share are all taken: `"<key>-concurrency";q=<limit>;qu="concurrent-requests"` and `r=0` (the
 * draft's `concurrent-requests` quota unit; no window, as the quota is not time-bound).
 */
export function withConcurrencyPolicy(
  headers: Readonly<Record<string, string>>,
  perKey: ConcurrencyPerKey,
): Record<string, string> {
  const name = `"${perKey.key}-concurrency"`;
  const append = (field: string | undefined, item: string): string =>
    field === undefined ? item : `${field}, ${item}`;
  return {
    ...headers,
    'RateLimit-Policy': append(
      headers['RateLimit-Policy'],
      `${name};q=${perKey.limit};qu="concurrent-requests"`,
    ),
    RateLimit: append(headers['RateLimit'], `${name};r=0`),
  };
}

/** What {@link RateLimits.check} decided about one request. */
export interface RateLimitVerdict {
  /**
   * The answer's `RateLimit-Policy` and `RateLimit` headers (draft-ietf-httpapi-ratelimit-headers-11), plus
   * `Retry-After` when refused. Every answer to the request carries them.
   */
  readonly headers: Readonly<Record<string, string>>;
  /** Set when the request is over a limit: `ORIGIN_HTTP_RATE_LIMITED` (429). */
  readonly refusal: OriginError | undefined;
  /** The key kinds whose limit refused the request (for the metrics). */
  readonly refusedBy: readonly RateLimitKey[];
  /** The body has no declared length and a byte limit applies: call {@link RateLimits.chargeBody} once read. */
  readonly chargeAfterRead: boolean;
}

const NOBODY: readonly RateLimitKey[] = Object.freeze([]);

/** How a cluster worker waits for the primary's limiter before it answers 503 (it answers within microseconds). */
const CLUSTER_TIMEOUT_MS = 2000;

/** The limiters of one origin's `http.rateLimits`; see docs/rate-limits.md and decision 0105. */
export class RateLimits {
  readonly #policies: readonly Policy[];
  /** The `RateLimit-Policy` header: the same on every answer. */
  readonly #policyHeader: string;
  readonly #chargesBytes: boolean;

  /**
   * @param prefix names this origin's limiters; in a `node:cluster` worker the primary keeps one limiter per
   *   name for all workers, so it must be the same in every worker of a port and differ between origins.
   * @param shared count in the cluster primary ({@link startRateLimiterClusterPrimary}) rather than in this
   *   process; default: whenever this process is a cluster worker.
   */
  constructor(rules: readonly RateLimitRule[], prefix: string, shared = cluster.isWorker) {
    this.#policies = rules.map((rule) => new Policy(rule, `${prefix}:${rule.key}`, shared));
    this.#policyHeader = this.#policies.map((policy) => policy.describe()).join(', ');
    this.#chargesBytes = rules.some((rule) => rule.bytesPerSecond !== undefined);
  }

  /**
   * Counts the request against every limit, its declared body bytes (`undefined`: not declared) against every
   * byte limit, and says whether it may go on. Every request counts, refused ones too, but a refused request
   * never lengthens the wait: windows are fixed (decision 0105). Rejects with `ORIGIN_HTTP_RATE_LIMITER_UNAVAILABLE`
   * (503) when a limiter fails (a cluster primary that does not answer).
   */
  check(source: TenantSource, declaredBytes: number | undefined): Promise<RateLimitVerdict> {
    const policies = this.#policies;
    // One entry (the usual config) goes without Promise.all and its array: this runs on every limited request.
    const taken =
      policies.length === 1
        ? policies[0]!.take(tenantOf(policies[0]!.key, source), declaredBytes)
        : Promise.all(policies.map((policy) => policy.take(tenantOf(policy.key, source), declaredBytes)));
    return taken.then(
      (takes) => this.#verdict(takes, declaredBytes),
      (error: unknown) => {
        const detail = error instanceof Error ? error.message : String(error);
        throw new OriginError('ORIGIN_HTTP_RATE_LIMITER_UNAVAILABLE', { detail }, { cause: error });
      },
    );
  }

  #verdict(takes: Take | Take[], declaredBytes: number | undefined): RateLimitVerdict {
    const all = Array.isArray(takes) ? takes : [takes];
    const headers: Record<string, string> = {
      'RateLimit-Policy': this.#policyHeader,
      RateLimit: all.length === 1 ? all[0]!.items : all.map((take) => take.items).join(', '),
    };
    const chargeAfterRead = this.#chargesBytes && declaredBytes === undefined;
    const refused = all.filter((take) => take.refusedForMs !== undefined);
    if (refused.length === 0) return { headers, refusal: undefined, refusedBy: NOBODY, chargeAfterRead };
    // Whole seconds, rounded up and never 0 (RFC 9110 §10.2.3): a client that waits this long finds its window
    // renewed, and the draft asks that Retry-After not end before the refused policy's window.
    const retryAfterSeconds = Math.max(1, ...refused.map((take) => Math.ceil(take.refusedForMs! / 1000)));
    headers['Retry-After'] = String(retryAfterSeconds);
    const first = refused[0]!;
    const refusal = new OriginError('ORIGIN_HTTP_RATE_LIMITED', {
      key: first.key,
      policy: first.policy,
      retryAfterSeconds,
    });
    return { headers, refusal, refusedBy: refused.map((take) => take.key), chargeAfterRead: false };
  }

  /**
   * Charges a body read without a declared length with its `bytes` (decoded: what was read), after the fact: the
   * tenant owes what passes its allowance, and its next requests are refused until that is paid. Never throws; a
   * failed charge is dropped (the request it belongs to is already done).
   */
  chargeBody(source: TenantSource, bytes: number): void {
    for (const policy of this.#policies) policy.charge(tenantOf(policy.key, source), bytes);
  }
}

/** One policy's part of a verdict. */
interface Take {
  readonly key: RateLimitKey;
  /** The policy that refused (its name in the headers). */
  readonly policy: string;
  /** `RateLimit` list items of this policy, joined. */
  readonly items: string;
  /** Milliseconds until the tenant may send again, when refused. */
  readonly refusedForMs: number | undefined;
}

/**
 * One rule: a request limiter of `burst` points per window of `burst / requestsPerSecond` seconds, and a byte
 * limiter of `bytesPerSecond` points per second when the rule has one. rate-limiter-flexible's windows are fixed
 * per tenant: they start with the tenant's first request and renew whole.
 */
class Policy {
  readonly key: RateLimitKey;
  readonly #requests: RateLimiterAbstract;
  readonly #burst: number;
  readonly #windowSeconds: number;
  readonly #bytes: RateLimiterAbstract | undefined;
  readonly #bytesPerSecond: number;

  constructor(rule: RateLimitRule, prefix: string, shared: boolean) {
    this.key = rule.key;
    this.#burst = rule.burst;
    this.#windowSeconds = rule.burst / rule.requestsPerSecond;
    this.#requests = limiter(shared, `${prefix}:requests`, rule.burst, this.#windowSeconds);
    this.#bytesPerSecond = rule.bytesPerSecond ?? 0;
    this.#bytes =
      rule.bytesPerSecond === undefined
        ? undefined
        : limiter(shared, `${prefix}:bytes`, rule.bytesPerSecond, 1);
  }

  /** The policy's `RateLimit-Policy` items; the draft's window is whole seconds, so rounded up (conservative). */
  describe(): string {
    const items = [`"${this.key}";q=${this.#burst};w=${Math.ceil(this.#windowSeconds)}`];
    if (this.#bytes) items.push(`"${this.key}-bytes";q=${this.#bytesPerSecond};qu="content-bytes";w=1`);
    return items.join(', ');
  }

  take(tenant: string, declaredBytes: number | undefined): Promise<Take> {
    const requests = this.#requests.consume(tenant, 1).then(this.#granted, this.#refused);
    const bytes = this.#bytes;
    if (bytes === undefined) return requests.then(this.#requestsOnly);
    return Promise.all([requests, this.#takeBytes(bytes, tenant, declaredBytes)]).then(
      ([left, bytesLeft]) => {
        const refused = left.refused ? left : bytesLeft.refused ? bytesLeft : undefined;
        return {
          key: this.key,
          policy: refused === left ? this.key : `${this.key}-bytes`,
          items: `${item(this.key, left)}, ${item(`${this.key}-bytes`, bytesLeft)}`,
          refusedForMs: refused?.msBeforeNext,
        };
      },
    );
  }

  readonly #granted = (res: RateLimiterRes): Left => ({
    remaining: res.remainingPoints,
    msBeforeNext: res.msBeforeNext,
    refused: false,
  });

  readonly #refused = (thrown: unknown): Left => {
    if (!(thrown instanceof RateLimiterRes)) throw thrown;
    return { remaining: 0, msBeforeNext: thrown.msBeforeNext, refused: true };
  };

  readonly #requestsOnly = (left: Left): Take => ({
    key: this.key,
    policy: this.key,
    items: item(this.key, left),
    refusedForMs: left.refused ? left.msBeforeNext : undefined,
  });

  /**
   * A tenant is refused only while it is out of bytes (its second's allowance spent, or a debt for an earlier
   * body): a body larger than the allowance passes when nothing is owed, and its excess becomes a debt paid at
   * `bytesPerSecond`, so that maxRequestSizeMb, not this limit, decides how large one body may be.
   */
  async #takeBytes(bytes: RateLimiterAbstract, tenant: string, declared: number | undefined): Promise<Left> {
    if (declared === undefined) {
      const res = await bytes.get(tenant);
      if (res === null) return { remaining: this.#bytesPerSecond, msBeforeNext: 0, refused: false };
      return this.#left(res, res.consumedPoints);
    }
    let res: RateLimiterRes;
    try {
      res = await bytes.consume(tenant, declared);
    } catch (thrown) {
      if (!(thrown instanceof RateLimiterRes)) throw thrown;
      res = thrown;
    }
    const owedBefore = res.consumedPoints - declared;
    if (owedBefore < this.#bytesPerSecond) await this.#block(bytes, tenant, res);
    return this.#left(res, owedBefore);
  }

  #left(res: RateLimiterRes, spentBefore: number): Left {
    const refused = spentBefore >= this.#bytesPerSecond;
    return {
      remaining: Math.max(0, this.#bytesPerSecond - res.consumedPoints),
      msBeforeNext: res.msBeforeNext,
      refused,
    };
  }

  /** Turns an overdraft into a block that lasts until the window ends and the excess is paid at the rate. */
  async #block(bytes: RateLimiterAbstract, tenant: string, res: RateLimiterRes): Promise<void> {
    const excess = res.consumedPoints - this.#bytesPerSecond;
    if (excess <= 0) return;
    await bytes.block(tenant, Math.max(0, res.msBeforeNext) / 1000 + excess / this.#bytesPerSecond);
  }

  charge(tenant: string, count: number): void {
    const bytes = this.#bytes;
    if (bytes === undefined || count === 0) return;
    bytes
      .penalty(tenant, count)
      .then((res) => this.#block(bytes, tenant, res))
      .catch(() => undefined);
  }
}

/** What a tenant has left under one limiter. */
interface Left {
  readonly remaining: number;
  readonly msBeforeNext: number;
  readonly refused: boolean;
}

/** A `RateLimit` list item: the quota left and the seconds until the window renews (whole, rounded up). */
function item(name: string, left: Left): string {
  return `"${name}";r=${left.remaining};t=${Math.max(0, Math.ceil(left.msBeforeNext / 1000))}`;
}

function limiter(shared: boolean, keyPrefix: string, points: number, duration: number): RateLimiterAbstract {
  const options = { keyPrefix, points, duration };
  return shared
    ? new RateLimiterCluster({ ...options, timeoutMs: CLUSTER_TIMEOUT_MS })
    : new RateLimiterMemory(options);
}

/**
 * Makes this `node:cluster` primary keep the rate limits of its workers' origins, so that `http.rateLimits` hold
 * for the whole port rather than per worker. Call it once in the primary, before the first `cluster.fork()`: a
 * worker's limiter announces itself when its origin is constructed, and one announced before this call waits
 * unanswered. Calling it again has no further effect. `rest-origin serve --workers N` calls it in its primary.
 */
export function startRateLimiterClusterPrimary(): void {
  if (!cluster.isPrimary) {
    throw new OriginError('ORIGIN_INTERNAL_ERROR', {
      detail: 'startRateLimiterClusterPrimary() must run in the cluster primary, not in a worker',
    });
  }
  // The library keeps one master per process and returns it on every later construction.
  new RateLimiterClusterMaster();
}

/**
 * The rate limits of an origin's config, or `undefined` when it has none. Limiters are named by the origin's
 * name and port, so the workers of one port share them in the cluster primary and two origins do not.
 */
export function rateLimitsFor(config: OriginConfig): RateLimits | undefined {
  const { rateLimits } = config.http;
  if (rateLimits.length === 0) return undefined;
  return new RateLimits(rateLimits, `rest-origin:${config.http.port}:${config.general.name}`);
}

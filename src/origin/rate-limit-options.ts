import { authenticationMethodOf, type AuthenticationOptions } from '../auth/authentication-method';
import type { ConfigProblem } from '../errors/config-error';
import type { JsonSchema } from '../formats/data-format';

/**
 * What a per-tenant limit counts by: the request's application ID (after the application ID check), the
 * authenticated user (basic, SPNEGO or the gateway's), or the client's address as the `remoteHost` attribute shows
 * it.
 */
export const RATE_LIMIT_KEYS = ['applicationId', 'user', 'clientAddress'] as const;

/** One of {@link RATE_LIMIT_KEYS}. */
export type RateLimitKey = (typeof RATE_LIMIT_KEYS)[number];

/** One entry of `http.rateLimits` (docs/rate-limits.md). */
export interface RateLimitRule {
  readonly key: RateLimitKey;
  /** The sustained rate a tenant may send, > 0 (fractions allowed: 0.5 = one request every 2 s). */
  readonly requestsPerSecond: number;
  /** How many requests a tenant may send at once; the window is `burst / requestsPerSecond` seconds. */
  readonly burst: number;
  /** Body bytes a tenant may send per second; absent = no byte limit. */
  readonly bytesPerSecond?: number;
}

/** `http.maxConcurrentRequestsPerKey`: the most request slots one tenant may hold at once. */
export interface ConcurrencyPerKey {
  readonly key: RateLimitKey;
  readonly limit: number;
}

const KEY_SCHEMA: JsonSchema = {
  type: 'string',
  enum: [...RATE_LIMIT_KEYS],
  description:
    "What the limit counts by: 'applicationId' (needs http.applicationIds), 'user' (the authenticated user; needs an authentication method) or 'clientAddress' (the remoteHost attribute).",
};

/** The `http` options of per-tenant rate limits and fairness, as one block of the config schema. */
export function rateLimitOptionsSchema(): Record<string, JsonSchema> {
  return {
    rateLimits: {
      type: 'array',
      default: [],
      description:
        '(addition) Per-tenant rate limits, checked after authentication and the application ID check and before a request slot is taken: each entry limits every tenant (application ID, user or client address) on its own. A request over a limit is answered 429 ORIGIN_HTTP_RATE_LIMITED with Retry-After and the RateLimit-Policy and RateLimit headers (docs/rate-limits.md). Empty: no rate limit.',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['key', 'requestsPerSecond', 'burst'],
        properties: {
          key: KEY_SCHEMA,
          requestsPerSecond: {
            type: 'number',
            exclusiveMinimum: 0,
            maximum: 1_000_000,
            description: 'The sustained request rate of one tenant, > 0 (0.5: one request every 2 seconds).',
          },
          burst: {
            type: 'integer',
            minimum: 1,
            maximum: 10_000_000,
            description:
              'How many requests one tenant may send at once. They are counted in windows of burst / requestsPerSecond seconds.',
          },
          bytesPerSecond: {
            type: 'integer',
            minimum: 1,
            description:
              'Body bytes one tenant may send per second, charged with the declared Content-Length before the body is read (a chunked body: with its bytes once read). A body larger than the allowance is let through when the tenant owes nothing, and the tenant then waits until its debt is paid at this rate.',
          },
        },
      },
    },
    maxConcurrentRequestsPerKey: {
      type: ['object', 'null'],
      default: null,
      additionalProperties: false,
      required: ['key', 'limit'],
      description:
        "(addition) Fairness between tenants: { key, limit } lets one tenant hold at most `limit` of the maxConcurrentRequests slots, so another tenant's request is admitted while it is busy. A tenant at its limit waits in the queue, at most `limit` of its requests at a time; one more is answered 429 ORIGIN_HTTP_TENANT_BUSY with Retry-After. null: no per-tenant limit.",
      properties: {
        key: KEY_SCHEMA,
        limit: {
          type: 'integer',
          minimum: 1,
          description: 'The most request slots one tenant may hold at once, less than maxConcurrentRequests.',
        },
      },
    },
  };
}

/** The `http` keys the rules below read (a structural part of the defaulted config). */
interface LimitedConfig extends AuthenticationOptions {
  readonly http: AuthenticationOptions['http'] & {
    readonly applicationIds: readonly string[];
    readonly maxConcurrentRequests: number;
    readonly rateLimits: readonly RateLimitRule[];
    readonly maxConcurrentRequestsPerKey: ConcurrencyPerKey | null;
  };
}

/**
 * The problems of a defaulted, schema-valid config's rate limits that the schema cannot state: a key that every
 * request would share (no application IDs, no authentication), two limits of one key, and a per-key limit that
 * limits nothing.
 */
export function rateLimitProblems(config: LimitedConfig): ConfigProblem[] {
  const { http } = config;
  const problems: ConfigProblem[] = [];
  const seen = new Set<RateLimitKey>();
  http.rateLimits.forEach((rule, index) => {
    const path = `/http/rateLimits/${index}/key`;
    if (seen.has(rule.key)) {
      problems.push({ path, message: `repeats key '${rule.key}': give each key one limit` });
    }
    seen.add(rule.key);
    const unknown = keyProblem(rule.key, config);
    if (unknown) problems.push({ path, message: unknown });
  });
  const perKey = http.maxConcurrentRequestsPerKey;
  if (perKey !== null) {
    const unknown = keyProblem(perKey.key, config);
    if (unknown) problems.push({ path: '/http/maxConcurrentRequestsPerKey/key', message: unknown });
    if (perKey.limit >= http.maxConcurrentRequests) {
      problems.push({
        path: '/http/maxConcurrentRequestsPerKey/limit',
        message: `must be less than http.maxConcurrentRequests (${http.maxConcurrentRequests}), or it limits nothing`,
      });
    }
  }
  return problems;
}

function keyProblem(key: RateLimitKey, config: LimitedConfig): string | undefined {
  if (key === 'applicationId' && config.http.applicationIds.length === 0) {
    return "is 'applicationId' but http.applicationIds is empty: every request would share one tenant";
  }
  if (key === 'user' && authenticationMethodOf(config) === 'none') {
    return "is 'user' but no authentication method is on (basic users with TLS, SPNEGO, or gateway authentication): every request would share one tenant";
  }
  return undefined;
}

// The options of `http.idempotency` live beside the stores they configure; the origin's config schema imports the
// schema from here (DESIGN §4: each config type lives beside the code it configures).

/** Where keys are kept: this process's memory, or a Redis database shared by every instance. */
export type IdempotencyStoreConfig =
  | 'memory'
  | {
      /** `redis://[user:password@]host:port/db`, or `rediss://` for TLS. */
      readonly redisUrl: string;
      /** The longest one store call may take, in milliseconds; then the request is answered 503. */
      readonly timeoutMs: number;
    };

/** `http.idempotency` with its defaults applied (docs/idempotency.md). Absent: no idempotency keys. */
export interface IdempotencyConfig {
  /** The request header that carries the key (`Idempotency-Key`). */
  readonly header: string;
  /** POST, PUT and PATCH requests without a key are answered 400. */
  readonly required: boolean;
  /** How long a response is kept for its key, in seconds. */
  readonly ttlSeconds: number;
  /** The most keys the in-memory store keeps (least recently used first out). */
  readonly maxEntries: number;
  /** The largest response body kept; a larger one is kept without its body. */
  readonly maxResponseBytes: number;
  readonly store: IdempotencyStoreConfig;
}

/** `http.idempotency` as a user writes it: every key optional; `{}` turns idempotency keys on. */
export interface IdempotencyConfigInput extends Partial<Omit<IdempotencyConfig, 'store'>> {
  readonly store?: 'memory' | { readonly redisUrl: string; readonly timeoutMs?: number };
}

/** The methods a key is required for when `required` is on: those that send records to be added. */
export const KEY_REQUIRED_METHODS: ReadonlySet<string> = new Set(['POST', 'PUT', 'PATCH']);

/**
 * The JSON Schema of `http.idempotency`. It has no default of its own, so the option stays absent (off) unless
 * given; an object, even `{}`, turns it on, and its keys are then defaulted.
 */
export function idempotencySchema(): Record<string, unknown> {
  return {
    type: 'object',
    additionalProperties: false,
    description:
      '(addition) Idempotency keys, after the IETF httpapi Idempotency-Key draft (docs/idempotency.md). Absent: off; an object, even {}, turns them on. The first request with a key is processed and its response kept with a fingerprint of the request (method, target, digest of the body as received); a repeat with the same key and fingerprint is answered the kept response with `Idempotent-Replayed: true`, without reaching the pipeline; a repeat while the first is in flight gets 409, the same key with another request 422. Keys are scoped by stage name, application ID and authenticated user. Refusals before the pipeline (413, 415, 503 …) keep nothing, so a retry is processed.',
    properties: {
      header: {
        type: 'string',
        pattern: "^[!#$%&'*+.^_`|~0-9A-Za-z-]+$",
        default: 'Idempotency-Key',
        description: '(addition) The request header that carries the key (a header name).',
      },
      required: {
        type: 'boolean',
        default: false,
        description:
          '(addition) Answer POST, PUT and PATCH requests that carry no key with 400 ORIGIN_IDEMPOTENCY_KEY_MISSING. Off: a request without a key is processed as usual, without idempotency.',
      },
      ttlSeconds: {
        type: 'integer',
        minimum: 1,
        maximum: 31_536_000,
        default: 86_400,
        description:
          '(addition) How long a response is kept for its key, in seconds, from when it was answered.',
      },
      maxEntries: {
        type: 'integer',
        minimum: 1,
        maximum: 10_000_000,
        default: 10_000,
        description:
          '(addition) The most keys the in-memory store keeps (in-flight ones included); beyond it the least recently used key is dropped, and a later repeat of it is processed again. Not used by the Redis store (Redis maxmemory applies).',
      },
      maxResponseBytes: {
        type: 'integer',
        minimum: 0,
        maximum: 100_000_000,
        default: 16_384,
        description:
          '(addition) The largest response body kept for a key, in bytes. A larger response is answered as usual and its key kept without the body: a repeat gets the status and headers with an empty body and `Idempotent-Replayed: body-omitted`. Bounds the in-memory store at about maxEntries times this.',
      },
      store: {
        type: ['string', 'object'],
        default: 'memory',
        description:
          "(addition) Where keys are kept: 'memory' (this process only) or { redisUrl: 'redis://host:port/db', timeoutMs } (timeoutMs, default 1000, bounds each Redis call; then 503 ORIGIN_IDEMPOTENCY_STORE_UNAVAILABLE) to share them among instances behind a load balancer. A host that embeds the origin may pass a store object of its own as OriginOptions.idempotencyStore instead.",
        oneOf: [
          { type: 'string', enum: ['memory'] },
          {
            type: 'object',
            additionalProperties: false,
            required: ['redisUrl'],
            properties: {
              redisUrl: {
                type: 'string',
                pattern: '^rediss?://',
                description: 'The Redis database: `redis://[user:password@]host:port/db` or `rediss://…`.',
              },
              timeoutMs: {
                type: 'integer',
                minimum: 1,
                maximum: 60_000,
                default: 1000,
                description:
                  'The longest one Redis call may take, connecting included, in milliseconds; then the request is answered 503 ORIGIN_IDEMPOTENCY_STORE_UNAVAILABLE.',
              },
            },
          },
        ],
      },
    },
  };
}

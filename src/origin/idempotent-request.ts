import { createHash, type Hash } from 'node:crypto';
import { IDENTITY_ATTRIBUTES } from '../auth/identity-attributes';
import { ConfigError } from '../errors/config-error';
import { OriginError } from '../errors/origin-error';
import { KEY_REQUIRED_METHODS, type IdempotencyConfig } from '../idempotency/idempotency-options';
import type {
  IdempotencyAcquisition,
  IdempotencyStore,
  StoredResponse,
} from '../idempotency/idempotency-store';
import { MemoryIdempotencyStore } from '../idempotency/memory-idempotency-store';
import { RedisIdempotencyStore } from '../idempotency/redis-idempotency-store';
import type { RenderedResponse } from '../response/json-response';
import type { OriginConfig } from './config';
import type { IncomingRequestInfo } from './request-info';
import type { OriginRequest } from '../http/origin-exchange';

/** The response header that marks a replayed answer: `true`, or `body-omitted` when the body was not kept. */
export const REPLAYED_HEADER = 'Idempotent-Replayed';

/** How an origin treats idempotency keys, decided once when it is made (`http.idempotency`). */
export interface IdempotencyPlan {
  readonly config: IdempotencyConfig;
  readonly store: IdempotencyStore;
  /** The store was made from the config, so the origin closes it when it stops; a host's store is the host's. */
  readonly ownsStore: boolean;
  /** The key header's name in lower case, as Node keys `req.headers`. */
  readonly header: string;
  /** `general.name`: keys of differently named stages sharing one store never meet. */
  readonly stage: string;
  /** How long a response is kept: `ttlSeconds` in milliseconds. */
  readonly ttlMs: number;
  /**
   * How long an in-flight lock lives unless completed or released: the longest a request can spend in the origin
   * (`http.requestTimeoutMs` to arrive, plus `http.responseTimeoutMs` in the pipeline), so that a lock only
   * outlives its request when the process holding it died.
   */
  readonly lockTtlMs: number;
}

/**
 * The idempotency plan of an origin with `config`, or `undefined` when `http.idempotency` is absent. The store
 * is the host's `hostStore` when given, else the one the config names.
 *
 * @throws ConfigError when the host passes a store and `http.idempotency` is absent (the store would be unused).
 */
export function idempotencyPlanFor(
  config: OriginConfig,
  hostStore: IdempotencyStore | undefined,
): IdempotencyPlan | undefined {
  const options = config.http.idempotency;
  if (options === undefined) {
    if (hostStore === undefined) return undefined;
    throw new ConfigError([
      {
        path: '/http/idempotency',
        message:
          'is absent, so options.idempotencyStore would never be used; set http.idempotency (even {}) to turn idempotency keys on',
      },
    ]);
  }
  const { store } = options;
  return {
    config: options,
    store:
      hostStore ??
      (store === 'memory'
        ? new MemoryIdempotencyStore({ maxEntries: options.maxEntries })
        : new RedisIdempotencyStore({ redisUrl: store.redisUrl, timeoutMs: store.timeoutMs })),
    ownsStore: hostStore === undefined,
    header: options.header.toLowerCase(),
    stage: config.general.name,
    ttlMs: options.ttlSeconds * 1000,
    lockTtlMs: config.http.requestTimeoutMs + config.http.responseTimeoutMs,
  };
}

/**
 * The request's idempotency key as an {@link IdempotentRequest}, or `undefined` when it carries none and none is
 * required. Called with the other cheap refusals, after authentication and the application ID check (the key's
 * scope needs both).
 *
 * @throws OriginError `ORIGIN_IDEMPOTENCY_KEY_MISSING` (400) when `required` and a POST, PUT or PATCH has no key;
 *   `ORIGIN_IDEMPOTENCY_KEY_INVALID` (400) when the key is empty, longer than 255 characters, not visible ASCII,
 *   or sent more than once.
 */
export function idempotentRequestOf(
  plan: IdempotencyPlan,
  req: OriginRequest,
  info: IncomingRequestInfo,
): IdempotentRequest | undefined {
  const sent = req.headers[plan.header];
  if (sent === undefined) {
    if (!plan.config.required || !KEY_REQUIRED_METHODS.has(info.method)) return undefined;
    throw new OriginError('ORIGIN_IDEMPOTENCY_KEY_MISSING', {
      method: info.method,
      header: plan.config.header,
    });
  }
  const key = parseKey(typeof sent === 'string' ? sent : sent.join(', '), plan.config.header);
  const scoped = createHash('sha256')
    .update(
      [plan.stage, info.applicationId ?? '', info.identity?.[IDENTITY_ATTRIBUTES.user] ?? '', key].join(
        '\u0000',
      ),
    )
    .digest('hex');
  return new IdempotentRequest(plan, scoped, info.method, req.url ?? '/');
}

const QUOTED_KEY = /^"((?:[\x20\x21\x23-\x5b\x5d-\x7e]|\\["\\])*)"$/;
const BARE_KEY = /^[\x21-\x2b\x2d-\x7e]*$/;
const MAX_KEY_LENGTH = 255;

/**
 * The key of a header value: the draft's form, a Structured Field String (`"8e03978e-…"`, with `\"` and `\\`
 * escapes), or the bare form most clients send (`8e03978e-…`: visible ASCII without commas). Both forms of one
 * value are the same key. A comma outside quotes means the header was sent more than once (Node joins repeats
 * with `, `), which the draft forbids.
 */
function parseKey(value: string, header: string): string {
  const trimmed = value.trim();
  const quoted = QUOTED_KEY.exec(trimmed);
  const key = quoted ? quoted[1]!.replace(/\\(["\\])/g, '$1') : trimmed;
  let problem: string | undefined;
  if (!quoted && !BARE_KEY.test(trimmed)) {
    problem = trimmed.includes(',')
      ? 'the header was sent more than once, or holds a list'
      : 'it holds characters other than visible ASCII';
  } else if (key.length === 0) problem = 'it is empty';
  else if (key.length > MAX_KEY_LENGTH) problem = `it is ${key.length} characters long`;
  if (problem !== undefined)
    throw new OriginError('ORIGIN_IDEMPOTENCY_KEY_INVALID', { header, detail: problem });
  return key;
}

/**
 * One request's key on its way through the request path: takes the key's lock ({@link IdempotentRequest.begin}),
 * digests the body as it is read ({@link IdempotentRequest.onRawChunk}), and ends holding nothing, either by
 * keeping the answer ({@link IdempotentRequest.keep}) or by releasing the lock ({@link IdempotentRequest.release}).
 * Neither of those two ever rejects: a store that fails then only costs the replay, never the answer.
 */
export class IdempotentRequest {
  readonly #plan: IdempotencyPlan;
  /** The scoped key: SHA-256 (hex) of stage, application ID, user and the client's key. */
  readonly key: string;
  readonly #method: string;
  readonly #target: string;
  readonly #digest: Hash = createHash('sha256');
  #fingerprint: string | undefined;
  #token: string | undefined;

  constructor(plan: IdempotencyPlan, key: string, method: string, target: string) {
    this.#plan = plan;
    this.key = key;
    this.#method = method;
    this.#target = target;
  }

  /** The request holds the key's in-flight lock: it must end with {@link keep} or {@link release}. */
  get holdsLock(): boolean {
    return this.#token !== undefined;
  }

  /**
   * Asks the store for the key: `acquired` (the request now holds the lock and is processed), `inFlight`, or
   * `completed` with the kept response. Rejects with the store's error (`ORIGIN_IDEMPOTENCY_STORE_UNAVAILABLE`).
   */
  async begin(): Promise<IdempotencyAcquisition> {
    const found = await this.#plan.store.acquire(this.key, this.#plan.lockTtlMs);
    if (found.outcome === 'acquired') this.#token = found.token;
    return found;
  }

  /** Takes one chunk of the body as received (handed to the body reader as is, hence an arrow function). */
  readonly onRawChunk = (chunk: Uint8Array): void => {
    this.#digest.update(chunk);
  };

  /**
   * The request's fingerprint, once its whole body went through {@link onRawChunk}: SHA-256 (hex) of method,
   * request target and the body's SHA-256.
   */
  fingerprint(): string {
    this.#fingerprint ??= createHash('sha256')
      .update(`${this.#method}\n${this.#target}\n`)
      .update(this.#digest.digest('hex'))
      .digest('hex');
    return this.#fingerprint;
  }

  /** Whether `kept` answered this same request (same fingerprint): else the key was reused, 422. */
  matches(kept: StoredResponse): boolean {
    return kept.fingerprint === this.fingerprint();
  }

  /**
   * Keeps `answer` as the key's response (its body only up to `maxResponseBytes`) and gives up the lock. The
   * answer is copied at once, so the caller may send (and change) it right after the call; resolves once the
   * store has it, or failed to keep it (the lock then expires by itself).
   */
  keep(answer: RenderedResponse): Promise<void> {
    const token = this.#token;
    if (token === undefined) return Promise.resolve();
    this.#token = undefined;
    const body = typeof answer.body === 'string' ? Buffer.from(answer.body, 'utf8') : answer.body;
    const omitted = body.length > this.#plan.config.maxResponseBytes;
    const response: StoredResponse = {
      fingerprint: this.fingerprint(),
      status: answer.status,
      headers: { ...answer.headers },
      // The store keeps its own copy (IdempotencyStore.complete), and nothing writes to a rendered body.
      body: omitted ? EMPTY_BODY : body,
      bodyOmitted: omitted,
    };
    return this.#plan.store.complete(this.key, token, response, this.#plan.ttlMs).catch(ignore);
  }

  /** Gives up the lock without keeping anything, so that a retry is processed; resolves once done or failed. */
  release(): Promise<void> {
    const token = this.#token;
    if (token === undefined) return Promise.resolve();
    this.#token = undefined;
    return this.#plan.store.release(this.key, token).catch(ignore);
  }
}

/** The answer that replays `kept`: its status, headers and body, marked with {@link REPLAYED_HEADER}. */
export function replayedResponse(kept: StoredResponse): RenderedResponse {
  return {
    status: kept.status,
    headers: { ...kept.headers, [REPLAYED_HEADER]: kept.bodyOmitted ? 'body-omitted' : 'true' },
    body: Buffer.from(kept.body.buffer, kept.body.byteOffset, kept.body.byteLength),
  };
}

const EMPTY_BODY = new Uint8Array(0);

function ignore(): void {}

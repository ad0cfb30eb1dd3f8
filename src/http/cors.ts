import type { IncomingHttpHeaders } from 'node:http';
import type { JsonSchema } from '../formats/data-format';

/**
 * `http.cors` (an addition to the spec): which browser pages of other origins may call the origin (docs/cors.md,
 * decision 0115). Off by default: without it the origin sends no CORS header, and a browser lets no page of
 * another origin read an answer.
 */
export interface CorsConfig {
  /** Answer CORS preflights and add the CORS headers to every answer. */
  readonly enabled: boolean;
  /** Serialized origins (`https://shop.example`, `http://127.0.0.1:5173`), exactly as a browser sends them; `*` = any. */
  readonly allowedOrigins: readonly string[];
  /** Methods a preflight may ask for besides GET, HEAD and POST (which the Fetch standard always allows); `*` = any. */
  readonly allowedMethods: readonly string[];
  /** Request headers a preflight may ask for (any case); `*` = any. */
  readonly allowedHeaders: readonly string[];
  /** Response headers a page may read besides the CORS-safelisted ones (`Access-Control-Expose-Headers`). */
  readonly exposedHeaders: readonly string[];
  /** Let pages send credentials (cookies, HTTP authentication) and read the answer; never with `*`. */
  readonly allowCredentials: boolean;
  /** How long a browser may cache a preflight's answer (`Access-Control-Max-Age`). */
  readonly maxAgeSeconds: number;
}

const NAMES: JsonSchema = { type: 'array', items: { type: 'string', minLength: 1 }, uniqueItems: true };

/** The JSON Schema of `http.cors`, with its defaults. */
export function corsSchema(): JsonSchema {
  return {
    type: 'object',
    title: 'CORS',
    description:
      '(addition) Cross-origin requests from browser pages (docs/cors.md). When enabled, a CORS preflight (OPTIONS with Origin and Access-Control-Request-Method) is answered by the origin itself, before authentication and the application ID check and without reaching the pipeline; every other answer to an allowed origin, rejections included, carries the CORS headers.',
    default: {},
    additionalProperties: false,
    properties: {
      enabled: {
        type: 'boolean',
        default: false,
        description:
          '(addition) Answer CORS preflights and add the CORS response headers. Off: no CORS header is ever sent.',
      },
      allowedOrigins: {
        ...NAMES,
        default: [],
        description:
          '(addition) Origins whose pages may call the origin, each exactly as a browser sends it in `Origin` (`scheme://host[:port]`, lower case, no default port, no path), or `*` for any origin (then never with allowCredentials). `null` cannot be listed. Required (non-empty) when enabled.',
      },
      allowedMethods: {
        ...NAMES,
        default: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'],
        description:
          '(addition) Methods a preflight may ask for; GET, HEAD and POST are always allowed (Fetch standard). `*`: any method.',
      },
      allowedHeaders: {
        ...NAMES,
        default: [
          'Content-Type',
          'Content-Encoding',
          'X-ENGINE-APPLICATION-ID',
          'Authorization',
          'traceparent',
          'tracestate',
        ],
        description:
          '(addition) Request headers a preflight may ask for, compared in any case. `*`: any header.',
      },
      exposedHeaders: {
        ...NAMES,
        default: [],
        description:
          '(addition) Response headers a page may read besides the CORS-safelisted ones (Access-Control-Expose-Headers), e.g. `traceparent`, `Retry-After`, `WWW-Authenticate`.',
      },
      allowCredentials: {
        type: 'boolean',
        default: false,
        description:
          '(addition) Access-Control-Allow-Credentials: pages may send cookies and HTTP authentication and read the answer. Not with `*` in allowedOrigins.',
      },
      maxAgeSeconds: {
        type: 'integer',
        minimum: 0,
        maximum: 86400,
        default: 600,
        description:
          '(addition) Access-Control-Max-Age: how long a browser may reuse a preflight answer (browsers cap it: Chromium at 7200 s).',
      },
    },
  };
}

/** The problems of a defaulted `http.cors` that its schema cannot state, each with its JSON Pointer. */
export function corsProblems(cors: unknown): { path: string; message: string }[] {
  if (typeof cors !== 'object' || cors === null) return [];
  const { enabled, allowedOrigins, allowCredentials } = cors as Partial<CorsConfig>;
  if (enabled !== true || !Array.isArray(allowedOrigins)) return [];
  const problems: { path: string; message: string }[] = [];
  const origins = allowedOrigins.filter((origin) => typeof origin === 'string');
  if (origins.length === 0) {
    problems.push({
      path: '/http/cors/allowedOrigins',
      message: 'needs at least one origin when enabled is true',
    });
  }
  allowedOrigins.forEach((origin, index) => {
    // A value of the wrong type was reported by the schema already.
    const problem = typeof origin === 'string' ? originProblem(origin) : undefined;
    if (problem !== undefined)
      problems.push({ path: `/http/cors/allowedOrigins/${index}`, message: problem });
  });
  if (allowCredentials === true && origins.includes('*')) {
    problems.push({
      path: '/http/cors/allowCredentials',
      message:
        "cannot be true with '*' in allowedOrigins: every site could then make requests with its visitors' credentials; list the origins instead",
    });
  }
  return problems;
}

function originProblem(origin: string): string | undefined {
  if (origin === '*') return undefined;
  let serialized: string;
  try {
    serialized = new URL(origin).origin;
  } catch {
    serialized = 'null';
  }
  if (serialized === 'null') {
    return `'${origin}' is not an origin: write scheme://host[:port] (e.g. https://shop.example), or '*'`;
  }
  if (serialized !== origin) {
    return `'${origin}' is not written as a browser sends it in Origin: write '${serialized}'`;
  }
  return undefined;
}

/** What a preflight is answered with: its headers when allowed, else why it is refused. */
export type PreflightAnswer =
  | { readonly allowed: true; readonly headers: Readonly<Record<string, string>> }
  | { readonly allowed: false; readonly reason: string; readonly headers: Readonly<Record<string, string>> };

/** The methods the Fetch standard lets through a preflight whatever the server lists. */
const SAFELISTED_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'POST']);
const VARY_ORIGIN: Readonly<Record<string, string>> = Object.freeze({ Vary: 'Origin' });
const VARY_PREFLIGHT = 'Origin, Access-Control-Request-Method, Access-Control-Request-Headers';

/**
 * The CORS rules of one origin, decided once from its `http.cors` (enabled). Pure: it reads request headers and
 * returns the headers an answer carries; the request path writes them. The header objects it returns are shared
 * and frozen (one per allowed origin), so that an answer costs no allocation for CORS.
 */
export class CorsPolicy {
  readonly #anyOrigin: boolean;
  readonly #origins: ReadonlySet<string>;
  readonly #anyMethod: boolean;
  readonly #methods: ReadonlySet<string>;
  readonly #anyHeader: boolean;
  readonly #headers: ReadonlySet<string>;
  readonly #config: CorsConfig;
  /** The headers of an ordinary answer, by allowed request origin (at most one per configured origin, plus `*`). */
  readonly #answerHeaders = new Map<string, Readonly<Record<string, string>>>();

  constructor(config: CorsConfig) {
    this.#config = config;
    this.#anyOrigin = config.allowedOrigins.includes('*');
    this.#origins = new Set(config.allowedOrigins);
    this.#anyMethod = config.allowedMethods.includes('*');
    this.#methods = new Set(config.allowedMethods.map((method) => method.toUpperCase()));
    this.#anyHeader = config.allowedHeaders.includes('*');
    this.#headers = new Set(config.allowedHeaders.map((name) => name.toLowerCase()));
  }

  /**
   * A CORS preflight (Fetch standard): `OPTIONS` with `Origin` and `Access-Control-Request-Method`. Any other
   * `OPTIONS` request is an ordinary one and goes to the pipeline.
   */
  isPreflight(method: string, headers: IncomingHttpHeaders): boolean {
    return (
      method === 'OPTIONS' &&
      headers.origin !== undefined &&
      headers['access-control-request-method'] !== undefined
    );
  }

  /** Whether pages of `origin` (the request's `Origin` header) may call the origin. */
  allows(origin: string | undefined): origin is string {
    return origin !== undefined && (this.#anyOrigin || this.#origins.has(origin));
  }

  /**
   * The CORS headers of any answer other than a preflight's, rejections included: `Vary: Origin` always (the
   * answer depends on `Origin`, so a cache must not give one origin's answer to another), and for an allowed
   * origin `Access-Control-Allow-Origin`, `-Allow-Credentials` and `-Expose-Headers`.
   */
  answerHeaders(origin: string | undefined): Readonly<Record<string, string>> {
    if (!this.allows(origin)) return VARY_ORIGIN;
    const key = this.#anyOrigin && !this.#config.allowCredentials ? '*' : origin;
    let headers = this.#answerHeaders.get(key);
    if (headers === undefined) {
      headers = Object.freeze({ ...this.#allowOrigin(key), ...this.#exposed() });
      // Only configured origins (or `*`) get here, so the map stays as small as the config.
      if (this.#origins.has(key) || key === '*') this.#answerHeaders.set(key, headers);
    }
    return headers;
  }

  /**
   * Decides a preflight: the origin must be allowed, the requested method allowed (or safelisted), and every
   * requested header allowed. The answer names exactly the method and headers asked for.
   */
  preflight(headers: IncomingHttpHeaders): PreflightAnswer {
    const origin = headers.origin;
    const vary = { Vary: VARY_PREFLIGHT };
    if (!this.allows(origin)) {
      return {
        allowed: false,
        reason: `origin '${String(origin)}' is not in http.cors.allowedOrigins`,
        headers: vary,
      };
    }
    const method = String(headers['access-control-request-method']);
    if (!this.#anyMethod && !SAFELISTED_METHODS.has(method) && !this.#methods.has(method.toUpperCase())) {
      return {
        allowed: false,
        reason: `method '${method}' is not in http.cors.allowedMethods`,
        headers: vary,
      };
    }
    const requested = requestedHeaders(headers['access-control-request-headers']);
    const refused = this.#anyHeader ? undefined : requested.find((name) => !this.#headers.has(name));
    if (refused !== undefined) {
      return {
        allowed: false,
        reason: `header '${refused}' is not in http.cors.allowedHeaders`,
        headers: vary,
      };
    }
    const key = this.#anyOrigin && !this.#config.allowCredentials ? '*' : origin;
    const answer: Record<string, string> = {
      ...this.#allowOrigin(key),
      'Access-Control-Allow-Methods': method,
      'Access-Control-Max-Age': String(this.#config.maxAgeSeconds),
      ...vary,
    };
    if (requested.length > 0) answer['Access-Control-Allow-Headers'] = requested.join(', ');
    return { allowed: true, headers: answer };
  }

  #allowOrigin(value: string): Record<string, string> {
    const headers: Record<string, string> = { 'Access-Control-Allow-Origin': value };
    if (this.#config.allowCredentials) headers['Access-Control-Allow-Credentials'] = 'true';
    // Even `*` is sent only to requests with an allowed Origin, so every answer depends on Origin.
    headers['Vary'] = 'Origin';
    return headers;
  }

  #exposed(): Record<string, string> {
    const { exposedHeaders } = this.#config;
    return exposedHeaders.length === 0 ? {} : { 'Access-Control-Expose-Headers': exposedHeaders.join(', ') };
  }
}

/** The lower-cased names of `Access-Control-Request-Headers` (a comma-separated list; blanks dropped). */
function requestedHeaders(value: string | string[] | undefined): string[] {
  if (value === undefined) return [];
  const joined = Array.isArray(value) ? value.join(',') : value;
  return joined
    .split(',')
    .map((name) => name.trim().toLowerCase())
    .filter((name) => name !== '');
}

import type { ValidateFunction } from 'ajv/dist/2020.js';
import { spnegoPrincipalProblem } from '../auth/spnego-principal';
import { corsProblems, type CorsConfig } from '../http/cors';
import type { TraceContextMode } from './trace-context';
import { ConfigError, type ConfigProblem } from '../errors/config-error';
import type { CompressionConfig } from '../formats/compression/compression-options';
import { compileConfigSchema, configProblems } from '../formats/config-validation';
import type { JsonSchema } from '../formats/data-format';
import type { FormatRegistry } from '../formats/format-registry';
import { trustedProxyProblem, type ForwardedHeaderName } from '../http/client-address';
import { buildConfigSchema, REQUIRED_WHEN_RULES, type ON_RECORD_ERROR_VALUES } from './config-schema';
import { rateLimitProblems, type ConcurrencyPerKey, type RateLimitRule } from './rate-limit-options';
import { canonicalResponseCharset, type HttpResponseConfig } from '../response/response-options';
import type { TlsConfig } from '../tls/tls-options';
import type { IdempotencyConfig, IdempotencyConfigInput } from '../idempotency/idempotency-options';

export type { ConcurrencyPerKey, RateLimitKey, RateLimitRule } from './rate-limit-options';
export type { BasicAuthenticationUser, KeystoreType, TlsConfig, TlsProtocol } from '../tls/tls-options';

/** What happens to a record the data format cannot parse (General tab, On Record Error). */
export type OnRecordError = (typeof ON_RECORD_ERROR_VALUES)[number];

/** General tab. */
export interface GeneralConfig {
  /** Stage name; also the Basic authentication realm. */
  readonly name: string;
  readonly description: string;
  /** Where relative file paths of the config resolve (addition); `''` = the working directory. */
  readonly resourcesDirectory: string;
  readonly onRecordError: OnRecordError;
}

/** HTTP tab: how requests arrive, who may send them, and the limits. `docs/config.md` gives every meaning. */
export interface HttpConfig {
  readonly useApiGateway: boolean;
  /** Non-empty when `useApiGateway`. */
  readonly gatewayServiceName: string;
  readonly requireGatewayAuthentication: boolean;
  /** 0..65535; 0 = an ephemeral port. */
  readonly port: number;
  /** Bind address; absent = all interfaces. The one key a resolved config may lack. */
  readonly host?: string;
  /** Empty = no application ID check. */
  readonly applicationIds: readonly string[];
  readonly applicationIdInUrl: boolean;
  /** 1..200. */
  readonly maxConcurrentRequests: number;
  /** MB of 10^6 bytes, 1..100000. */
  readonly maxRequestSizeMb: number;
  /** Records (failures included) one body may hold (addition). */
  readonly maxRecordsPerRequest: number;
  /** 1..100; 100 = no heap check (addition). */
  readonly maxHeapUsagePercent: number;
  /** MB; 0 = no collection after large bodies (addition, decision 0091). */
  readonly releaseMemoryAfterMb: number;
  readonly useKerberosWithSpnego: boolean;
  /** The three Kerberos keys are non-empty when `useKerberosWithSpnego`. */
  readonly kerberosRealm: string;
  readonly httpSpnegoPrincipal: string;
  readonly keytabFile: string;
  /** Requests that may wait for a free slot (addition). */
  readonly queueSize: number;
  readonly queueTimeoutMs: number;
  /** Per-tenant rate limits; empty = none (addition, docs/rate-limits.md). */
  readonly rateLimits: readonly RateLimitRule[];
  /** The most slots one tenant may hold; `null` = no per-tenant limit (addition). */
  readonly maxConcurrentRequestsPerKey: ConcurrencyPerKey | null;
  readonly responseTimeoutMs: number;
  readonly requestTimeoutMs: number;
  /** Capped at `requestTimeoutMs` when the server is made (addition). */
  readonly headersTimeoutMs: number;
  /** 0 = no body pace check (addition). */
  readonly bodyReadTimeoutMs: number;
  readonly minBodyBytesPerSecond: number;
  /** 0 = none (addition). */
  readonly clientReadTimeoutMs: number;
  readonly keepAliveTimeoutMs: number;
  /** Open connections of the port, idle ones included (addition). */
  readonly maxConnections: number;
  readonly retryAfterSeconds: number;
  readonly copyAuthorizationHeaders: boolean;
  readonly copyApplicationId: boolean;
  readonly copyCookieHeaders: boolean;
  /** Addresses and CIDR ranges whose forwarding header is believed (addition); checked by `resolveConfig`. */
  readonly trustedProxies: readonly string[];
  readonly trustedProxyHeader: ForwardedHeaderName;
  /** Operational paths (addition, decision 0080); `''` = off. */
  readonly metricsPath: string;
  readonly healthPath: string;
  readonly readinessPath: string;
  /** Idempotency keys (addition, docs/idempotency.md); absent = off. */
  readonly idempotency?: IdempotencyConfig;
  /** Browser pages of other origins (addition, docs/cors.md). */
  readonly cors: CorsConfig;
  /** W3C Trace Context (addition, docs/trace-context.md). */
  readonly traceContext: TraceContextMode;
  /** HTTP/2 beside HTTP/1.1 on the port (addition, docs/http2.md). */
  readonly http2: boolean;
  /** Streams one HTTP/2 connection may have open at once, 1..1000 (addition). */
  readonly http2MaxConcurrentStreams: number;
}

/**
 * Data Format tab: the chosen format, the compression options, and one sub-object per registered format keyed by
 * the format's registry name (`dataFormat.json`, …), each with that format's defaults applied. The sub-object of
 * the chosen format is `config.dataFormat[config.dataFormat.format]`, typed `unknown` because its shape belongs
 * to the format.
 */
export interface DataFormatConfig {
  /** A name registered in the registry the config was resolved with. */
  readonly format: string;
  readonly compression: CompressionConfig;
  readonly [formatName: string]: unknown;
}

/**
 * A validated origin configuration with every default applied: every key is present (except `http.host`, which
 * has no default), and the object is deep-frozen. Made by {@link resolveConfig}.
 */
export interface OriginConfig {
  readonly general: GeneralConfig;
  readonly http: HttpConfig;
  readonly dataFormat: DataFormatConfig;
  readonly tls: TlsConfig;
  readonly httpResponse: HttpResponseConfig;
}

/** `dataFormat` as a user writes it: only `format` is required. */
export interface DataFormatConfigInput {
  readonly format: string;
  readonly compression?: Partial<CompressionConfig>;
  /** The options of a format, under its registry name; that format's schema checks them. */
  readonly [formatName: string]: unknown;
}

/**
 * A configuration as a user writes it: every key is optional except `dataFormat.format`, and
 * `httpResponse.charset` may be any accepted alias. `{ dataFormat: { format: 'json' } }` is complete.
 */
export interface OriginConfigInput {
  readonly general?: Partial<GeneralConfig>;
  readonly http?: Partial<Omit<HttpConfig, 'idempotency' | 'cors'>> & {
    readonly idempotency?: IdempotencyConfigInput;
    readonly cors?: Partial<CorsConfig>;
  };
  readonly dataFormat: DataFormatConfigInput;
  readonly tls?: Partial<TlsConfig>;
  readonly httpResponse?: Partial<Omit<HttpResponseConfig, 'charset'>> & { readonly charset?: string };
}

interface CompiledSchema {
  /** The registry's format names when the schema was compiled; a registry only grows, so equal names = same. */
  readonly names: string;
  readonly schema: JsonSchema;
  readonly validate: ValidateFunction;
}

const compiledSchemas = new WeakMap<FormatRegistry, CompiledSchema>();

function compiledFor(registry: FormatRegistry): CompiledSchema {
  const names = registry.names().join('\u0000');
  const cached = compiledSchemas.get(registry);
  if (cached && cached.names === names) return cached;
  const schema = buildConfigSchema(registry);
  const compiled = { names, schema, validate: compileConfigSchema(schema) };
  compiledSchemas.set(registry, compiled);
  return compiled;
}

/**
 * Validates `input` against {@link buildConfigSchema}`(registry)` and returns it with every default applied, as a
 * new deep-frozen object; `input` itself is never changed. `httpResponse.charset` is matched case-insensitively
 * and its aliases resolve to the canonical name.
 *
 * The compiled schema is cached per registry and recompiled when formats were registered since.
 *
 * @throws ConfigError listing every problem, each with the JSON Pointer of the offending value and a readable
 *   message: schema violations (`/http/port must be <= 65535`), unknown keys (the path names the key), missing
 *   `dataFormat` or `dataFormat.format`, and the cross-field rules (`gatewayServiceName` when `useApiGateway`;
 *   `kerberosRealm`, `httpSpnegoPrincipal` and `keytabFile` when `useKerberosWithSpnego`, and
 *   `httpSpnegoPrincipal` of the form `HTTP/<fqdn>@<kerberosRealm>`; `xmlSchema` when `validateSchema`).
 * @throws OriginError `ORIGIN_FORMAT_NAME_RESERVED` when the registry holds a format named `format` or
 *   `compression`.
 */
export function resolveConfig(input: unknown, registry: FormatRegistry): OriginConfig {
  let config: unknown;
  try {
    config = structuredClone(input);
  } catch (error) {
    throw new ConfigError([
      {
        path: '',
        message: `must hold only plain data (${error instanceof Error ? error.message : String(error)})`,
      },
    ]);
  }
  normalizeCharset(config);
  const { schema, validate } = compiledFor(registry);
  const valid = validate(config);
  const problems = [
    ...(valid ? [] : configProblems(validate.errors ?? [], 'config')),
    ...crossFieldProblems(config),
    // Only on a schema-valid config: the rules read the rate limits' types as the schema promises them.
    ...(valid ? rateLimitProblems(config as OriginConfig) : []),
    ...formatProblems(config, registry),
  ];
  if (problems.length > 0) throw new ConfigError(problems);
  return deepFreeze(inSchemaOrder(config, schema) as OriginConfig);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function normalizeCharset(config: unknown): void {
  if (!isObject(config) || !isObject(config['httpResponse'])) return;
  const response = config['httpResponse'];
  const charset = response['charset'];
  if (typeof charset !== 'string') return;
  const canonical = canonicalResponseCharset(charset);
  if (canonical) response['charset'] = canonical;
}

/**
 * Runs on the defaulted object even when the schema found problems, so one round shows every problem; a value of
 * the wrong type was already reported by the schema and is left alone here.
 */
function crossFieldProblems(config: unknown): ConfigProblem[] {
  if (!isObject(config)) return [];
  const problems: ConfigProblem[] = [];
  for (const rule of REQUIRED_WHEN_RULES) {
    const tab = config[rule.tab];
    if (!isObject(tab) || tab[rule.flag] !== true) continue;
    for (const key of rule.required) {
      const value = tab[key];
      if (typeof value === 'string' && value.trim() === '') {
        problems.push({ path: `/${rule.tab}/${key}`, message: `is required when ${rule.flag} is true` });
      }
    }
  }
  problems.push(...spnegoProblems(config));
  problems.push(...trustedProxyProblems(config));
  problems.push(...corsProblems(isObject(config['http']) ? config['http']['cors'] : undefined));
  return problems;
}

/** `httpSpnegoPrincipal` must read `HTTP/<fqdn>@<REALM>` with the realm of `kerberosRealm`. */
function spnegoProblems(config: Record<string, unknown>): ConfigProblem[] {
  const http = config['http'];
  if (!isObject(http) || http['useKerberosWithSpnego'] !== true) return [];
  const principal = http['httpSpnegoPrincipal'];
  const realm = http['kerberosRealm'];
  if (typeof principal !== 'string' || typeof realm !== 'string') return [];
  if (principal.trim() === '' || realm.trim() === '') return [];
  const problem = spnegoPrincipalProblem(principal, realm);
  return problem === undefined ? [] : [{ path: '/http/httpSpnegoPrincipal', message: problem }];
}

/** Each `http.trustedProxies` entry must be an address or a CIDR range that `node:net`'s BlockList takes. */
function trustedProxyProblems(config: Record<string, unknown>): ConfigProblem[] {
  const http = config['http'];
  const entries = isObject(http) ? http['trustedProxies'] : undefined;
  if (!Array.isArray(entries)) return [];
  return entries.flatMap((entry: unknown, i) => {
    const problem = typeof entry === 'string' && entry !== '' ? trustedProxyProblem(entry) : undefined;
    return problem === undefined ? [] : [{ path: `/http/trustedProxies/${i}`, message: problem }];
  });
}

/** The schema's `enum` of format names cannot say "nothing is allowed", so an empty registry is checked here. */
function formatProblems(config: unknown, registry: FormatRegistry): ConfigProblem[] {
  if (!isObject(config) || !isObject(config['dataFormat'])) return [];
  const format = config['dataFormat']['format'];
  if (typeof format !== 'string' || registry.names().length > 0) return [];
  return [
    { path: '/dataFormat/format', message: 'must name a registered data format, and the registry is empty' },
  ];
}

/**
 * A copy with object keys in the order the schema lists them, because ajv appends defaulted keys after the ones
 * given and a resolved config reads best in the documented order. Keys the schema does not list keep their place
 * after the listed ones.
 */
function inSchemaOrder(value: unknown, schema: unknown): unknown {
  if (!isObject(schema)) return value;
  if (Array.isArray(value)) return value.map((item) => inSchemaOrder(item, schema['items']));
  const properties = schema['properties'];
  if (!isObject(value) || !isObject(properties)) return value;
  const ordered: Record<string, unknown> = {};
  for (const key of Object.keys(properties)) {
    if (Object.hasOwn(value, key)) ordered[key] = inSchemaOrder(value[key], properties[key]);
  }
  for (const key of Object.keys(value)) {
    if (!Object.hasOwn(ordered, key)) ordered[key] = value[key];
  }
  return ordered;
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

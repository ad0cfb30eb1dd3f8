import { EventEmitter } from 'node:events';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { hostname } from 'node:os';
import type { AuthenticationMethod, Authenticator } from '../auth/authenticator';
import { authenticationMethodOf, ignoredAuthenticationOptions } from '../auth/authentication-method';
import { authenticatorFor } from '../auth/authenticator-for';
import {
  ForwardedAuthenticator,
  GATEWAY_SECRET_HEADER,
  GATEWAY_USER_HEADER,
} from '../auth/forwarded-authenticator';
import { ConfigError, type ConfigProblem } from '../errors/config-error';
import type { ErrorCode } from '../errors/error-table';
import { OriginError } from '../errors/origin-error';
import { defaultRegistry } from '../formats/built-in';
import type { FormatRegistry } from '../formats/format-registry';
import type { TraceContext } from '../pipeline/batch';
import type { RunnerPool } from '../pipeline/runner-pool';
import { responseRendererFor } from '../response/response-renderer';
import { writeQueuedAnswers } from '../http/pass-end-answers';
import { clientCertificateAttributes } from '../tls/client-certificate';
import type { TlsCredentials } from '../tls/tls-options';
import { tlsSettingsFor, type LoadedTls, type TlsSettings } from '../tls/tls-settings';
import type { RequestAdmission } from './admission';
import { admissionFor } from './fair-admission';
import { rateLimitsFor } from './rate-limits';
import { ApplicationIdList } from './application-id';
import { BatchDeadlines } from './batch-deadlines';
import { BatchSignals } from './batch-signals';
import { bodyPlanFor } from './body-plan';
import { HeapGuard } from './heap-guard';
import { resolveConfig, type OriginConfig } from './config';
import { handleRequest, refuse, refuseUnrouted, serveRequest, type RequestContext } from './handle-request';
import type { GatewayRegistration, GatewayService, ServiceGateway } from './gateway-service';
import { InFlight } from './in-flight';
import type { IdempotencyStore } from '../idempotency/idempotency-store';
import { idempotencyPlanFor } from './idempotent-request';
import { leasePort, type PortLease, type PortTenant } from './listener-registry';
import type { MetricsSnapshot } from '../metrics/metrics-snapshot';
import { renderPrometheusText, type MetricsTextFormat } from '../metrics/prometheus-text';
import { channels } from './diagnostics-channels';
import {
  CLOSING,
  checkOperationalPaths,
  operationalKindOf,
  operationalRoutes,
  serveOperational,
  type OperationalProbe,
} from './operational-paths';
import { OriginMetrics, type OriginMetricsSnapshot } from './origin-metrics';
import { reservedAttributeNames } from './reserved-attributes';
import { clientAddressSources } from './request-info';
import { CorsPolicy } from '../http/cors';

/**
 * Where an origin is in its life. `idle` → `starting` → `listening` → `closing` → `closed`; a failed start
 * ends in `failed`. An origin driven by its host through {@link Origin.handleRequest} serves requests while
 * `idle` too.
 */
export type OriginState = 'idle' | 'starting' | 'listening' | 'closing' | 'closed' | 'failed';

/**
 * What an origin serves and how it lets callers in ({@link Origin.describe}): plain data without any secret,
 * also carried by the `start` event.
 */
export interface OriginDescription {
  /** The endpoint URL once listening, else `null`. */
  readonly endpoint: string | null;
  /** `tls.useTls`. */
  readonly tls: boolean;
  /** Mutual TLS: a client certificate chained to the truststore is required in the handshake. */
  readonly mutualTls: boolean;
  /** The authentication method in force by the precedence of spec §5 (`gateway` > `spnego` > `basic` > `none`). */
  readonly authentication: AuthenticationMethod;
  /**
   * The application ID check: `none` (no list), `header` (`X-ENGINE-APPLICATION-ID`), or `headerOrUrl` (also
   * `?engineApplicationId=`).
   */
  readonly applicationIds: 'none' | 'header' | 'headerOrUrl';
  /** Authentication options that are set but not in force, each as a sentence (empty when none). */
  readonly ignored: readonly string[];
}

/** The events an origin emits, and what each listener receives. */
export interface OriginEvents {
  /** The origin listens; `url` is the endpoint to display, `description` what {@link Origin.describe} returns. */
  start: { url: string; description: OriginDescription };
  /**
   * A request arrived (before any check). `traceContext`: its W3C trace context as the origin continues it (the
   * origin's own span id included), `undefined` without one; see docs/trace-context.md.
   */
  request: {
    requestId: string;
    method: string;
    path: string;
    remoteHost: string;
    traceContext: TraceContext | undefined;
  };
  /** The pipeline ran a request's batch and the response was sent. */
  batch: { requestId: string; records: number; errorRecords: number; status: number; durationMs: number };
  /** A request was refused or failed; `code` says why. */
  rejection: { requestId: string; code: ErrorCode; status: number; message: string };
  /** The origin stopped; `reason` is set when it stopped itself (onRecordError `stopPipeline`). */
  stop: { reason?: OriginError };
}

/** What the host supplies besides the config. */
export interface OriginOptions {
  /** The pipeline runners. The origin does not close them: they belong to the host. */
  readonly runners: RunnerPool;
  /** Formats to choose `dataFormat.format` from; `defaultRegistry` by default. */
  readonly formats?: FormatRegistry;
  /**
   * Credential functions for the remote keystore and truststore (e.g. reads from a secret store), called at
   * `start()` and at every `reloadTls()`; see docs/security.md. The config itself stays plain data.
   */
  readonly tlsCredentials?: TlsCredentials;
  /**
   * The API gateway that serves this origin when `http.useApiGateway` is on (required then): `start()` registers
   * `http.gatewayServiceName` on it instead of listening on a port, `close()` unregisters. See docs/gateway.md.
   */
  readonly gateway?: ServiceGateway;
  /**
   * The pipeline's name as the gateway's authorizer knows it ("may user U read pipeline P"); `general.name` by
   * default. Used in gateway mode only.
   */
  readonly pipeline?: string;
  /**
   * Gateway mode with the gateway in another process (decision 0067): instead of `gateway`, the secret the host
   * registered this origin's URL with (`gateway.registerRemote`). The origin then listens on `http.port` (with
   * its TLS options, which secure gateway → origin) and answers 403 to any request without the secret.
   */
  readonly gatewaySecret?: string;
  /**
   * What `http.metricsPath` serves instead of this origin's own metrics: e.g. in a worker of a cluster, a function
   * that asks the primary for the merged snapshot of every worker (docs/metrics.md). A promise is waited for; one
   * that rejects (or a function that throws) answers the scrape 503. `origin.metrics()` is not affected.
   */
  readonly metricsSource?: () => MetricsSnapshot | Promise<MetricsSnapshot>;
  /**
   * The store of idempotency keys when `http.idempotency` is on, instead of the one `http.idempotency.store` names
   * (docs/idempotency.md): any object that keeps the {@link IdempotencyStore} contract. It belongs to the host,
   * which closes it; the origin never calls its `close`. Given while `http.idempotency` is absent: a ConfigError.
   */
  readonly idempotencyStore?: IdempotencyStore;
}

/**
 * The REST Service origin: receives requests, turns each authorized one into one batch of records, runs it on the
 * host's runners and answers with what the pipeline sent back.
 *
 * `new Origin(config, { runners })` validates the config (throwing one {@link ConfigError} with every problem);
 * `start()` listens and resolves with the endpoint URL; `close()` stops admitting, lets admitted requests finish,
 * then stops listening; `destroy()` stops at once. See docs/lifecycle.md.
 */
export class Origin {
  readonly config: OriginConfig;
  readonly #events = new EventEmitter();
  // Which request events have a listener, kept by the emitter's own add/remove notifications (so `once`
  // listeners count until they fire): the request path builds an event's object only when someone listens.
  readonly #listened = { request: false, batch: false, rejection: false };
  // What the request path asks: an event listener, or a subscriber of the event's diagnostics channel.
  readonly #listening = {
    listened: this.#listened,
    get request(): boolean {
      return this.listened.request || channels.requestStart.hasSubscribers;
    },
    get batch(): boolean {
      return this.listened.batch || channels.batch.hasSubscribers;
    },
    get rejection(): boolean {
      return this.listened.rejection || channels.rejection.hasSubscribers;
    },
  };
  readonly #runners: RunnerPool;
  readonly #metrics: OriginMetrics;
  /** The metrics, health and readiness paths; `undefined` when none is configured. */
  readonly #operational: OperationalProbe | undefined;
  readonly #admission: RequestAdmission;
  readonly #runningBatches: BatchDeadlines;
  readonly #inFlight = new InFlight();
  readonly #context: RequestContext;
  readonly #tls: TlsSettings | undefined;
  readonly #authenticator: Authenticator | undefined;
  #state: OriginState = 'idle';
  #lease: PortLease | undefined;
  readonly #gateway: ServiceGateway | undefined;
  readonly #pipeline: string;
  #registration: GatewayRegistration | undefined;
  #url: string | undefined;
  #closing: Promise<void> | undefined;
  #requestCounter = 0;
  readonly #requestIdPrefix = Date.now().toString(36);

  constructor(config: unknown, options: OriginOptions) {
    const formats = options.formats ?? defaultRegistry;
    this.config = resolveConfig(config, formats);
    requireGateway(this.config, options.gateway ?? options.gatewaySecret);
    checkOperationalPaths(this.config.http);
    this.#metrics = new OriginMetrics(this.config.general.name);
    this.#gateway = this.config.http.useApiGateway ? options.gateway : undefined;
    this.#pipeline = options.pipeline ?? this.config.general.name;
    this.#tls = tlsSettingsFor(this.config.tls, {
      resourcesDirectory: this.config.general.resourcesDirectory,
      credentials: options.tlsCredentials ?? {},
    });
    const forwarded = this.config.http.useApiGateway && !options.gateway ? options.gatewaySecret : undefined;
    this.#authenticator = forwarded ? new ForwardedAuthenticator(forwarded) : authenticatorFor(this.config);
    warnIgnoredAuthentication(this.config);
    this.#runners = options.runners;
    warnIfPoolIsSmaller(options.runners, this.config.http.maxConcurrentRequests);
    const body = bodyPlanFor(this.config, formats.get(this.config.dataFormat.format));
    const { http } = this.config;
    this.#admission = admissionFor(http);
    this.#runningBatches = new BatchDeadlines(http.responseTimeoutMs);
    this.#events.on('newListener', (event: string) => this.#updateListening(event, true));
    this.#events.on('removeListener', (event: string) =>
      this.#updateListening(event, this.#events.listenerCount(event) > 0),
    );
    this.#context = {
      config: this.config,
      body,
      authenticator: this.#authenticator,
      applicationIds: new ApplicationIdList(http.applicationIds),
      admission: this.#admission,
      rateLimits: rateLimitsFor(this.config),
      tenantKey: http.maxConcurrentRequestsPerKey?.key,
      heap: new HeapGuard(http.maxHeapUsagePercent),
      runners: this.#runners,
      metrics: this.#metrics,
      observer: {
        listening: this.#listening,
        request: (info) => this.#notify('request', channels.requestStart, info),
        batch: (info) => this.#notify('batch', channels.batch, info),
        rejection: (info) => this.#notify('rejection', channels.rejection, info),
      },
      runningBatches: this.#runningBatches,
      renderer: responseRendererFor(this.config.httpResponse, this.config.general.resourcesDirectory),
      batchSignals: new BatchSignals(http.maxConcurrentRequests),
      inFlight: this.#inFlight,
      attributeSources: {
        copyAuthorizationHeaders: http.copyAuthorizationHeaders,
        copyApplicationId: http.copyApplicationId,
        copyCookieHeaders: http.copyCookieHeaders,
        reservedAttributes: withGatewayHeaders(reservedAttributeNames(formats)),
        ...(this.#tls?.requireClientAuthentication ? { clientCertificateAttributes } : {}),
        ...clientAddressSources(http),
        traceContext: http.traceContext,
      },
      idempotency: idempotencyPlanFor(this.config, options.idempotencyStore),
      cors: http.cors.enabled ? new CorsPolicy(http.cors) : undefined,
      isClosing: () => this.#state === 'closing' || this.#state === 'closed',
      nextRequestId: () => `${this.#requestIdPrefix}-${++this.#requestCounter}`,
      stopPipeline: (reason) => void this.#stopItself(reason),
    };
    this.#operational = this.#operationalProbe(options.metricsSource);
  }

  /** Where the origin is in its life (see {@link OriginState}). */
  get state(): OriginState {
    return this.#state;
  }

  /** The endpoint URL once listening (`http://<host>:<port>/`, `https://…` with TLS), else `undefined`. */
  get url(): string | undefined {
    return this.#url;
  }

  /**
   * What the origin serves and how it lets callers in: endpoint, TLS, mutual TLS, the authentication method in
   * force and the application ID mode (plain data, no secret). The `start` event carries the same.
   */
  describe(): OriginDescription {
    const { http } = this.config;
    return {
      endpoint: this.#url ?? null,
      tls: this.#tls !== undefined,
      mutualTls: this.#tls?.requireClientAuthentication === true,
      authentication: authenticationMethodOf(this.config),
      applicationIds:
        http.applicationIds.length === 0 ? 'none' : http.applicationIdInUrl ? 'headerOrUrl' : 'header',
      ignored: ignoredAuthenticationOptions(this.config),
    };
  }

  /** Subscribes to an event. */
  on<E extends keyof OriginEvents>(event: E, listener: (info: OriginEvents[E]) => void): this {
    this.#events.on(event, listener);
    return this;
  }

  /** Subscribes to the next occurrence of an event. */
  once<E extends keyof OriginEvents>(event: E, listener: (info: OriginEvents[E]) => void): this {
    this.#events.once(event, listener);
    return this;
  }

  /** Unsubscribes a listener added with {@link Origin.on} or {@link Origin.once}. */
  off<E extends keyof OriginEvents>(event: E, listener: (info: OriginEvents[E]) => void): this {
    this.#events.off(event, listener);
    return this;
  }

  /**
   * Starts listening on `http.port` (several origins of this process share a port when their application ID
   * lists are non-empty and disjoint and their TLS settings identical). With `tls.useTls` it first loads the
   * keystore (and truststore) and calls the host's credential functions, then serves HTTPS. Resolves with the
   * endpoint URL the engine displays. Rejects with `ORIGIN_LISTEN_PORT_IN_USE`, `ORIGIN_LISTEN_PORT_SHARED`,
   * `ORIGIN_LISTEN_FAILED`, one of the `ORIGIN_TLS_*` loading errors, or a `ConfigError` when
   * `httpResponse.xmlSchema` (with `validateSchema`) does not compile or its imports cannot be read, leaving the
   * origin `failed`.
   */
  async start(): Promise<string> {
    if (this.#state !== 'idle')
      throw new OriginError('ORIGIN_STATE_INVALID', { action: 'start', state: this.#state });
    this.#state = 'starting';
    if (this.#gateway) return this.#register(this.#gateway);
    const { http } = this.config;
    try {
      await this.#authenticator?.prepare?.();
      await this.#context.renderer.prepare?.();
      const tls = await this.#tls?.load();
      this.#lease = await leasePort(this.#tenant(tls), {
        host: http.host,
        port: http.port,
        requestTimeoutMs: http.requestTimeoutMs,
        headersTimeoutMs: http.headersTimeoutMs,
        keepAliveTimeoutMs: http.keepAliveTimeoutMs,
        maxConnections: http.maxConnections,
        ...(tls === undefined ? {} : { tls }),
        ...(http.http2 ? { http2: { maxConcurrentStreams: http.http2MaxConcurrentStreams } } : {}),
      });
    } catch (error) {
      this.#state = 'failed';
      this.#authenticator?.release?.();
      throw error;
    }
    this.#state = 'listening';
    this.#url = endpointUrl(this.#tls ? 'https' : 'http', http.host, this.#lease.address.port);
    this.#emit('start', { url: this.#url, description: this.describe() });
    return this.#url;
  }

  /**
   * Gateway mode: prepares what requests need, then registers with the gateway instead of listening; the
   * endpoint is the gateway's URL of the service. Rejects with the gateway's `ORIGIN_GATEWAY_*` error, leaving
   * the origin `failed` (and the gateway's other services untouched).
   */
  async #register(gateway: ServiceGateway): Promise<string> {
    try {
      await this.#context.renderer.prepare?.();
      this.#registration = gateway.register(this.#service());
    } catch (error) {
      this.#state = 'failed';
      throw error;
    }
    this.#state = 'listening';
    this.#url = this.#registration.url;
    this.#emit('start', { url: this.#url, description: this.describe() });
    return this.#url;
  }

  /** This origin as a service of the gateway: served in process, on the same request path as a port's. */
  #service(): GatewayService {
    const { http } = this.config;
    return {
      name: http.gatewayServiceName,
      api: http.requireGatewayAuthentication ? 'secure' : 'public',
      pipeline: this.#pipeline,
      serve: (req, res, identity) => serveRequest(this.#context, req, res, undefined, identity),
      refuse: (req, res, error, headers) =>
        refuse(this.#context, req, res, error, {
          requestId: this.#context.nextRequestId(),
          bodyRead: false,
          startedAt: performance.now(),
          ...(headers === undefined ? {} : { headers }),
        }),
    };
  }

  /**
   * Handles one request on a server the host owns (or the gateway). Requests are answered with 503 once the
   * origin is closing. The returned promise settles when the answer has been written; it never rejects.
   */
  handleRequest(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const operational = operationalKindOf(this.#operational, req);
    if (operational === undefined) return handleRequest(this.#context, req, res);
    serveOperational(operational, [this.#operational!], req, res);
    return Promise.resolve();
  }

  /**
   * Stops gracefully: new requests get 503 with `Retry-After` and `Connection: close`; requests already admitted
   * (running or waiting for a slot) finish and get their answers; then the port is released. After `timeoutMs`
   * (default 30 s) whatever is left is cut off as by {@link Origin.destroy}. Calling it again returns the same
   * promise.
   */
  close(options: { timeoutMs?: number } = {}): Promise<void> {
    this.#closing ??= this.#close(options.timeoutMs ?? 30_000, undefined);
    return this.#closing;
  }

  /** Stops at once: running batches are given up (their clients get 503), waiting requests are refused, connections are cut. */
  async destroy(): Promise<void> {
    if (this.#state === 'closed') return;
    this.#state = 'closing';
    this.#runningBatches.giveUpAll(new OriginError('ORIGIN_HTTP_CLOSING'));
    this.#admission.refuseWaiting(new OriginError('ORIGIN_HTTP_CLOSING'));
    // Let the handlers of aborted batches write their 503 answers before the connections are cut.
    await new Promise((resolve) => setImmediate(resolve));
    // Answers rendered already and queued for the end of the loop's pass (decision 0138) go out before the cut.
    writeQueuedAnswers();
    await this.#lease?.release(true);
    this.#finish(undefined);
  }

  /**
   * Loads the keystore and truststore again (files re-read, credential functions called again) and serves the
   * result to connections made from now on, without rebinding the port: open connections, keep-alive ones
   * included, go on with the certificate they were made with. While loading fails the old material stays in
   * force and the promise rejects with the `ORIGIN_TLS_*` error. On a shared port it applies to every origin
   * on the port.
   *
   * @throws OriginError `ORIGIN_TLS_NOT_ENABLED` without `tls.useTls`; `ORIGIN_STATE_INVALID` unless listening.
   */
  async reloadTls(): Promise<void> {
    if (!this.#tls) throw new OriginError('ORIGIN_TLS_NOT_ENABLED');
    if (this.#state !== 'listening' || !this.#lease) {
      throw new OriginError('ORIGIN_STATE_INVALID', {
        action: 'reload the TLS material of',
        state: this.#state,
      });
    }
    const loaded = await this.#tls.load();
    // The origin may have been closed while the stores were read.
    this.#lease?.reloadTls(loaded);
  }

  /**
   * The origin's metrics now (names, labels and types: docs/metrics.md):
   * - no argument (or `format: 'summary'`): the summary object of earlier versions ({@link OriginMetricsSnapshot});
   * - `format: 'snapshot'`: every family with its labels and histograms as plain, JSON-serialisable,
   *   mergeable data (`mergeMetricsSnapshots`, `renderPrometheusText`);
   * - `format: 'prometheus'` / `'openmetrics'`: that snapshot as Prometheus text exposition 0.0.4 / OpenMetrics 1.0
   *   text (serve it with `PROMETHEUS_CONTENT_TYPE` / `OPENMETRICS_CONTENT_TYPE`).
   */
  metrics(options?: { format: 'summary' }): OriginMetricsSnapshot;
  metrics(options: { format: 'snapshot' }): MetricsSnapshot;
  metrics(options: { format: MetricsTextFormat }): string;
  metrics(
    options: { format: 'summary' | 'snapshot' | MetricsTextFormat } = { format: 'summary' },
  ): OriginMetricsSnapshot | MetricsSnapshot | string {
    const { inUse, waiting } = this.#admission;
    if (options.format === 'summary') return this.#metrics.summary(inUse, waiting);
    const snapshot = this.#metrics.snapshot(inUse, waiting);
    return options.format === 'snapshot' ? snapshot : renderPrometheusText(snapshot, options.format);
  }

  /** What the operational paths read of this origin (decision 0081); `undefined` when none is configured. */
  #operationalProbe(
    source: (() => MetricsSnapshot | Promise<MetricsSnapshot>) | undefined,
  ): OperationalProbe | undefined {
    const routes = operationalRoutes(this.config.http);
    if (routes === undefined) return undefined;
    const { http } = this.config;
    return {
      routes,
      routesKey: [http.metricsPath, http.healthPath, http.readinessPath].join('\n'),
      snapshot: source ?? (() => this.#metrics.snapshot(this.#admission.inUse, this.#admission.waiting)),
      unhealthy: () => (this.#context.isClosing() ? CLOSING : undefined),
      unready: () => {
        if (this.#context.isClosing()) return CLOSING;
        if (this.#admission.full) return 'admission queue full';
        if (this.#runners.ready?.() === false) return 'runner pool not ready';
        return undefined;
      },
    };
  }

  async #close(timeoutMs: number, reason: OriginError | undefined): Promise<void> {
    if (this.#state === 'closed') return;
    this.#state = 'closing';
    // New connections are refused from now on; open ones, idle keep-alive ones included, stay, so that a
    // request already on its way gets 503 and `Connection: close` rather than a reset (0047).
    this.#lease?.stopAccepting();
    const drained = this.#inFlight.drained().then(() => true);
    const timedOut = new Promise<boolean>((resolve) => setTimeout(() => resolve(false), timeoutMs).unref());
    if (await Promise.race([drained, timedOut])) {
      await this.#lease?.release(false);
      this.#finish(reason);
    } else {
      await this.destroy();
    }
  }

  #finish(reason: OriginError | undefined): void {
    if (this.#state === 'closed') return;
    this.#state = 'closed';
    this.#runningBatches.stop();
    this.#authenticator?.release?.();
    const idempotency = this.#context.idempotency;
    // Only once no request can use it any more; a store the host passed is the host's to close.
    if (idempotency?.ownsStore) void idempotency.store.close?.().catch(() => undefined);
    this.#lease = undefined;
    this.#registration?.unregister();
    this.#registration = undefined;
    this.#emit('stop', reason ? { reason } : {});
  }

  async #stopItself(reason: OriginError): Promise<void> {
    this.#closing ??= this.#close(30_000, reason);
    await this.#closing;
  }

  #tenant(tls: LoadedTls | undefined): PortTenant {
    const { http } = this.config;
    return {
      name: this.config.general.name,
      applicationIds: http.applicationIds,
      applicationIdInUrl: http.applicationIdInUrl,
      claims: (id) => this.#context.applicationIds.includes(id),
      tlsKey: tls?.fingerprint ?? '',
      ...(this.#operational === undefined ? {} : { operational: this.#operational }),
      handleRequest: (req, res) => serveRequest(this.#context, req, res),
      takesPreflight: (req) => {
        const { cors } = this.#context;
        return (
          cors !== undefined &&
          cors.isPreflight(req.method ?? '', req.headers) &&
          cors.allows(req.headers.origin)
        );
      },
      connectionRefusal: (error) => {
        this.#metrics.countRequest('rejected', error.httpStatus, 0, error.code);
        const rendered = this.#context.renderer.rejection(error.httpStatus, error.describe());
        return {
          status: rendered.status,
          headers: { ...rendered.headers, 'Retry-After': String(http.retryAfterSeconds) },
          body: rendered.body,
        };
      },
      refuseUnrouted: (req, res, error) => refuseUnrouted(this.#context, req, res, error),
    };
  }

  #updateListening(event: string, listened: boolean): void {
    if (event === 'request' || event === 'batch' || event === 'rejection') this.#listened[event] = listened;
  }

  /** Emits a request event to its listeners and publishes it, with the origin's name, on its channel. */
  #notify<E extends 'request' | 'batch' | 'rejection'>(
    event: E,
    channel: { readonly hasSubscribers: boolean; publish(message: unknown): void },
    info: OriginEvents[E],
  ): void {
    if (this.#listened[event]) this.#emit(event, info);
    if (channel.hasSubscribers) channel.publish({ origin: this.config.general.name, ...info });
  }

  #emit<E extends keyof OriginEvents>(event: E, info: OriginEvents[E]): void {
    // A throwing listener must not break the request path.
    try {
      this.#events.emit(event, info);
    } catch (error) {
      queueMicrotask(() => {
        throw error;
      });
    }
  }
}

/** Gateway mode needs the gateway from the host: refused at construction rather than at `start()`. */
function requireGateway(config: OriginConfig, gateway: ServiceGateway | string | undefined): void {
  if (!config.http.useApiGateway || gateway !== undefined) return;
  const problem: ConfigProblem = {
    path: '/http/useApiGateway',
    message:
      'true needs the gateway that serves the origin: pass it as options.gateway, or options.gatewaySecret for a gateway in another process (docs/gateway.md)',
  };
  throw new ConfigError([problem]);
}

/** The reserved names plus the gateway's forwarding headers: the secret must never reach a record. */
function withGatewayHeaders(reserved: { has(lowerCaseName: string): boolean }): {
  has(lowerCaseName: string): boolean;
} {
  return {
    has: (name) => name === GATEWAY_SECRET_HEADER || name === GATEWAY_USER_HEADER || reserved.has(name),
  };
}

/**
 * Warns once, at construction, of authentication options that are set but not in force (basic users without TLS,
 * basic users or SPNEGO under gateway authentication, basic users beside SPNEGO): a process warning of type
 * `OriginWarning`, code `REST_ORIGIN_AUTH_OPTIONS_IGNORED`. The sentences name options, never values.
 */
function warnIgnoredAuthentication(config: OriginConfig): void {
  for (const sentence of ignoredAuthenticationOptions(config)) {
    process.emitWarning(`Origin '${config.general.name}': ${sentence}.`, {
      type: 'OriginWarning',
      code: 'REST_ORIGIN_AUTH_OPTIONS_IGNORED',
    });
  }
}

function endpointUrl(scheme: 'http' | 'https', host: string | undefined, port: number): string {
  const shown = host === undefined || host === '' || host === '0.0.0.0' || host === '::' ? hostname() : host;
  return `${scheme}://${shown.includes(':') ? `[${shown}]` : shown}:${port}/`;
}

/**
 * Warns (a process warning, type `OriginWarning`, code `REST_ORIGIN_RUNNER_POOL_SMALLER`) when the pool says it
 * has fewer runners than `http.maxConcurrentRequests`: the admitted requests beyond the pool's size then wait for
 * a runner inside `run`, where neither `http.queueSize` nor `http.queueTimeoutMs` bounds them. A pool that does
 * not say its size (a JavaScript host may leave `size` out) is not checked.
 */
function warnIfPoolIsSmaller(runners: RunnerPool, maxConcurrentRequests: number): void {
  const size = (runners as { size?: unknown }).size;
  if (typeof size !== 'number' || !Number.isFinite(size) || size >= maxConcurrentRequests) return;
  process.emitWarning(
    `The runner pool has ${size} runner(s), fewer than http.maxConcurrentRequests (${maxConcurrentRequests}): admitted requests beyond ${size} wait for a runner, unbounded by http.queueSize and http.queueTimeoutMs. Make the pool at least as large.`,
    { type: 'OriginWarning', code: 'REST_ORIGIN_RUNNER_POOL_SMALLER' },
  );
}

import {
  createServer as createHttpServer,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import { createServer as createHttpsServer, type ServerOptions as HttpsServerOptions } from 'node:https';
import type { AddressInfo } from 'node:net';
import { identityOf } from '../auth/identity-attributes';
import { OriginError } from '../errors/origin-error';
import type {
  GatewayApi,
  GatewayRegistration,
  GatewayService,
  ServiceGateway,
} from '../origin/gateway-service';
import { EVERYONE_READS, type GatewayAuthorizer } from './authorizer';
import type { GatewayAuthenticator, GatewayUser } from './gateway-authenticator';
import { RemoteForwarder, answerWithEnvelope, type RemoteService } from './remote-service';
import { ROLE_PROFILES, holdsOneOf } from './roles';

/** How a host sets up its gateway. */
export interface GatewayOptions {
  /** The port to listen on; 0 asks the system for a free one (reported by `start()`). */
  readonly port: number;
  /** The address to bind; all interfaces by default. */
  readonly host?: string;
  /** Serve HTTPS with these options (`key`, `cert`, `ca`, …): they secure client → gateway. */
  readonly tls?: HttpsServerOptions;
  /** Decides who calls; required by services on the secure API, optional on the public API. */
  readonly authenticator?: GatewayAuthenticator;
  /** Answers "may user U read pipeline P"; by default every user may read every pipeline. */
  readonly authorizer?: GatewayAuthorizer;
  /** The roles of which a secure API caller needs one; `admin`, `manager` by default ({@link ROLE_PROFILES}). */
  readonly secureApiRoles?: readonly string[];
}

/** Methods that change state: a gateway request with one of them must carry `X-Requested-By` (decision 0067). */
const REQUESTED_BY_METHODS: ReadonlySet<string> = new Set(['POST', 'PUT', 'DELETE', 'PATCH']);
const PREFIXES: readonly (readonly [string, GatewayApi])[] = [
  ['/rest/v1/gateway/', 'secure'],
  ['/public-rest/v1/gateway/', 'public'],
];

/** A request's place on the gateway: the API, the service name, and the caller's path and query after it. */
interface Route {
  readonly api: GatewayApi;
  readonly service: string;
  /** `<path>?<query>` after the service name; `/` when the caller's URL ends at the name. */
  readonly target: string;
}

/**
 * The engine as API gateway (spec §1.5): serves `/rest/v1/gateway/<service><path>?<query>` (secure API) and
 * `/public-rest/v1/gateway/<service><path>?<query>` (public API) and hands each request to the origin
 * registered under `<service>`, in process (no network hop). On the secure API the gateway's authenticator
 * decides who calls (401 with its challenge), then the caller needs one of the secure API's roles and read
 * permission on the service's pipeline (403). See docs/gateway.md.
 *
 * Start the gateway before the origins it serves, close it after them.
 */
export class Gateway implements ServiceGateway {
  readonly #options: GatewayOptions;
  readonly #authorizer: GatewayAuthorizer;
  readonly #secureApiRoles: readonly string[];
  readonly #services = new Map<string, GatewayService>();
  readonly #remotes = new Set<RemoteForwarder>();
  #server: Server | undefined;
  #url: string | undefined;
  #state: 'idle' | 'listening' | 'closed' = 'idle';

  constructor(options: GatewayOptions) {
    this.#options = options;
    this.#authorizer = options.authorizer ?? EVERYONE_READS;
    this.#secureApiRoles = options.secureApiRoles ?? ROLE_PROFILES.standalone;
  }

  /** The base URL once listening (`http://127.0.0.1:8443/`), else `undefined`. */
  get url(): string | undefined {
    return this.#url;
  }

  /** The names of the registered services, by API. */
  services(): { name: string; api: GatewayApi }[] {
    return [...this.#services.values()].map(({ name, api }) => ({ name, api }));
  }

  /** Listens; resolves with the base URL. Rejects with the listen error (a port in use). */
  async start(): Promise<string> {
    if (this.#state !== 'idle')
      throw new OriginError('ORIGIN_STATE_INVALID', { action: 'start', state: this.#state });
    const handler = (req: IncomingMessage, res: ServerResponse): void => this.#route(req, res);
    const server = this.#options.tls
      ? createHttpsServer(this.#options.tls, handler)
      : createHttpServer(handler);
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.#options.port, this.#options.host, () => {
        server.off('error', reject);
        resolve();
      });
    });
    this.#server = server;
    this.#state = 'listening';
    const { port } = server.address() as AddressInfo;
    const host = this.#options.host ?? '127.0.0.1';
    const shown = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
    this.#url = `${this.#options.tls ? 'https' : 'http'}://${shown.includes(':') ? `[${shown}]` : shown}:${port}/`;
    return this.#url;
  }

  /** Stops listening (open connections are ended once idle) and closes the authenticator. */
  async close(): Promise<void> {
    if (this.#state === 'closed') return;
    this.#state = 'closed';
    const server = this.#server;
    if (server) {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      await closed;
    }
    await Promise.all([...this.#remotes].map((remote) => remote.close()));
    await this.#options.authenticator?.close?.();
  }

  /**
   * Registers an origin that runs in another process (decision 0067): requests are forwarded to `remote.url`
   * over an undici pool with the registration's secret, which the origin was given as `options.gatewaySecret`.
   * Same errors as {@link Gateway.register}; `unregister()` also closes the pool.
   */
  registerRemote(remote: RemoteService): GatewayRegistration {
    const forwarder = new RemoteForwarder(remote);
    let registration: GatewayRegistration;
    try {
      registration = this.register(forwarder);
    } catch (error) {
      void forwarder.close();
      throw error;
    }
    this.#remotes.add(forwarder);
    return {
      url: registration.url,
      unregister: () => {
        registration.unregister();
        if (this.#remotes.delete(forwarder)) void forwarder.close();
      },
    };
  }

  register(service: GatewayService): GatewayRegistration {
    if (this.#state !== 'listening' || this.#url === undefined) {
      throw new OriginError('ORIGIN_GATEWAY_NOT_LISTENING', { service: service.name, state: this.#state });
    }
    if (this.#services.has(service.name)) {
      throw new OriginError('ORIGIN_GATEWAY_SERVICE_TAKEN', { service: service.name });
    }
    if (service.api === 'secure' && this.#options.authenticator === undefined) {
      throw new OriginError('ORIGIN_GATEWAY_AUTHENTICATOR_MISSING', { service: service.name });
    }
    this.#services.set(service.name, service);
    const prefix = service.api === 'secure' ? 'rest' : 'public-rest';
    return {
      url: `${this.#url}${prefix}/v1/gateway/${encodeURIComponent(service.name)}`,
      unregister: () => {
        if (this.#services.get(service.name) === service) this.#services.delete(service.name);
      },
    };
  }

  #route(req: IncomingMessage, res: ServerResponse): void {
    const route = routeOf(req.url ?? '/');
    if (route === undefined)
      return answerWithEnvelope(req, res, new OriginError('ORIGIN_GATEWAY_PATH_UNKNOWN'));
    const service = this.#services.get(route.service);
    if (service === undefined || service.api !== route.api) {
      const api = route.api === 'secure' ? 'secure (/rest)' : 'public (/public-rest)';
      return answerWithEnvelope(
        req,
        res,
        new OriginError('ORIGIN_GATEWAY_SERVICE_NOT_FOUND', { service: route.service, api }),
      );
    }
    const method = req.method ?? '';
    if (REQUESTED_BY_METHODS.has(method) && req.headers['x-requested-by'] === undefined) {
      return service.refuse(req, res, new OriginError('ORIGIN_GATEWAY_REQUESTED_BY_MISSING', { method }));
    }
    // The origin reads `path` and `queryString` from the URL: the caller's, after the service name.
    req.url = route.target;
    const authenticator = this.#options.authenticator;
    const anonymous = route.api === 'public' && (authenticator === undefined || !carriesCredentials(req));
    if (anonymous || authenticator === undefined) return service.serve(req, res, undefined);
    authenticator
      .authenticate(req)
      .then(async (outcome) => {
        if (!outcome.ok) {
          const code =
            outcome.reason === 'missing'
              ? 'ORIGIN_AUTH_CREDENTIALS_MISSING'
              : 'ORIGIN_AUTH_CREDENTIALS_INVALID';
          const error = new OriginError(code, { scheme: schemeOf(outcome.challenge) });
          return service.refuse(req, res, error, { 'WWW-Authenticate': outcome.challenge });
        }
        const denied = await this.#denial(outcome.user, service);
        if (denied) return service.refuse(req, res, denied);
        service.serve(req, res, identityOf('gateway', outcome.user.name));
      })
      .catch((error: unknown) => {
        const detail = error instanceof Error ? error.message : String(error);
        service.refuse(
          req,
          res,
          new OriginError('ORIGIN_GATEWAY_AUTHENTICATOR_FAILED', { detail }, { cause: error }),
        );
      });
  }

  /** Why `user` may not call `service` (a missing role on the secure API, no read permission), or `undefined`. */
  async #denial(user: GatewayUser, service: GatewayService): Promise<OriginError | undefined> {
    if (service.api === 'secure' && !holdsOneOf(user.roles, this.#secureApiRoles)) {
      return new OriginError('ORIGIN_GATEWAY_ROLE_MISSING', { roles: this.#secureApiRoles.join(', ') });
    }
    if (!(await this.#authorizer.mayRead(user, service.pipeline))) {
      return new OriginError('ORIGIN_GATEWAY_PERMISSION_DENIED', { pipeline: service.pipeline });
    }
    return undefined;
  }
}

/** The route of a request target, or `undefined` when it is under neither API. */
export function routeOf(url: string): Route | undefined {
  for (const [prefix, api] of PREFIXES) {
    if (!url.startsWith(prefix)) continue;
    const rest = url.slice(prefix.length);
    const end = rest.search(/[/?]/);
    const name = end === -1 ? rest : rest.slice(0, end);
    if (name === '') return undefined;
    const after = end === -1 ? '' : rest.slice(end);
    let service: string;
    try {
      service = decodeURIComponent(name);
    } catch {
      service = name;
    }
    return { api, service, target: after.startsWith('/') ? after : `/${after}` };
  }
  return undefined;
}

/** A request with credentials of any scheme: on the public API such a caller is authenticated, then authorized. */
function carriesCredentials(req: IncomingMessage): boolean {
  return req.headers.authorization !== undefined;
}

/** `Basic` of `Basic realm="gateway"`: the scheme a 401's message names. */
function schemeOf(challenge: string): string {
  return challenge.split(' ', 1)[0] || 'gateway';
}

import {
  STATUS_CODES,
  createServer,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import type { Http2SecureServer } from 'node:http2';
import { Server as NetServer, type AddressInfo, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { OriginError } from '../errors/origin-error';
import { isHttp2 } from '../http/http2-stream';
import type { OriginRequest, OriginResponse } from '../http/origin-exchange';
import type { LoadedTls } from '../tls/tls-settings';
import { APPLICATION_ID_HEADER, APPLICATION_ID_QUERY_PARAMETER } from './application-id';
import { createHttp2Port, type PortServer } from './http2-port';
import { ALLOWED_METHODS } from './methods';
import { operationalKindOf, serveOperational, type OperationalProbe } from './operational-paths';

/** What the registry needs of an origin that listens on a port. */
export interface PortTenant {
  readonly name: string;
  /** The configured application IDs; a tenant sharing a port must have a non-empty list. */
  readonly applicationIds: readonly string[];
  readonly applicationIdInUrl: boolean;
  /** True when `id` is one of this tenant's application IDs (compared in constant time). */
  claims(id: string): boolean;
  /**
   * Identifies the TLS settings (the fingerprint of the loaded TLS material, `''` for plain HTTP); a tenant joins
   * a port only when its key equals the port's current key.
   */
  readonly tlsKey: string;
  handleRequest(req: OriginRequest, res: OriginResponse): void;
  /**
   * The tenant's metrics, health and readiness paths, answered before any routing by application ID (decision
   * 0080); absent when it has none. Tenants share a port only when their paths are equal.
   */
  readonly operational?: OperationalProbe;
  /**
   * True when `req` is a CORS preflight this tenant allows (decision 0115): a preflight carries no application ID,
   * so on a shared port it goes to the first tenant whose CORS rules allow its origin. Absent: CORS is off.
   */
  takesPreflight?(req: OriginRequest): boolean;
  /** Answers a request that no tenant of a shared port claims. */
  refuseUnrouted(req: OriginRequest, res: OriginResponse, error: OriginError): void;
  /**
   * The answer to a connection beyond `maxConnections`, written before any request is read: status, headers
   * (`Retry-After` included) and body, in the tenant's response format. Also counts the refusal.
   */
  connectionRefusal(error: OriginError): {
    status: number;
    headers: Record<string, string | number>;
    body: string | Uint8Array;
  };
}

/** Server settings taken from the first tenant of a port. */
export interface ListenOptions {
  readonly host: string | undefined;
  readonly port: number;
  readonly requestTimeoutMs: number;
  readonly headersTimeoutMs: number;
  readonly keepAliveTimeoutMs: number;
  /** Open connections the port keeps at once; a connection beyond it is refused (decision 0048). */
  readonly maxConnections: number;
  /** Serve HTTPS with these options; absent: plain HTTP. */
  readonly tls?: LoadedTls;
  /** Serve HTTP/2 beside HTTP/1.1 (`http.http2`, docs/http2.md); absent: HTTP/1.1 only. */
  readonly http2?: { readonly maxConcurrentStreams: number };
}

/** A tenant's hold on a listening port. */
export interface PortLease {
  readonly address: AddressInfo;
  /**
   * The tenant is closing (decision 0047): when it is alone on the port, the port stops accepting connections
   * now (a client connecting gets `ECONNREFUSED`, before it sent anything), while open connections, idle
   * keep-alive ones included, stay, so that a request already on its way on one is answered (503 and
   * `Connection: close` from a closing origin) instead of meeting a reset. HTTP/2 sessions get GOAWAY: their
   * client opens no new stream there, and the streams it opened are answered. Does nothing on a shared port.
   */
  stopAccepting(): void;
  /**
   * Leaves the port; the server closes when its last tenant leaves. `force` cuts open connections at once.
   * Without `force` the last tenant closes gently: the port stops accepting, open connections get up to
   * {@link CLOSE_LINGER_MAX_MS} (at most the keep-alive timeout) to end, still the tenant's to answer, and the
   * idle ones left after that are closed.
   */
  release(force: boolean): Promise<void>;
  /**
   * Swaps the TLS material of an HTTPS port: connections made from now on get it, open ones keep theirs, the port
   * stays bound. On a shared port it applies to every tenant (their TLS settings are identical by rule).
   */
  reloadTls(tls: LoadedTls): void;
}

interface Listener {
  readonly server: PortServer;
  readonly tenants: PortTenant[];
  ready: Promise<AddressInfo>;
  /** The TLS fingerprint in force (`''` for plain HTTP); changes with reloadTls. */
  tlsKey: string;
  /** The protocols the port speaks: `''` for HTTP/1.1 alone, else the HTTP/2 settings; sharers must match it. */
  readonly protocolKey: string;
  /** How long a gentle release waits for open connections to end: min(CLOSE_LINGER_MAX_MS, keep-alive timeout). */
  readonly lingerMs: number;
  /** Settles when the server has stopped accepting and its last connection has ended ('close'). */
  readonly closed: Promise<void>;
}

/** The longest a gentle release keeps open connections after the port stopped accepting new ones. */
export const CLOSE_LINGER_MAX_MS = 1000;

/**
 * Which origins of this process listen on which port. A port is shared by several origins when each has a
 * non-empty application ID list, the lists are disjoint, and the TLS settings are identical; requests are then
 * routed by application ID. Ephemeral ports (0) are never shared.
 */
const listeners = new Map<number, Listener>();

/** Starts listening for `tenant`, alone on its port or beside compatible tenants. */
export async function leasePort(tenant: PortTenant, options: ListenOptions): Promise<PortLease> {
  const existing = options.port === 0 ? undefined : listeners.get(options.port);
  if (existing) {
    checkCompatible(tenant, existing, options);
    existing.tenants.push(tenant);
    try {
      return leaseOf(existing, tenant, await existing.ready);
    } catch (error) {
      removeTenant(existing, tenant);
      throw error;
    }
  }
  const listener = createListener(tenant, options);
  if (options.port !== 0) listeners.set(options.port, listener);
  try {
    return leaseOf(listener, tenant, await listener.ready);
  } catch (error) {
    if (listeners.get(options.port) === listener) listeners.delete(options.port);
    throw error;
  }
}

function createListener(first: PortTenant, options: ListenOptions): Listener {
  const tenants: PortTenant[] = [first];
  const server = createPortServer((req, res) => {
    // A refused connection's request is read (so that nothing unread resets the connection) and not answered.
    if (refusedSockets.has(req.socket)) return req.resume();
    const operational = operationalKindOf(tenants[0]?.operational, req);
    if (operational === undefined) route(tenants, req, res);
    else serveOperational(operational, probesOf(tenants), req, res);
  }, options);
  const { acceptor } = server;
  capConnections(acceptor, tenants, options);
  const ready = new Promise<AddressInfo>((resolve, reject) => {
    acceptor.once('error', (error: NodeJS.ErrnoException) => reject(listenError(error, options)));
    acceptor.listen(options.port, options.host, () => resolve(acceptor.address() as AddressInfo));
  });
  const lingerMs = Math.max(0, Math.min(CLOSE_LINGER_MAX_MS, options.keepAliveTimeoutMs));
  const closed = new Promise<void>((resolve) => acceptor.once('close', () => resolve()));
  return {
    server,
    tenants,
    ready,
    tlsKey: first.tlsKey,
    protocolKey: protocolKeyOf(options),
    lingerMs,
    closed,
  };
}

function protocolKeyOf(options: ListenOptions): string {
  return options.http2 === undefined ? '' : `h2 maxConcurrentStreams=${options.http2.maxConcurrentStreams}`;
}

/** Connections beyond `maxConnections`, answered 503 on arrival and closing. */
const refusedSockets = new WeakSet<object>();
/** How long a refused connection may stay half-closed, for the client to read its answer and close. */
const REFUSED_CONNECTION_LINGER_MS = 1000;

/**
 * Keeps at most `maxConnections` connections open (decision 0048). A connection beyond the cap is answered at
 * once, before any request is read, with the first tenant's 503 `ORIGIN_HTTP_TOO_MANY_CONNECTIONS` (Retry-After,
 * `Connection: close`), then half-closed: what the client still sends is read and dropped, so that it meets no
 * reset, and the socket is destroyed when the client closes or after {@link REFUSED_CONNECTION_LINGER_MS}. Under
 * TLS the TCP connection is closed at once instead: nothing can be written on it before a handshake.
 */
function capConnections(server: NetServer, tenants: readonly PortTenant[], options: ListenOptions): void {
  let open = 0;
  server.on('connection', (socket: Socket) => {
    open++;
    socket.once('close', () => open--);
    if (open <= options.maxConnections) return;
    const first = tenants[0];
    const error = new OriginError('ORIGIN_HTTP_TOO_MANY_CONNECTIONS', {
      maxConnections: options.maxConnections,
    });
    if (options.tls || !first) {
      if (first) first.connectionRefusal(error);
      socket.destroy();
      return;
    }
    refusedSockets.add(socket);
    const { status, headers, body } = first.connectionRefusal(error);
    const bytes = typeof body === 'string' ? Buffer.from(body) : body;
    let head = `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\n`;
    for (const [name, value] of Object.entries(headers)) head += `${name}: ${value}\r\n`;
    head += `Content-Length: ${bytes.length}\r\nConnection: close\r\n\r\n`;
    socket.write(head);
    socket.end(bytes);
    setTimeout(() => socket.destroy(), REFUSED_CONNECTION_LINGER_MS).unref();
  });
}

/**
 * The server of a port: HTTP/1.1 alone ({@link createRequestServer}), or HTTP/2 beside it when `options.http2`
 * is set (src/origin/http2-port.ts), with the same HTTP/1.1 timeouts and answers either way.
 */
function createPortServer(
  onRequest: (req: OriginRequest, res: OriginResponse) => void,
  options: ListenOptions,
): PortServer {
  if (options.http2 === undefined) return http1Port(createRequestServer(onRequest, options));
  const { tls } = options;
  return createHttp2Port(
    onRequest,
    {
      maxConcurrentStreams: options.http2.maxConcurrentStreams,
      requestTimeoutMs: options.requestTimeoutMs,
      idleTimeoutMs: options.keepAliveTimeoutMs,
      prefaceTimeoutMs: Math.min(options.headersTimeoutMs, options.requestTimeoutMs),
      ...(tls === undefined ? {} : { tls }),
    },
    {
      create: () => createRequestServer(onRequest, { ...options, tls: undefined }),
      configure: (server) => configureHttp1(server, options),
    },
  );
}

/** An HTTP/1.1-only server as a {@link PortServer}. */
function http1Port(server: Server | HttpsServer): PortServer {
  return {
    acceptor: server,
    setSecureContext: (tls) => {
      if ('setSecureContext' in server) server.setSecureContext(tls);
    },
    goAway: () => undefined,
    closeIdle: () => server.closeIdleConnections(),
    closeAll: () => server.closeAllConnections(),
    close: () => server.close(),
  };
}

/**
 * An HTTP (or, with `options.tls`, HTTPS) server as an origin's port has it, not listening yet: its timeouts, the
 * answers to CONNECT and to requests Node's parser refuses, and `onRequest` for every request. The testing entry
 * feeds it in-memory connections (`server.emit('connection', stream)`), so that a test's requests take the same
 * way through Node's HTTP parser as a socket's.
 */
export function createRequestServer(
  onRequest: (req: IncomingMessage, res: ServerResponse) => void,
  options: Pick<ListenOptions, 'requestTimeoutMs' | 'headersTimeoutMs' | 'keepAliveTimeoutMs' | 'tls'>,
): Server | HttpsServer {
  const httpOptions = http1Timeouts(options);
  const server = options.tls
    ? createHttpsServer({ ...options.tls.options, ...httpOptions })
    : createServer(httpOptions);
  server.on('request', onRequest);
  answerHttp1Quirks(server);
  return server;
}

function http1Timeouts(
  options: Pick<ListenOptions, 'requestTimeoutMs' | 'headersTimeoutMs' | 'keepAliveTimeoutMs'>,
): {
  requestTimeout: number;
  headersTimeout: number;
  keepAliveTimeout: number;
  connectionsCheckingInterval: number;
} {
  const headersTimeout = Math.min(options.headersTimeoutMs, options.requestTimeoutMs);
  return {
    requestTimeout: options.requestTimeoutMs,
    headersTimeout,
    keepAliveTimeout: options.keepAliveTimeoutMs,
    // Node checks both timeouts only this often (30 s by default), which would stretch a 20 s headers timeout
    // to 50 s; a quarter of the shorter one keeps the overshoot to a quarter.
    connectionsCheckingInterval: Math.max(50, Math.min(5_000, Math.floor(headersTimeout / 4))),
  };
}

/** The answers to CONNECT and to requests Node's HTTP/1.1 parser refuses. */
function answerHttp1Quirks(server: Server | HttpsServer | Http2SecureServer): void {
  server.on('connect', refuseTunnel);
  server.on('clientError', answerClientError);
}

/**
 * Gives an `allowHTTP1` HTTP/2 server the HTTP/1.1 timeouts and answers of {@link createRequestServer}: Node reads
 * them from the server's properties, which `Http2SecureServer` takes but does not declare.
 */
function configureHttp1(server: Http2SecureServer, options: ListenOptions): void {
  Object.assign(server, http1Timeouts(options));
  answerHttp1Quirks(server);
}

function route(tenants: readonly PortTenant[], req: OriginRequest, res: OriginResponse): void {
  const [only] = tenants;
  if (tenants.length === 1 && only) {
    only.handleRequest(req, res);
    return;
  }
  const id = routingId(tenants, req);
  const owner =
    id === undefined
      ? tenants.find((t) => t.takesPreflight?.(req) === true)
      : tenants.find((t) => t.claims(id));
  if (owner) {
    // The owner checks the ID again in constant time; the lookup here only picks the pipeline.
    owner.handleRequest(req, res);
    return;
  }
  const first = tenants[0];
  if (!first) {
    res.writeHead(503, isHttp2(req) ? {} : { Connection: 'close' }).end();
    return;
  }
  first.refuseUnrouted(
    req,
    res,
    id === undefined
      ? new OriginError('ORIGIN_APP_ID_MISSING', { urlHint: '' })
      : new OriginError('ORIGIN_APP_ID_INVALID'),
  );
}

function probesOf(tenants: readonly PortTenant[]): OperationalProbe[] {
  const probes: OperationalProbe[] = [];
  for (const tenant of tenants) if (tenant.operational) probes.push(tenant.operational);
  return probes;
}

function routingId(tenants: readonly PortTenant[], req: OriginRequest): string | undefined {
  const header = req.headers[APPLICATION_ID_HEADER];
  if (header !== undefined) return Array.isArray(header) ? header[0] : header;
  const query = req.url?.split('?')[1];
  if (query === undefined || !tenants.some((t) => t.applicationIdInUrl)) return undefined;
  const id = new URLSearchParams(query).get(APPLICATION_ID_QUERY_PARAMETER) ?? undefined;
  // An ID in the URL routes only to a tenant that accepts IDs in the URL.
  return id !== undefined && tenants.some((t) => t.applicationIdInUrl && t.claims(id)) ? id : undefined;
}

/**
 * CONNECT never reaches the 'request' event: Node hands it over as a raw socket. The origin is no proxy, so it
 * answers 405 and closes.
 */
function refuseTunnel(_req: IncomingMessage, socket: Duplex): void {
  socket.end(plainAnswer(405, 'Method Not Allowed', `Allow: ${ALLOWED_METHODS}\r\n`));
}

/**
 * Requests Node's parser refuses before the origin sees them. TRACK is not a method Node knows, so it lands
 * here; it gets the same 405 as TRACE. Everything else gets what Node would answer by default.
 */
function answerClientError(error: Error & { code?: string; rawPacket?: Buffer }, socket: Duplex): void {
  if (error.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  const packet = error.rawPacket?.subarray(0, 6).toString('latin1') ?? '';
  if (packet === 'TRACK ')
    socket.end(plainAnswer(405, 'Method Not Allowed', `Allow: ${ALLOWED_METHODS}\r\n`));
  else if (error.code === 'HPE_HEADER_OVERFLOW')
    socket.end(
      isLongRequestLine(error.rawPacket)
        ? plainAnswer(414, 'URI Too Long')
        : plainAnswer(431, 'Request Header Fields Too Large'),
    );
  else if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') socket.end(plainAnswer(408, 'Request Timeout'));
  else socket.end(plainAnswer(400, 'Bad Request'));
}

/**
 * Whether the head that passed Node's 16 KiB limit is a request line still unfinished: the packet the parser failed
 * on starts with a method and holds no line end. A long URL nearly always arrives that way (in one write); a URL
 * split over several packets is told apart from a long header by nothing Node reports, and gets 431.
 */
function isLongRequestLine(packet: Buffer | undefined): boolean {
  if (packet === undefined) return false;
  return /^[A-Z]{3,7} /.test(packet.subarray(0, 8).toString('latin1')) && !packet.includes(0x0a);
}

function plainAnswer(status: number, reason: string, extraHeaders = ''): string {
  return `HTTP/1.1 ${status} ${reason}\r\n${extraHeaders}Content-Length: 0\r\nConnection: close\r\n\r\n`;
}

function checkCompatible(tenant: PortTenant, listener: Listener, options: ListenOptions): void {
  const { port } = options;
  for (const other of listener.tenants) {
    const reason =
      tenant.applicationIds.length === 0 || other.applicationIds.length === 0
        ? 'an origin without application IDs needs the port to itself'
        : tenant.applicationIds.some((id) => other.applicationIds.includes(id))
          ? 'both origins list the same application ID'
          : tenant.tlsKey !== listener.tlsKey
            ? 'the TLS settings differ'
            : (tenant.operational?.routesKey ?? '') !== (other.operational?.routesKey ?? '')
              ? 'the metrics, health and readiness paths differ'
              : protocolKeyOf(options) !== listener.protocolKey
                ? 'the HTTP/2 settings (http.http2, http.http2MaxConcurrentStreams) differ'
                : undefined;
    if (reason) throw new OriginError('ORIGIN_LISTEN_PORT_SHARED', { port, other: other.name, reason });
  }
}

function leaseOf(listener: Listener, tenant: PortTenant, address: AddressInfo): PortLease {
  return {
    address,
    stopAccepting: () => {
      if (listener.tenants.length <= 1) stopAccepting(listener.server);
    },
    release: (force) => releaseTenant(listener, tenant, address.port, force),
    reloadTls: (tls) => {
      if (listener.tlsKey === '') return;
      listener.server.setSecureContext(tls.options);
      listener.tlsKey = tls.fingerprint;
    },
  };
}

function removeTenant(listener: Listener, tenant: PortTenant): void {
  const index = listener.tenants.indexOf(tenant);
  if (index >= 0) listener.tenants.splice(index, 1);
}

async function releaseTenant(
  listener: Listener,
  tenant: PortTenant,
  port: number,
  force: boolean,
): Promise<void> {
  if (listener.tenants.length > 1 || !listener.tenants.includes(tenant)) {
    removeTenant(listener, tenant);
    return;
  }
  if (listeners.get(port) === listener) listeners.delete(port);
  const { server, closed } = listener;
  if (!force) {
    stopAccepting(server);
    // Requests arriving on open connections meanwhile are still the tenant's to answer.
    await Promise.race([closed, delay(listener.lingerMs)]);
  }
  removeTenant(listener, tenant);
  // Also clears http.Server's connection-checking timer, which net.Server's close leaves running.
  server.close();
  server.closeIdle();
  if (force) server.closeAll();
  await closed;
}

/**
 * Stops accepting connections, leaving open ones be: net.Server's own close. http.Server's close would also
 * destroy every connection it sees as idle, and a request already sent on one of them (still in the kernel's
 * buffers) would meet a reset. Idempotent.
 */
function stopAccepting(server: PortServer): void {
  const { acceptor } = server;
  if (acceptor.listening) NetServer.prototype.close.call(acceptor);
  server.goAway();
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

function listenError(error: NodeJS.ErrnoException, options: ListenOptions): OriginError {
  const host = options.host ?? 'all interfaces';
  if (error.code === 'EADDRINUSE') {
    return new OriginError('ORIGIN_LISTEN_PORT_IN_USE', { port: options.port, host }, { cause: error });
  }
  return new OriginError(
    'ORIGIN_LISTEN_FAILED',
    { host, port: options.port, detail: error.message },
    { cause: error },
  );
}

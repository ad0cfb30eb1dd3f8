import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { OriginError } from '../errors/origin-error';
import type { LoadedTls } from '../tls/tls-settings';
import { APPLICATION_ID_HEADER, APPLICATION_ID_QUERY_PARAMETER } from './application-id';
import { ALLOWED_METHODS } from './methods';

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
  handleRequest(req: IncomingMessage, res: ServerResponse): void;
  /** Answers a request that no tenant of a shared port claims. */
  refuseUnrouted(req: IncomingMessage, res: ServerResponse, error: OriginError): void;
}

/** Server settings taken from the first tenant of a port. */
export interface ListenOptions {
  readonly host: string | undefined;
  readonly port: number;
  readonly requestTimeoutMs: number;
  readonly headersTimeoutMs: number;
  readonly keepAliveTimeoutMs: number;
  /** Serve HTTPS with these options; absent: plain HTTP. */
  readonly tls?: LoadedTls;
}

/** A tenant's hold on a listening port. */
export interface PortLease {
  readonly address: AddressInfo;
  /** Closes idle keep-alive connections of this tenant's port (all of them when the tenant is alone on it). */
  closeIdleConnections(): void;
  /** Leaves the port; the server closes when its last tenant leaves. `force` also cuts open connections. */
  release(force: boolean): Promise<void>;
  /**
   * Swaps the TLS material of an HTTPS port: connections made from now on get it, open ones keep theirs, the port
   * stays bound. On a shared port it applies to every tenant (their TLS settings are identical by rule).
   */
  reloadTls(tls: LoadedTls): void;
}

interface Listener {
  readonly server: Server | HttpsServer;
  readonly tenants: PortTenant[];
  ready: Promise<AddressInfo>;
  /** The TLS fingerprint in force (`''` for plain HTTP); changes with reloadTls. */
  tlsKey: string;
}

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
    checkCompatible(tenant, existing, options.port);
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
  const server = createRequestServer((req, res) => route(tenants, req, res), options);
  const ready = new Promise<AddressInfo>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => reject(listenError(error, options)));
    server.listen(options.port, options.host, () => resolve(server.address() as AddressInfo));
  });
  return { server, tenants, ready, tlsKey: first.tlsKey };
}

/**
 * An HTTP (or, with `options.tls`, HTTPS) server as an origin's port has it, not listening yet: its timeouts, the
 * answers to CONNECT and to requests Node's parser refuses, and `onRequest` for every request. The testing entry
 * feeds it in-memory connections (`server.emit('connection', stream)`), so that a test's requests take the same
 * way through Node's HTTP parser as a socket's.
 */
export function createRequestServer(
  onRequest: (req: IncomingMessage, res: ServerResponse) => void,
  options: Omit<ListenOptions, 'host' | 'port'>,
): Server | HttpsServer {
  const headersTimeout = Math.min(options.headersTimeoutMs, options.requestTimeoutMs);
  const httpOptions = {
    requestTimeout: options.requestTimeoutMs,
    headersTimeout,
    keepAliveTimeout: options.keepAliveTimeoutMs,
    // Node checks both timeouts only this often (30 s by default), which would stretch a 20 s headers timeout
    // to 50 s; a quarter of the shorter one keeps the overshoot to a quarter.
    connectionsCheckingInterval: Math.max(50, Math.min(5_000, Math.floor(headersTimeout / 4))),
  };
  const server = options.tls
    ? createHttpsServer({ ...options.tls.options, ...httpOptions })
    : createServer(httpOptions);
  server.on('request', onRequest);
  server.on('connect', refuseTunnel);
  server.on('clientError', answerClientError);
  return server;
}

function route(tenants: readonly PortTenant[], req: IncomingMessage, res: ServerResponse): void {
  const [only] = tenants;
  if (tenants.length === 1 && only) {
    only.handleRequest(req, res);
    return;
  }
  const id = routingId(tenants, req);
  const owner = id === undefined ? undefined : tenants.find((t) => t.claims(id));
  if (owner) {
    // The owner checks the ID again in constant time; the lookup here only picks the pipeline.
    owner.handleRequest(req, res);
    return;
  }
  const first = tenants[0];
  if (!first) {
    res.writeHead(503, { Connection: 'close' }).end();
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

function routingId(tenants: readonly PortTenant[], req: IncomingMessage): string | undefined {
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
    socket.end(plainAnswer(431, 'Request Header Fields Too Large'));
  else if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') socket.end(plainAnswer(408, 'Request Timeout'));
  else socket.end(plainAnswer(400, 'Bad Request'));
}

function plainAnswer(status: number, reason: string, extraHeaders = ''): string {
  return `HTTP/1.1 ${status} ${reason}\r\n${extraHeaders}Content-Length: 0\r\nConnection: close\r\n\r\n`;
}

function checkCompatible(tenant: PortTenant, listener: Listener, port: number): void {
  for (const other of listener.tenants) {
    const reason =
      tenant.applicationIds.length === 0 || other.applicationIds.length === 0
        ? 'an origin without application IDs needs the port to itself'
        : tenant.applicationIds.some((id) => other.applicationIds.includes(id))
          ? 'both origins list the same application ID'
          : tenant.tlsKey !== listener.tlsKey
            ? 'the TLS settings differ'
            : undefined;
    if (reason) throw new OriginError('ORIGIN_LISTEN_PORT_SHARED', { port, other: other.name, reason });
  }
}

function leaseOf(listener: Listener, tenant: PortTenant, address: AddressInfo): PortLease {
  return {
    address,
    closeIdleConnections: () => {
      if (listener.tenants.length <= 1) listener.server.closeIdleConnections();
    },
    release: (force) => releaseTenant(listener, tenant, address.port, force),
    reloadTls: (tls) => {
      if (!('setSecureContext' in listener.server)) return;
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
  removeTenant(listener, tenant);
  if (listener.tenants.length > 0) return;
  if (listeners.get(port) === listener) listeners.delete(port);
  await new Promise<void>((resolve) => {
    listener.server.close(() => resolve());
    listener.server.closeIdleConnections();
    if (force) listener.server.closeAllConnections();
  });
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

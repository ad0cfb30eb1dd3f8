import type { Socket } from 'node:net';
import { clientAddressOf, TrustedProxies, type ClientAddressOptions } from '../http/client-address';
import type { HttpConfig } from './config';
import { remoteHostOf, requestAttributes, splitTarget } from '../http/request-attributes';
import type { RequestInfo, TraceContext } from '../pipeline/batch';
import type { HeaderAttributes } from '../record/record-header';
import type { RequestRecordSource } from '../record/data-record';
import { traceContextOf, type TraceContextMode } from './trace-context';
import type { OriginRequest } from '../http/origin-exchange';

/** What a request's header attributes are made of besides its headers; one object per origin. */
export interface RequestAttributeSources {
  /** Copy `Authorization` and `Proxy-Authorization` into the attributes. */
  readonly copyAuthorizationHeaders: boolean;
  /** Copy the application ID header into the attributes. */
  readonly copyApplicationId: boolean;
  /** Copy `Cookie` into the attributes. */
  readonly copyCookieHeaders: boolean;
  /** Attribute names no request header may take (decision 0046); see `reservedAttributeNames`. */
  readonly reservedAttributes?: { has(lowerCaseName: string): boolean };
  /** Under mutual TLS: the verified client certificate's record header attributes (src/tls). */
  readonly clientCertificateAttributes?: (socket: Socket) => Readonly<Record<string, string>> | undefined;
  /** Who may say who the client is (`http.trustedProxies`); absent: the socket's peer is the client. */
  readonly clientAddress?: ClientAddressOptions;
  /** `http.traceContext`; absent: `off`. */
  readonly traceContext?: TraceContextMode;
}

/**
 * What the origin knows about one request, read from its request (an `OriginRequest`) when first asked: the batch's
 * {@link RequestInfo} and the source its records' headers are built from, in one object.
 *
 * Most pipelines never read a record header or the request's headers (the echo microservice does not), and
 * copying the headers into attributes was one of the larger costs of a small request; so the header attributes
 * are built on first read, from the message's `rawHeaders`, and are the same object from then on. The request
 * line's parts are cheap and read at once.
 */
export class IncomingRequestInfo implements RequestInfo, RequestRecordSource {
  readonly requestId: string;
  readonly method: string;
  readonly path: string;
  readonly queryString: string;
  readonly receivedAt: number;
  /** Set by the request path once the application ID check admitted the request. */
  applicationId: string | undefined;
  /**
   * Set by the request path once the authenticator let the request through: the caller's identity attributes
   * (`authenticationMethod`, `authenticatedUser`); `undefined` when the origin authenticates no one.
   */
  identity: Readonly<Record<string, string>> | undefined;
  readonly traceContext: TraceContext | undefined;
  readonly #message: Pick<OriginRequest, 'method' | 'url' | 'rawHeaders' | 'socket'>;
  readonly #sources: RequestAttributeSources;
  /**
   * The client's address (behind a trusted proxy, the one its forwarding header names), decided at once: a
   * destroyed socket no longer knows its peer, and a pipeline may read the attributes after the client has gone.
   * Formats that keep state per client key it by this address.
   */
  readonly clientAddress: string | undefined;
  readonly #verified: Readonly<Record<string, string>> | undefined;
  #attributes: HeaderAttributes | undefined;

  constructor(
    requestId: string,
    message: Pick<OriginRequest, 'method' | 'url' | 'rawHeaders' | 'socket' | 'headers'>,
    sources: RequestAttributeSources,
  ) {
    this.requestId = requestId;
    this.method = message.method ?? '';
    const { path, queryString } = splitTarget(message.url ?? '/');
    this.path = path;
    this.queryString = queryString;
    this.receivedAt = Date.now();
    this.applicationId = undefined;
    this.identity = undefined;
    this.traceContext =
      sources.traceContext === undefined ? undefined : traceContextOf(message.headers, sources.traceContext);
    this.#message = message;
    this.#sources = sources;
    this.clientAddress =
      sources.clientAddress === undefined
        ? message.socket?.remoteAddress
        : clientAddressOf(message, sources.clientAddress);
    this.#verified = sources.clientCertificateAttributes?.(message.socket as Socket);
  }

  /** The client's address as the `remoteHost` attribute shows it (an IPv4-mapped IPv6 address as IPv4). */
  get remoteHost(): string {
    return remoteHostOf(this.clientAddress);
  }

  /** The request's header attributes (frozen, built once): the records' base attributes. */
  get headers(): HeaderAttributes {
    return (this.#attributes ??= requestAttributes(this.#message, {
      copyAuthorizationHeaders: this.#sources.copyAuthorizationHeaders,
      copyApplicationId: this.#sources.copyApplicationId,
      copyCookieHeaders: this.#sources.copyCookieHeaders,
      verified: this.#verified,
      identity: this.identity,
      trace: traceAttributes(this.traceContext, this.#sources.traceContext),
      remoteAddress: this.clientAddress,
      reserved: this.#sources.reservedAttributes,
    }));
  }

  /** The same attributes under the name a record source gives them. */
  get baseAttributes(): HeaderAttributes {
    return this.headers;
  }
}

/**
 * The `clientAddress` part of {@link RequestAttributeSources} for an origin's HTTP config: absent without
 * `http.trustedProxies`, so that the common origin reads only the socket.
 */
export function clientAddressSources(http: Pick<HttpConfig, 'trustedProxies' | 'trustedProxyHeader'>): {
  clientAddress?: ClientAddressOptions;
} {
  const trustedProxies = TrustedProxies.of(http.trustedProxies);
  return trustedProxies === undefined
    ? {}
    : { clientAddress: { trustedProxies, header: http.trustedProxyHeader } };
}

const NO_TRACE_ATTRIBUTES: Readonly<Record<string, string>> = Object.freeze({});

/**
 * The trace attributes the origin writes in place of the request's `traceparent` and `tracestate` headers (decision
 * 0116): the origin span's `traceparent` (what a later stage propagates, so that its calls are children of the
 * origin's span) and the incoming `tracestate` when valid. Invalid trace headers leave no attribute. With
 * `http.traceContext` off (`mode` absent) the headers are ordinary attributes: `undefined`.
 */
function traceAttributes(
  trace: TraceContext | undefined,
  mode: TraceContextMode | undefined,
): Readonly<Record<string, string>> | undefined {
  if (mode === undefined || mode === 'off') return undefined;
  if (trace === undefined) return NO_TRACE_ATTRIBUTES;
  return trace.traceState === undefined
    ? { traceparent: trace.traceparent }
    : { traceparent: trace.traceparent, tracestate: trace.traceState };
}

import { IDENTITY_ATTRIBUTES } from '../auth/identity-attributes';
import { CLIENT_CERTIFICATE_ATTRIBUTES } from '../tls/client-certificate';
import type { OriginRequest } from './origin-exchange';

/** Options of {@link requestAttributes}. */
export interface RequestAttributeOptions {
  /** Copy `Authorization` and `Proxy-Authorization` into the attributes; off by default in the config. */
  readonly copyAuthorizationHeaders: boolean;
  /**
   * Copy the application ID: the `X-ENGINE-APPLICATION-ID` header, and the `engineApplicationId` parameter in
   * `queryString`. Off when absent (and by default in the config).
   */
  readonly copyApplicationId?: boolean;
  /** Copy `Cookie`; off when absent (and by default in the config). */
  readonly copyCookieHeaders?: boolean;
  /**
   * Attributes the origin vouches for (the verified client certificate under mutual TLS), added after the four
   * fixed ones. Their names are reserved like those four.
   */
  readonly verified?: Readonly<Record<string, string>> | undefined;
  /**
   * The authenticated caller (`authenticationMethod`, `authenticatedUser`), added after `verified`. Their names
   * are reserved like the fixed ones.
   */
  readonly identity?: Readonly<Record<string, string>> | undefined;
  /**
   * The trace context attributes the origin writes (`traceparent`, `tracestate`), added last. When given (even
   * empty), the request's own `traceparent` and `tracestate` headers never become attributes.
   */
  readonly trace?: Readonly<Record<string, string>> | undefined;
  /**
   * Further names a header may not take (attributes the origin or a format writes, decision 0046): such a
   * header is left out like one named `method`. Asked with the lower-cased header name.
   */
  readonly reserved?: { has(lowerCaseName: string): boolean } | undefined;
  /**
   * The client's address as read when the request arrived, when the caller read it then (a socket that has
   * closed since no longer knows it); else it is read from `req.socket` now.
   */
  readonly remoteAddress?: string | undefined;
}

// Lower-cased, so that a header of that name in any case is recognised. The client certificate's and the
// authenticated caller's names are reserved whether or not mutual TLS or authentication is on, so a pipeline can
// trust them wherever they appear.
const FIXED_ATTRIBUTES: ReadonlySet<string> = new Set([
  'method',
  'path',
  'querystring',
  'remotehost',
  ...Object.values(CLIENT_CERTIFICATE_ATTRIBUTES).map((name) => name.toLowerCase()),
  ...Object.values(IDENTITY_ATTRIBUTES).map((name) => name.toLowerCase()),
]);
const AUTHORIZATION_HEADERS = ['authorization', 'proxy-authorization'];
const APPLICATION_ID_HEADER = 'x-engine-application-id';
const APPLICATION_ID_PARAMETER = 'engineApplicationId';
const COOKIE_HEADER = 'cookie';
/** The names a request header is dropped under, by which credential headers are copied (8 sets, made once). */
const DROPPED_BY_OPTIONS = new Map<number, ReadonlySet<string>>();

/**
 * The lower-cased header names that never become attributes under `options`: the fixed and reserved names, and
 * the credential headers that are not copied.
 */
function droppedHeaders(options: RequestAttributeOptions): ReadonlySet<string> {
  const key =
    (options.copyAuthorizationHeaders ? 1 : 0) |
    (options.copyApplicationId === true ? 2 : 0) |
    (options.copyCookieHeaders === true ? 4 : 0);
  let dropped = DROPPED_BY_OPTIONS.get(key);
  if (dropped === undefined) {
    dropped = new Set([
      ...FIXED_ATTRIBUTES,
      ...(key & 1 ? [] : AUTHORIZATION_HEADERS),
      ...(key & 2 ? [] : [APPLICATION_ID_HEADER]),
      ...(key & 4 ? [] : [COOKIE_HEADER]),
    ]);
    DROPPED_BY_OPTIONS.set(key, dropped);
  }
  return dropped;
}
const COLON = 0x3a;
const IPV4_MAPPED = /^::ffff:(\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3})$/i;
/** Above this many distinct headers, names are looked up in a Map instead of by linear search. */
const LINEAR_SEARCH_MAX = 16;

/**
 * The record header attributes of a request (spec §2.7), the shared base of every record made from it:
 *
 * - `method`: the request method as sent;
 * - `path`: the URL path as sent (not percent-decoded), `/` for the root; for an absolute-form target
 *   (`http://host/a`, as sent to proxies) the part after the authority;
 * - `queryString`: the raw query after the first `?`, without the `?`, `''` when there is none; without its
 *   `engineApplicationId` parameters unless `options.copyApplicationId`;
 * - `remoteHost`: `options.remoteAddress` (the origin passes the address `clientAddressOf` decided, which
 *   reads `X-Forwarded-For` or `Forwarded` only from a trusted proxy), else the client IP address of the socket;
 *   an IPv4-mapped IPv6 address is given as plain IPv4, `''` when the socket is gone;
 * - then one attribute per request header, named exactly as the client spelled it (the first spelling wins when
 *   a header is repeated in different cases), in the order the headers first appear. Repeated headers are joined
 *   with `, ` in order (`Cookie` with `; `, as RFC 6265 joins cookies). An HTTP/2 request's pseudo-headers are
 *   not copied, except `:authority`, which becomes `Host` where it stands (HTTP/2 clients send no `Host`).
 *
 * - then `options.verified` (the verified client certificate's `tlsClientSubject` and `tlsClientIssuer`);
 * - then `options.identity` (the authenticated caller's `authenticationMethod` and `authenticatedUser`);
 * - last, `options.trace` (the origin's `traceparent` and `tracestate`), which replaces those request headers.
 *
 * A header named `method`, `path`, `queryString`, `remoteHost`, `tlsClientSubject`, `tlsClientIssuer`,
 * `authenticationMethod` or `authenticatedUser` (in any case) is dropped: it cannot overwrite or forge those.
 * The credential headers are dropped unless their option copies them, so that credentials do not travel with
 * records: `Authorization` and `Proxy-Authorization` (`copyAuthorizationHeaders`), `X-ENGINE-APPLICATION-ID`
 * (`copyApplicationId`) and `Cookie` (`copyCookieHeaders`), in any case.
 *
 * Runs once per request in time linear in the header count. The result is a new frozen object.
 */
export function requestAttributes(
  req: Pick<OriginRequest, 'method' | 'url' | 'rawHeaders' | 'socket'>,
  options: RequestAttributeOptions,
): Readonly<Record<string, string>> {
  const target = splitTarget(req.url ?? '/');
  const { path } = target;
  const queryString =
    options.copyApplicationId === true ? target.queryString : withoutApplicationId(target.queryString);
  const remoteAddress = 'remoteAddress' in options ? options.remoteAddress : req.socket?.remoteAddress;
  const attributes: Record<string, string> = {
    method: req.method ?? '',
    path,
    queryString,
    remoteHost: remoteHostOf(remoteAddress),
  };
  if (options.verified !== undefined) Object.assign(attributes, options.verified);
  if (options.identity !== undefined) Object.assign(attributes, options.identity);
  const dropped = droppedHeaders(options);
  const trace = options.trace;

  // The headers' lower-cased names in order of first appearance, beside the first spelling of each: `X-A` and
  // `x-a` are one header, written under the first spelling. Requests carry a handful of headers, where a linear
  // search of an array is cheaper than a Map per request; a request with many switches to a Map, so that the
  // time stays linear in the header count.
  const keys: string[] = [];
  const names: string[] = [];
  let index: Map<string, number> | undefined;
  const raw = req.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    let name = raw[i]!;
    const value = raw[i + 1]!;
    // HTTP/2 pseudo-headers (`:method`, `:path`, `:scheme`) say what the fixed attributes say already; `:authority`
    // is HTTP/2's Host and becomes the `Host` attribute, so that a pipeline sees the same on both protocols.
    if (name.charCodeAt(0) === COLON) {
      if (name !== ':authority') continue;
      name = 'Host';
    }
    const key = name.toLowerCase();
    if (dropped.has(key)) continue;
    if (trace !== undefined && (key === 'traceparent' || key === 'tracestate')) continue;
    const at = index === undefined ? keys.indexOf(key) : (index.get(key) ?? -1);
    if (at >= 0) {
      const first = names[at]!;
      attributes[first] += (key === 'cookie' ? '; ' : ', ') + value;
      continue;
    }
    // Only a header's first occurrence gets here, so a reserved one costs one look-up however often it repeats.
    if (options.reserved?.has(key) === true) continue;
    keys.push(key);
    names.push(name);
    if (index !== undefined) index.set(key, keys.length - 1);
    else if (keys.length > LINEAR_SEARCH_MAX) index = new Map(keys.map((k, position) => [k, position]));
    // A header may be called `__proto__`; plain assignment would set the prototype instead of a property.
    if (name === '__proto__') {
      Object.defineProperty(attributes, name, {
        value,
        enumerable: true,
        writable: true,
        configurable: true,
      });
    } else {
      attributes[name] = value;
    }
  }
  if (trace !== undefined) Object.assign(attributes, trace);
  return Object.freeze(attributes);
}

/**
 * `queryString` without its `engineApplicationId` parameters (the name compared after percent-decoding, as the
 * application ID check reads it); the other parameters keep their raw form and order.
 */
function withoutApplicationId(queryString: string): string {
  if (queryString === '' || (!queryString.includes('pplication') && !queryString.includes('%'))) {
    return queryString;
  }
  const kept = queryString.split('&').filter((parameter) => {
    const name = parameter.split('=', 1)[0]!;
    return new URLSearchParams(`${name}=`).keys().next().value !== APPLICATION_ID_PARAMETER;
  });
  return kept.join('&');
}

/** The `remoteHost` attribute of a client address: an IPv4-mapped IPv6 address (`::ffff:a.b.c.d`) as IPv4. */
export function remoteHostOf(remoteAddress: string | undefined): string {
  if (remoteAddress === undefined) return '';
  return IPV4_MAPPED.exec(remoteAddress)?.[1] ?? remoteAddress;
}

/**
 * The path and query string of a request target. An absolute-form target (`http://host/p?q`, sent to proxies)
 * gives the path after its authority; an empty path is `/`; the query string has no leading `?`.
 */
export function splitTarget(target: string): { path: string; queryString: string } {
  let start = 0;
  if (!target.startsWith('/')) {
    const scheme = target.indexOf('://');
    if (scheme > 0) {
      start = scheme + 3;
      while (start < target.length && target[start] !== '/' && target[start] !== '?') start++;
    }
  }
  const query = target.indexOf('?', start);
  const path = query === -1 ? target.slice(start) : target.slice(start, query);
  return { path: path === '' ? '/' : path, queryString: query === -1 ? '' : target.slice(query + 1) };
}

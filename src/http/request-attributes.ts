import type { IncomingMessage } from 'node:http';
import { CLIENT_CERTIFICATE_ATTRIBUTES } from '../tls/client-certificate';

/** Options of {@link requestAttributes}. */
export interface RequestAttributeOptions {
  /** Copy `Authorization` and `Proxy-Authorization` into the attributes; off by default in the config. */
  readonly copyAuthorizationHeaders: boolean;
  /**
   * Attributes the origin vouches for (the verified client certificate under mutual TLS), added after the four
   * fixed ones. Their names are reserved like those four.
   */
  readonly verified?: Readonly<Record<string, string>> | undefined;
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

// Lower-cased, so that a header of that name in any case is recognised. The client certificate's names are
// reserved whether or not mutual TLS is on, so a pipeline can trust them wherever they appear.
const FIXED_ATTRIBUTES = new Set([
  'method',
  'path',
  'querystring',
  'remotehost',
  ...Object.values(CLIENT_CERTIFICATE_ATTRIBUTES).map((name) => name.toLowerCase()),
]);
const AUTHORIZATION_HEADERS = new Set(['authorization', 'proxy-authorization']);
const IPV4_MAPPED = /^::ffff:(\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3})$/i;
/** Above this many distinct headers, names are looked up in a Map instead of by linear search. */
const LINEAR_SEARCH_MAX = 16;

/**
 * The record header attributes of a request (spec §2.7), the shared base of every record made from it:
 *
 * - `method`: the request method as sent;
 * - `path`: the URL path as sent (not percent-decoded), `/` for the root; for an absolute-form target
 *   (`http://host/a`, as sent to proxies) the part after the authority;
 * - `queryString`: the raw query after the first `?`, without the `?`, `''` when there is none;
 * - `remoteHost`: the client IP address of the socket (an IPv4-mapped IPv6 address is given as plain IPv4;
 *   `X-Forwarded-For` is not consulted), `''` when the socket is gone;
 * - then one attribute per request header, named exactly as the client spelled it (the first spelling wins when
 *   a header is repeated in different cases), in the order the headers first appear. Repeated headers are joined
 *   with `, ` in order (`Cookie` with `; `, as RFC 6265 joins cookies).
 *
 * - then `options.verified` (the verified client certificate's `tlsClientSubject` and `tlsClientIssuer`).
 *
 * A header named `method`, `path`, `queryString`, `remoteHost`, `tlsClientSubject` or `tlsClientIssuer` (in any
 * case) is dropped: it cannot overwrite or forge those. `Authorization` and `Proxy-Authorization` (in any case) are dropped unless
 * `options.copyAuthorizationHeaders`, so that credentials do not travel with records.
 *
 * Runs once per request in time linear in the header count. The result is a new frozen object.
 */
export function requestAttributes(
  req: Pick<IncomingMessage, 'method' | 'url' | 'rawHeaders' | 'socket'>,
  options: RequestAttributeOptions,
): Readonly<Record<string, string>> {
  const { path, queryString } = splitTarget(req.url ?? '/');
  const remoteAddress = 'remoteAddress' in options ? options.remoteAddress : req.socket?.remoteAddress;
  const attributes: Record<string, string> = {
    method: req.method ?? '',
    path,
    queryString,
    remoteHost: remoteHostOf(remoteAddress),
  };
  if (options.verified !== undefined) Object.assign(attributes, options.verified);

  // The headers' lower-cased names in order of first appearance, beside the first spelling of each: `X-A` and
  // `x-a` are one header, written under the first spelling. Requests carry a handful of headers, where a linear
  // search of an array is cheaper than a Map per request; a request with many switches to a Map, so that the
  // time stays linear in the header count.
  const keys: string[] = [];
  const names: string[] = [];
  let index: Map<string, number> | undefined;
  const raw = req.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i]!;
    const value = raw[i + 1]!;
    const key = name.toLowerCase();
    if (FIXED_ATTRIBUTES.has(key)) continue;
    if (!options.copyAuthorizationHeaders && AUTHORIZATION_HEADERS.has(key)) continue;
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
  return Object.freeze(attributes);
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

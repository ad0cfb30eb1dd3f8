import { BlockList, isIP } from 'node:net';
import type { OriginRequest } from './origin-exchange';

/** Which header a trusted proxy keeps: `X-Forwarded-For`, or `Forwarded` (RFC 7239). */
export type ForwardedHeaderName = 'xForwardedFor' | 'forwarded';

/** The values of `http.trustedProxyHeader`. */
export const FORWARDED_HEADER_NAMES: readonly ForwardedHeaderName[] = ['xForwardedFor', 'forwarded'];

const IPV4_MAPPED = /^::ffff:(\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3})$/i;
/** An IPv4 address with a port, as some proxies write X-Forwarded-For entries (`203.0.113.7:5060`). */
const IPV4_WITH_PORT = /^(\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}):\d{1,5}$/;
/** A bracketed IPv6 address with or without a port (`[2001:db8::1]`, `[2001:db8::1]:4711`). */
const BRACKETED_IPV6 = /^\[([0-9a-fA-F:.]+)\](?::\d{1,5})?$/;
/** Entries walked at most; a header of more hops than this is answered by the last one walked. */
const MAX_HOPS = 64;

/**
 * The proxies whose forwarding headers the origin believes (`http.trustedProxies`): addresses and CIDR ranges,
 * IPv4 and IPv6, held in a `node:net` `BlockList`. An IPv4-mapped IPv6 address (`::ffff:10.0.0.1`, what a
 * socket on `::` reports for an IPv4 peer) is checked as the IPv4 address it maps.
 */
export class TrustedProxies {
  readonly #list: BlockList;

  private constructor(list: BlockList) {
    this.#list = list;
  }

  /**
   * The set of `entries`, each an address (`10.0.0.1`, `::1`) or a CIDR range (`10.0.0.0/8`, `fd00::/8`); an
   * empty list gives `undefined` (no proxy is trusted).
   *
   * @throws Error naming the first entry that is neither (use {@link trustedProxyProblem} to check beforehand).
   */
  static of(entries: readonly string[]): TrustedProxies | undefined {
    if (entries.length === 0) return undefined;
    const list = new BlockList();
    for (const entry of entries) {
      const parsed = parseEntry(entry);
      if (parsed === undefined) throw new Error(`'${entry}' is not an IP address or CIDR range`);
      if (parsed.prefix === undefined) list.addAddress(parsed.address, parsed.family);
      else list.addSubnet(parsed.address, parsed.prefix, parsed.family);
    }
    return new TrustedProxies(list);
  }

  /** Whether `address` (as a socket or a header gives it) is a trusted proxy. */
  trusts(address: string): boolean {
    const plain = unmapped(address);
    const family = isIP(plain);
    return family !== 0 && this.#list.check(plain, family === 4 ? 'ipv4' : 'ipv6');
  }
}

/** Why `entry` cannot be a `http.trustedProxies` entry, or `undefined` when it can. */
export function trustedProxyProblem(entry: string): string | undefined {
  return parseEntry(entry) === undefined
    ? 'must be an IPv4 or IPv6 address, or a CIDR range of one (e.g. 10.0.0.0/8, fd00::/8)'
    : undefined;
}

interface ParsedEntry {
  readonly address: string;
  readonly family: 'ipv4' | 'ipv6';
  readonly prefix: number | undefined;
}

function parseEntry(entry: string): ParsedEntry | undefined {
  const slash = entry.indexOf('/');
  const address = unmapped(slash === -1 ? entry : entry.slice(0, slash));
  const version = isIP(address);
  if (version === 0) return undefined;
  const family = version === 4 ? 'ipv4' : 'ipv6';
  if (slash === -1) return { address, family, prefix: undefined };
  const digits = entry.slice(slash + 1);
  const prefix = Number(digits);
  if (!/^\d{1,3}$/.test(digits) || prefix > (version === 4 ? 32 : 128)) return undefined;
  return { address, family, prefix };
}

function unmapped(address: string): string {
  return IPV4_MAPPED.exec(address)?.[1] ?? address;
}

/** What {@link clientAddressOf} needs of the origin's config; one object per origin. */
export interface ClientAddressOptions {
  /** `undefined`: no proxy is trusted, and the socket's peer is the client. */
  readonly trustedProxies: TrustedProxies | undefined;
  readonly header: ForwardedHeaderName;
}

/**
 * The client's address of a request: the one place the origin decides it, for the `remoteHost` attribute, the
 * `request` event and the formats that keep state per client (NetFlow v9 templates).
 *
 * It is the socket's peer, unless that peer is a trusted proxy: then the configured forwarding header (only
 * that one; the other is ignored, since a trusted proxy that does not maintain it passes a client's forgery
 * through) is walked from the right, skipping trusted hops, and the first untrusted address is the client. When
 * every hop is trusted the leftmost is the client. An entry that is no IP address (`unknown`, an obfuscated
 * RFC 7239 identifier, garbage) ends the walk at the trusted hop that wrote it, so a malformed header never
 * makes up an address. Without the header the trusted peer itself is the client.
 *
 * Runs once per request; without trusted proxies it only reads the socket.
 */
export function clientAddressOf(
  req: Pick<OriginRequest, 'rawHeaders' | 'socket'>,
  options: ClientAddressOptions,
): string | undefined {
  const peer = req.socket?.remoteAddress;
  const { trustedProxies } = options;
  if (trustedProxies === undefined || peer === undefined || !trustedProxies.trusts(peer)) return peer;
  const hops = forwardedHops(req.rawHeaders, options.header);
  let client = peer;
  for (let i = hops.length - 1, walked = 0; i >= 0 && walked < MAX_HOPS; i--, walked++) {
    const address = options.header === 'forwarded' ? forwardedFor(hops[i]!) : hopAddress(hops[i]!);
    if (address === undefined) return client;
    client = address;
    if (!trustedProxies.trusts(address)) return address;
  }
  return client;
}

/** The comma-separated entries of every occurrence of the header, in the order they were sent. */
function forwardedHops(rawHeaders: readonly string[], header: ForwardedHeaderName): string[] {
  const wanted = header === 'forwarded' ? 'forwarded' : 'x-forwarded-for';
  const hops: string[] = [];
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    if (rawHeaders[i]!.length !== wanted.length || rawHeaders[i]!.toLowerCase() !== wanted) continue;
    for (const entry of splitElements(rawHeaders[i + 1]!)) hops.push(entry);
  }
  return hops;
}

/**
 * A header value split at the commas that separate its elements, a comma inside a quoted string (RFC 7239
 * allows quoted values) not counting. Blank elements are dropped.
 */
function splitElements(value: string): string[] {
  const elements: string[] = [];
  let start = 0;
  let quoted = false;
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c === 0x22 /* " */) quoted = !quoted;
    else if (c === 0x5c /* \ */ && quoted) i++;
    else if (c === 0x2c /* , */ && !quoted) {
      elements.push(value.slice(start, i).trim());
      start = i + 1;
    }
  }
  elements.push(value.slice(start).trim());
  return elements.filter((element) => element !== '');
}

/**
 * The IP address of one hop as X-Forwarded-For or a `for=` value writes it: `192.0.2.1`, `192.0.2.1:80`,
 * `2001:db8::1`, `[2001:db8::1]:80`; `undefined` for anything else. An IPv4-mapped IPv6 address is given as IPv4.
 */
function hopAddress(hop: string): string | undefined {
  const candidate = BRACKETED_IPV6.exec(hop)?.[1] ?? IPV4_WITH_PORT.exec(hop)?.[1] ?? hop;
  const plain = unmapped(candidate);
  return isIP(plain) === 0 ? undefined : plain;
}

/** The address of the `for` parameter of one RFC 7239 element (`for=192.0.2.60;proto=http`), quoted or not. */
function forwardedFor(element: string): string | undefined {
  for (const pair of element.split(';')) {
    const equals = pair.indexOf('=');
    if (equals === -1 || pair.slice(0, equals).trim().toLowerCase() !== 'for') continue;
    let value = pair.slice(equals + 1).trim();
    if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) value = value.slice(1, -1);
    return hopAddress(value);
  }
  return undefined;
}

/**
 * The `X-Forwarded-For` a proxy sends on: the one it received (repeated headers joined in order) with the address
 * of its own peer appended, as nginx's `$proxy_add_x_forwarded_for` does. An IPv4-mapped peer is written as
 * IPv4; an unknown peer (a closed socket) adds nothing.
 */
export function withForwardedFor(received: string | string[] | undefined, peer: string | undefined): string {
  const before = Array.isArray(received) ? received.join(', ') : (received ?? '');
  if (peer === undefined) return before;
  const address = unmapped(peer);
  return before.trim() === '' ? address : `${before}, ${address}`;
}

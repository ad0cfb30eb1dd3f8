import type { Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';

/**
 * The record header attributes that carry the verified client certificate under mutual TLS. A request header of
 * either name (in any case) never becomes an attribute, with or without mutual TLS, so a client cannot forge
 * them (docs/header-attributes.md).
 */
export const CLIENT_CERTIFICATE_ATTRIBUTES = {
  /** The subject distinguished name, RFC 4514 form: `CN=client one,OU=Clients,O=Test`. */
  subject: 'tlsClientSubject',
  /** The issuer distinguished name, same form. */
  issuer: 'tlsClientIssuer',
} as const;

type ClientAttributes = Readonly<Record<string, string>>;

// One TLS connection has one client certificate for its whole life (the server never renegotiates), and a
// keep-alive connection carries many requests: the attributes are made once per connection.
const byConnection = new WeakMap<Socket, ClientAttributes>();

/**
 * The {@link CLIENT_CERTIFICATE_ATTRIBUTES} of the request's connection: the subject and issuer of the client
 * certificate the TLS handshake verified against the truststore. `undefined` on a plain socket, or when the
 * client presented no certificate that was verified (which mutual TLS never lets through to a request).
 */
export function clientCertificateAttributes(socket: Socket): ClientAttributes | undefined {
  const known = byConnection.get(socket);
  if (known !== undefined) return known;
  const tls = socket as Partial<TLSSocket>;
  if (tls.authorized !== true || typeof tls.getPeerX509Certificate !== 'function') return undefined;
  const certificate = tls.getPeerX509Certificate();
  if (certificate === undefined) return undefined;
  const attributes = Object.freeze({
    [CLIENT_CERTIFICATE_ATTRIBUTES.subject]: rfc4514(certificate.subject),
    [CLIENT_CERTIFICATE_ATTRIBUTES.issuer]: rfc4514(certificate.issuer),
  });
  byConnection.set(socket, attributes);
  return attributes;
}

/**
 * Node gives a name one RDN per line, most significant first, values already escaped as RFC 4514 asks, and
 * ` + ` between the parts of a multi-valued RDN. RFC 4514 (and Java's `X500Principal.getName()`, which the
 * reference engine's users know) lists the RDNs least significant first, separated by `,`, parts by `+`.
 */
function rfc4514(multiline: string): string {
  return multiline
    .split('\n')
    .reverse()
    .map((rdn) => rdn.replaceAll(' + ', '+'))
    .join(',');
}

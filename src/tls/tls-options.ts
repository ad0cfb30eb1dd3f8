// The TLS tab's options live beside the code that loads and serves them; the origin's config schema and
// resolveConfig import them from here (DESIGN §4: each config type lives beside the code it configures).

/** Values of `tls.keystoreType` and `tls.truststoreType`. */
export const KEYSTORE_TYPES = ['jks', 'pkcs12', 'pem'] as const;
/** Values of `tls.transportProtocols`: the protocol names Node's TLS accepts as min/max versions, oldest first. */
export const TLS_PROTOCOLS = ['TLSv1', 'TLSv1.1', 'TLSv1.2', 'TLSv1.3'] as const;
/** The protocols accepted when `tls.useDefaultProtocols` is on. */
export const DEFAULT_TLS_PROTOCOLS: readonly TlsProtocol[] = ['TLSv1.2', 'TLSv1.3'];

/** The kind of a keystore or truststore (TLS tab). */
export type KeystoreType = (typeof KEYSTORE_TYPES)[number];
/** A TLS protocol version name (TLS tab, Transport Protocols). */
export type TlsProtocol = (typeof TLS_PROTOCOLS)[number];

/** One entry of `tls.basicAuthenticationUsers`; both values are non-empty. */
export interface BasicAuthenticationUser {
  readonly user: string;
  readonly password: string;
}

/** TLS tab. An empty string means "not set" for the file, password and algorithm keys. */
export interface TlsConfig {
  readonly useTls: boolean;
  readonly requireClientAuthentication: boolean;
  readonly useRemoteKeystore: boolean;
  /** PEM. */
  readonly privateKey: string;
  /** PEM certificates, the server certificate first. */
  readonly certificateChain: readonly string[];
  readonly keystoreFile: string;
  readonly keystoreType: KeystoreType;
  readonly keystorePassword: string;
  readonly keystoreKeyAlgorithm: string;
  readonly useRemoteTruststore: boolean;
  /** PEM certificates. */
  readonly trustedCertificates: readonly string[];
  readonly truststoreFile: string;
  readonly truststoreType: KeystoreType;
  readonly truststorePassword: string;
  readonly truststoreTrustAlgorithm: string;
  readonly useDefaultProtocols: boolean;
  readonly transportProtocols: readonly TlsProtocol[];
  readonly useDefaultCipherSuites: boolean;
  /** IANA or OpenSSL names. */
  readonly cipherSuites: readonly string[];
  readonly basicAuthenticationUsers: readonly BasicAuthenticationUser[];
}

/**
 * A credential the host supplies when embedding the origin, e.g. a read from a secret store: called at `start()`
 * and again at every `reloadTls()`, it resolves with PEM text (one or more PEM blocks). A rejection fails that
 * start or reload with `ORIGIN_TLS_CREDENTIAL_FAILED`; the rejection's message is kept as the cause.
 */
export type CredentialFunction = () => Promise<string>;

/**
 * Credential functions for the remote keystore and truststore (`OriginOptions.tlsCredentials`), used in place of
 * the config's `tls.privateKey`, `tls.certificateChain` and `tls.trustedCertificates`, which stay plain data.
 * A function is used only when `useRemoteKeystore` (key, chain) or `useRemoteTruststore` (trusted certificates)
 * is on, and the config value it stands for must then be empty.
 */
export interface TlsCredentials {
  /** The server's private key as PEM (encrypted with `tls.keystorePassword`, or not encrypted). */
  readonly privateKey?: CredentialFunction;
  /** The server certificate first, then its intermediates, as PEM certificates. */
  readonly certificateChain?: CredentialFunction;
  /** The certificates trusted to sign client certificates, as PEM certificates. */
  readonly trustedCertificates?: CredentialFunction;
}

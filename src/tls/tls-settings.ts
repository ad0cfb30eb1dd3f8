import { createHash } from 'node:crypto';
import { createSecureContext, type TlsOptions } from 'node:tls';
import { ConfigError, type ConfigProblem } from '../errors/config-error';
import { OriginError } from '../errors/origin-error';
import { cipherSuiteChoice } from './cipher-suites';
import { loadKeystore, type KeyMaterial, type StoreSources } from './load-keystore';
import { loadTruststore } from './load-truststore';
import { protocolRange, type ProtocolRange } from './protocol-range';
import { DEFAULT_TLS_PROTOCOLS, type TlsConfig, type TlsCredentials } from './tls-options';

/** What {@link TlsSettings.load} gives: the options of an HTTPS server, and what identifies them. */
export interface LoadedTls {
  /** For `https.createServer` and `server.setSecureContext`: key material, trust, versions, ciphers. */
  readonly options: TlsOptions;
  /**
   * A digest of the TLS tab and of the loaded material (never the material itself): two origins may share a
   * port only when their fingerprints are equal (DESIGN §6).
   */
  readonly fingerprint: string;
}

/**
 * The TLS tab of one origin, checked when the origin is made and loaded at `start()` and at every `reloadTls()`.
 *
 * The constructor checks what needs no file: a keystore is named (or remote values or credential functions are
 * given), a truststore is named when client authentication is required, the cipher suite names and the
 * protocol list. {@link TlsSettings.load} reads the stores and calls the credential functions, then lets OpenSSL
 * build a secure context once, so that a wrong password or a key that does not match its certificate fails the
 * start instead of every handshake.
 */
export class TlsSettings {
  readonly #tls: TlsConfig;
  readonly #sources: StoreSources;
  readonly #range: ProtocolRange;
  readonly #ciphers: string | undefined;

  /**
   * @throws ConfigError listing every problem of the TLS tab (see {@link tlsConfigProblems}).
   */
  constructor(tls: TlsConfig, sources: StoreSources) {
    const problems = tlsConfigProblems(tls, sources.credentials);
    const ciphers = tls.useDefaultCipherSuites ? undefined : cipherSuiteChoice(tls.cipherSuites);
    problems.push(...(ciphers?.problems ?? []));
    if (problems.length > 0) throw new ConfigError(problems);
    this.#tls = tls;
    this.#sources = sources;
    this.#range = protocolRange(tls.useDefaultProtocols ? DEFAULT_TLS_PROTOCOLS : tls.transportProtocols);
    this.#ciphers = ciphers?.ciphers;
  }

  /** True when clients must present a certificate the truststore trusts (mutual TLS). */
  get requireClientAuthentication(): boolean {
    return this.#tls.requireClientAuthentication;
  }

  /**
   * Reads the keystore (and the truststore under mutual TLS) anew and makes the server's TLS options. A client
   * without a trusted certificate fails the handshake (`rejectUnauthorized`), see docs/security.md.
   *
   * @throws OriginError `ORIGIN_TLS_FILE_UNREADABLE`, `ORIGIN_TLS_FILE_OUTSIDE_RESOURCES`,
   *   `ORIGIN_TLS_CREDENTIAL_FAILED`, `ORIGIN_TLS_STORE_INVALID` while loading; `ORIGIN_TLS_MATERIAL_REFUSED`
   *   when OpenSSL refuses the result (wrong password, key and certificate that do not match).
   */
  async load(): Promise<LoadedTls> {
    const mutual = this.#tls.requireClientAuthentication;
    const [key, trusted] = await Promise.all([
      loadKeystore(this.#tls, this.#sources),
      mutual ? loadTruststore(this.#tls, this.#sources) : Promise.resolve(undefined),
    ]);
    const options: TlsOptions = {
      ...key,
      ...(trusted === undefined ? {} : { ca: trusted }),
      requestCert: mutual,
      rejectUnauthorized: mutual,
      minVersion: this.#range.minVersion,
      maxVersion: this.#range.maxVersion,
      ...(this.#range.secureOptions === 0 ? {} : { secureOptions: this.#range.secureOptions }),
      ...(this.#ciphers === undefined ? {} : { ciphers: this.#ciphers, honorCipherOrder: true }),
    };
    try {
      createSecureContext(options);
    } catch (error) {
      throw new OriginError(
        'ORIGIN_TLS_MATERIAL_REFUSED',
        { detail: error instanceof Error ? error.message : String(error) },
        { cause: error },
      );
    }
    return { options, fingerprint: this.#fingerprint(key, trusted) };
  }

  #fingerprint(key: KeyMaterial, trusted: readonly string[] | undefined): string {
    const hash = createHash('sha256');
    hash.update(JSON.stringify({ tls: this.#tls, resourcesDirectory: this.#sources.resourcesDirectory }));
    for (const part of [...(key.key ?? []), key.cert ?? '', key.pfx ?? '', ...(trusted ?? [])]) {
      hash.update(part).update('\u0000');
    }
    return hash.digest('hex');
  }
}

/**
 * The {@link TlsSettings} of an origin's TLS tab, or `undefined` when `useTls` is off (plain HTTP).
 *
 * @throws ConfigError listing every problem of the tab, also when `useTls` is off (`requireClientAuthentication`
 *   without it, a credential function given for an unused option).
 */
export function tlsSettingsFor(tls: TlsConfig, sources: StoreSources): TlsSettings | undefined {
  if (tls.useTls) return new TlsSettings(tls, sources);
  const problems = tlsConfigProblems(tls, sources.credentials);
  if (problems.length > 0) throw new ConfigError(problems);
  return undefined;
}

/**
 * The problems of a TLS tab that can be seen without reading a file, each at its JSON Pointer:
 *
 * - with `useTls`: a keystore (`keystoreFile`, or with `useRemoteKeystore` both `privateKey` and
 *   `certificateChain`, each as a config value or a credential function, not both);
 * - with `requireClientAuthentication`: `useTls`, and a truststore (`truststoreFile`, or with
 *   `useRemoteTruststore` `trustedCertificates` as a value or a credential function). Without a truststore Node
 *   would trust every public CA to vouch for clients, which is never what mutual TLS means here;
 * - with `useDefaultProtocols` off: a non-empty `transportProtocols`;
 * - a credential function given for an option its remote flag leaves unused.
 */
export function tlsConfigProblems(tls: TlsConfig, credentials: TlsCredentials): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  const problem = (path: string, message: string): void =>
    void problems.push({ path: `/tls/${path}`, message });
  const source = (option: keyof TlsCredentials, empty: boolean, flag: string): void => {
    const fn = credentials[option] !== undefined;
    if (fn && !empty)
      problem(option, 'is set and a credential function for it is given too; give one of them');
    if (!fn && empty) problem(option, `is required when useTls and ${flag} are true`);
  };
  const unused = (option: keyof TlsCredentials, flag: string): void => {
    if (credentials[option] !== undefined) problem(option, `has a credential function, but ${flag} is false`);
  };
  if (tls.useTls && tls.useRemoteKeystore) {
    source('privateKey', tls.privateKey.trim() === '', 'useRemoteKeystore');
    source('certificateChain', tls.certificateChain.length === 0, 'useRemoteKeystore');
  } else {
    if (tls.useTls && tls.keystoreFile.trim() === '')
      problem('keystoreFile', 'is required when useTls is true');
    unused('privateKey', 'useRemoteKeystore');
    unused('certificateChain', 'useRemoteKeystore');
  }
  if (tls.requireClientAuthentication && !tls.useTls) {
    problem('requireClientAuthentication', 'needs useTls: client certificates exist only over TLS');
  }
  const mutual = tls.useTls && tls.requireClientAuthentication;
  if (mutual && tls.useRemoteTruststore) {
    source('trustedCertificates', tls.trustedCertificates.length === 0, 'useRemoteTruststore');
  } else {
    if (mutual && tls.truststoreFile.trim() === '') {
      problem('truststoreFile', 'is required when requireClientAuthentication is true');
    }
    if (!tls.useRemoteTruststore) unused('trustedCertificates', 'useRemoteTruststore');
  }
  if (tls.useTls && !tls.useDefaultProtocols && tls.transportProtocols.length === 0) {
    problem('transportProtocols', 'must list a protocol when useDefaultProtocols is false');
  }
  return problems;
}

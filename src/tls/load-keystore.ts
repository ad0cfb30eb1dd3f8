import { toPem } from 'jks-js';
import { OriginError } from '../errors/origin-error';
import { readResourceFile } from './resource-file';
import { certificateBlocks, isPrivateKeyLabel, pemBlocks } from './pem-blocks';
import type { TlsConfig, TlsCredentials } from './tls-options';

/**
 * The server's key and certificates in the shape Node's `tls.createSecureContext` takes: PEM `key` + `cert`
 * (PEM files, JKS, the remote keystore), or `pfx` (PKCS #12, read by OpenSSL itself). `passphrase` decrypts an
 * encrypted PEM key or the PKCS #12 file.
 */
export interface KeyMaterial {
  readonly key?: string[];
  /** The certificate chain as PEM, the server certificate first. */
  readonly cert?: string;
  readonly pfx?: Buffer;
  readonly passphrase?: string;
}

/** What loading reads besides the TLS tab. */
export interface StoreSources {
  readonly resourcesDirectory: string;
  readonly credentials: TlsCredentials;
}

/**
 * Loads the server keystore the TLS tab describes: the remote keystore (`privateKey` / `certificateChain`, or the
 * host's credential functions in their place) when `useRemoteKeystore`, else `keystoreFile` as `keystoreType`
 * (`pem`: a key block and certificate blocks in one file; `pkcs12`: handed to OpenSSL as `pfx`; `jks`: read with
 * jks-js, every key entry becomes a key + chain pair). Reads files and calls credential functions anew on every
 * call, which is what `reloadTls()` relies on.
 *
 * Whether the key matches the certificate and whether a password is right for PEM and PKCS #12 is decided by
 * OpenSSL when the secure context is made, not here.
 *
 * @throws OriginError `ORIGIN_TLS_FILE_UNREADABLE`, `ORIGIN_TLS_FILE_OUTSIDE_RESOURCES` (the file),
 *   `ORIGIN_TLS_CREDENTIAL_FAILED` (a credential function rejected), `ORIGIN_TLS_STORE_INVALID` (no key or no
 *   certificate found, a JKS file that cannot be read with the password).
 */
export async function loadKeystore(tls: TlsConfig, sources: StoreSources): Promise<KeyMaterial> {
  const passphrase = tls.keystorePassword === '' ? {} : { passphrase: tls.keystorePassword };
  if (tls.useRemoteKeystore) {
    const key = await credentialOr(sources.credentials.privateKey, 'privateKey', tls.privateKey);
    const chain = await credentialOr(
      sources.credentials.certificateChain,
      'certificateChain',
      tls.certificateChain.join('\n'),
    );
    return { ...pemKeyAndChain('remote keystore', 'pem', key + '\n' + chain), ...passphrase };
  }
  const file = await readResourceFile(sources.resourcesDirectory, 'keystoreFile', tls.keystoreFile);
  switch (tls.keystoreType) {
    case 'pem':
      return { ...pemKeyAndChain('keystore', 'pem', file.toString('utf8')), ...passphrase };
    case 'pkcs12':
      return { pfx: file, ...passphrase };
    case 'jks':
      return jksKeyMaterial(file, tls.keystorePassword);
  }
}

/** Calls `credential` when the host gave one, else returns the config's value. */
export async function credentialOr(
  credential: (() => Promise<string>) | undefined,
  option: string,
  configured: string,
): Promise<string> {
  if (credential === undefined) return configured;
  try {
    const value: unknown = await credential();
    if (typeof value !== 'string') throw new TypeError(`it resolved with ${typeof value}, not a PEM string`);
    return value;
  } catch (error) {
    throw new OriginError(
      'ORIGIN_TLS_CREDENTIAL_FAILED',
      { option, detail: error instanceof Error ? error.message : String(error) },
      { cause: error },
    );
  }
}

function pemKeyAndChain(store: string, type: string, text: string): KeyMaterial {
  const blocks = pemBlocks(text);
  const key = blocks.filter((block) => isPrivateKeyLabel(block.label)).map((block) => block.text);
  const certificates = certificateBlocks(text);
  if (key.length === 0) throw storeInvalid(store, type, 'it holds no PEM private key block');
  if (certificates.length === 0) throw storeInvalid(store, type, 'it holds no PEM certificate block');
  return { key, cert: certificates.join('') };
}

function jksKeyMaterial(file: Buffer, password: string): KeyMaterial {
  let entries: ReturnType<typeof toPem>;
  try {
    entries = toPem(file, password);
  } catch (error) {
    throw storeInvalid('keystore', 'jks', error instanceof Error ? error.message : String(error), error);
  }
  const pairs = Object.values(entries).filter(
    (entry): entry is { key: string; cert: string } => entry.key !== undefined && entry.cert !== undefined,
  );
  if (pairs.length === 0) throw storeInvalid('keystore', 'jks', 'it holds no private key entry');
  // OpenSSL keeps one key per key type, so several entries serve e.g. an RSA and an ECDSA certificate.
  return { key: pairs.map((pair) => pair.key), cert: pairs.map((pair) => pair.cert).join('\n') };
}

/** An `ORIGIN_TLS_STORE_INVALID` error. */
export function storeInvalid(store: string, type: string, detail: string, cause?: unknown): OriginError {
  return new OriginError('ORIGIN_TLS_STORE_INVALID', { store, type, detail }, { cause });
}

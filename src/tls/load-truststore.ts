import { parsePkcs12, toPem } from 'jks-js';
import { credentialOr, storeInvalid, type StoreSources } from './load-keystore';
import { certificateBlocks } from './pem-blocks';
import { readResourceFile } from './resource-file';
import type { TlsConfig } from './tls-options';

/**
 * Loads the certificates trusted to sign client certificates, as PEM texts: `trustedCertificates` (or the host's
 * credential function) when `useRemoteTruststore`, else `truststoreFile` as `truststoreType` (`pem`: every
 * certificate block; `pkcs12` and `jks`: every trusted-certificate entry, read with jks-js, because OpenSSL's
 * `pfx` loading insists on a private key, which a truststore does not have). Reads anew on every call.
 *
 * @throws OriginError `ORIGIN_TLS_FILE_UNREADABLE`, `ORIGIN_TLS_FILE_OUTSIDE_RESOURCES`,
 *   `ORIGIN_TLS_CREDENTIAL_FAILED`, or `ORIGIN_TLS_STORE_INVALID` (wrong password, not a store of that type,
 *   no trusted certificate in it).
 */
export async function loadTruststore(tls: TlsConfig, sources: StoreSources): Promise<string[]> {
  if (tls.useRemoteTruststore) {
    const text = await credentialOr(
      sources.credentials.trustedCertificates,
      'trustedCertificates',
      tls.trustedCertificates.join('\n'),
    );
    return someCertificates('remote truststore', 'pem', certificateBlocks(text));
  }
  const file = await readResourceFile(sources.resourcesDirectory, 'truststoreFile', tls.truststoreFile);
  const type = tls.truststoreType;
  if (type === 'pem') return someCertificates('truststore', type, certificateBlocks(file.toString('utf8')));
  let entries: ReturnType<typeof toPem>;
  try {
    // toPem would take a PKCS #12 file for JKS too; the type the config names is the one read.
    entries =
      type === 'jks' ? toPem(file, tls.truststorePassword) : pkcs12Entries(file, tls.truststorePassword);
  } catch (error) {
    throw storeInvalid('truststore', type, error instanceof Error ? error.message : String(error), error);
  }
  const trusted = Object.values(entries).flatMap((entry) => (entry.ca === undefined ? [] : [entry.ca]));
  return someCertificates('truststore', type, trusted);
}

function pkcs12Entries(file: Buffer, password: string): ReturnType<typeof toPem> {
  // parsePkcs12 checks the MAC with the password; toPem then names each bag by alias.
  parsePkcs12(file, password);
  return toPem(file, password);
}

function someCertificates(store: string, type: string, certificates: string[]): string[] {
  if (certificates.length === 0) throw storeInvalid(store, type, 'it holds no trusted certificate');
  return certificates;
}

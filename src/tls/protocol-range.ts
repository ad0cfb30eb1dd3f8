import { constants } from 'node:crypto';
import type { SecureVersion } from 'node:tls';
import { TLS_PROTOCOLS, type TlsProtocol } from './tls-options';

/** Node's way of saying which TLS versions a server accepts. */
export interface ProtocolRange {
  readonly minVersion: SecureVersion;
  readonly maxVersion: SecureVersion;
  /** `SSL_OP_NO_*` flags for versions inside the range that the list leaves out; 0 when none. */
  readonly secureOptions: number;
}

const EXCLUDE_FLAG: Readonly<Record<TlsProtocol, number>> = {
  TLSv1: constants.SSL_OP_NO_TLSv1,
  'TLSv1.1': constants.SSL_OP_NO_TLSv1_1,
  'TLSv1.2': constants.SSL_OP_NO_TLSv1_2,
  'TLSv1.3': constants.SSL_OP_NO_TLSv1_3,
};

/**
 * The version range of a non-empty list of protocols: from the oldest listed to the newest listed, with the
 * versions between them that the list leaves out switched off, so that `['TLSv1.1', 'TLSv1.3']` accepts exactly
 * those two. Node sets a range, not a set, hence the flags.
 */
export function protocolRange(protocols: readonly TlsProtocol[]): ProtocolRange {
  const listed = TLS_PROTOCOLS.filter((protocol) => protocols.includes(protocol));
  const min = listed[0] ?? 'TLSv1.2';
  const max = listed[listed.length - 1] ?? 'TLSv1.3';
  let secureOptions = 0;
  for (const protocol of TLS_PROTOCOLS.slice(TLS_PROTOCOLS.indexOf(min), TLS_PROTOCOLS.indexOf(max) + 1)) {
    if (!listed.includes(protocol)) secureOptions |= EXCLUDE_FLAG[protocol];
  }
  return { minVersion: min, maxVersion: max, secureOptions };
}

import { createSecureContext } from 'node:tls';
import type { ConfigProblem } from '../errors/config-error';
import { OPENSSL_NAME_BY_IANA_NAME } from './cipher-suite-names';

const OPENSSL_NAMES: ReadonlySet<string> = new Set(OPENSSL_NAME_BY_IANA_NAME.values());

/** The OpenSSL cipher string of `tls.cipherSuites`, or the problems that stop it from being made. */
export interface CipherSuiteChoice {
  /** Names joined with `:`, in the configured order (the server prefers the first). */
  readonly ciphers: string;
  readonly problems: readonly ConfigProblem[];
}

/**
 * Maps each configured cipher suite name to OpenSSL's name: an IANA name (`TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256`,
 * also with Java's older `SSL_` prefix) or an OpenSSL name (`ECDHE-RSA-AES128-GCM-SHA256`); TLS 1.3 names are
 * alike in both. A name that is neither, or that this Node build's OpenSSL does not offer (e.g. 3DES suites,
 * which OpenSSL 3 leaves out of its default build), is a problem at `/tls/cipherSuites/<index>` naming it.
 * Cipher string keywords (`HIGH`, `!aNULL`) are not suite names and are refused too, so the list says exactly
 * which suites are allowed.
 */
export function cipherSuiteChoice(names: readonly string[]): CipherSuiteChoice {
  const problems: ConfigProblem[] = [];
  const chosen: string[] = [];
  names.forEach((name, index) => {
    const openssl = openSslName(name);
    if (openssl === undefined || !offered(openssl)) {
      problems.push({
        path: `/tls/cipherSuites/${index}`,
        message: `names an unknown cipher suite '${name}' (${
          openssl === undefined ? 'neither an IANA nor an OpenSSL name' : 'not offered by this OpenSSL build'
        })`,
      });
    } else {
      chosen.push(openssl);
    }
  });
  if (names.length === 0) {
    problems.push({
      path: '/tls/cipherSuites',
      message: 'must name a cipher suite when useDefaultCipherSuites is false',
    });
  }
  return { ciphers: chosen.join(':'), problems };
}

function openSslName(name: string): string | undefined {
  const iana = name.startsWith('SSL_') ? `TLS_${name.slice(4)}` : name;
  return OPENSSL_NAME_BY_IANA_NAME.get(iana) ?? (OPENSSL_NAMES.has(name) ? name : undefined);
}

// OpenSSL refuses a cipher string in which no name matches ("no cipher match"), so one name at a time tells
// whether this build has it. Runs once per configured name when an origin is made.
function offered(openssl: string): boolean {
  try {
    createSecureContext({ ciphers: openssl });
    return true;
  } catch {
    return false;
  }
}

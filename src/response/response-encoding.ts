import { OriginError } from '../errors/origin-error';
import { canonicalResponseCharset, type ResponseCharset } from './response-options';

/**
 * A charset a response body can be written in (the encodings Node's `Buffer` writes). One table serves the JSON
 * and the XML renderer; each escapes what the charset cannot carry in its own syntax. The names and aliases are
 * those of `RESPONSE_CHARSET_ALIASES` (response-options.ts), which the config resolves against too.
 */
export interface ResponseEncoding {
  /** The IANA name as the XML declaration spells it (`UTF-8`). */
  readonly name: string;
  /** The name sent in `Content-Type` (`utf-8`). */
  readonly headerLabel: string;
  readonly encoding: BufferEncoding;
  /** UTF-16 code units the encoding cannot carry, one at a time (JSON escapes each as `\uXXXX`). */
  readonly unencodableUnits?: RegExp;
  /** Code points the encoding cannot carry (XML writes each as one character reference `&#xH;`). */
  readonly unencodableCodePoints?: RegExp;
}

function charset(name: string, encoding: BufferEncoding, maxChar?: number): ResponseEncoding {
  if (maxChar === undefined) return { name, headerLabel: name.toLowerCase(), encoding };
  const first = (maxChar + 1).toString(16).padStart(4, '0');
  return {
    name,
    headerLabel: name.toLowerCase(),
    encoding,
    unencodableUnits: new RegExp(`[\\u${first}-\\uffff]`, 'g'),
    unencodableCodePoints: new RegExp(`[\\u${first}-\\u{10ffff}]`, 'gu'),
  };
}

/** UTF-8: a UTF-8 body is sent as a string, which Node writes together with the headers. */
export const UTF_8 = charset('UTF-8', 'utf8');

// Keyed by the canonical names of RESPONSE_CHARSET_ALIASES, which also holds every alias the config accepts.
const CHARSETS: Readonly<Record<ResponseCharset, ResponseEncoding>> = {
  'UTF-8': UTF_8,
  'UTF-16LE': charset('UTF-16LE', 'utf16le'),
  'ISO-8859-1': charset('ISO-8859-1', 'latin1', 0xff),
  // Node's 'ascii' encoder writes latin1 bytes; escaping everything above 0x7F first keeps the body pure ASCII.
  'US-ASCII': charset('US-ASCII', 'latin1', 0x7f),
};

/** True when `name` (any letter case, or an accepted alias) is a charset a response can be written in. */
export function isSupportedResponseCharset(name: string): boolean {
  return canonicalResponseCharset(name) !== undefined;
}

/**
 * The response charset called `name` (any letter case, or an accepted alias).
 *
 * @throws OriginError `ORIGIN_RESPONSE_CHARSET_UNSUPPORTED` for another name.
 */
export function responseEncoding(name: string): ResponseEncoding {
  const canonical = canonicalResponseCharset(name);
  if (canonical === undefined)
    throw new OriginError('ORIGIN_RESPONSE_CHARSET_UNSUPPORTED', { charset: name });
  return CHARSETS[canonical];
}

import { OriginError } from '../errors/origin-error';

/**
 * A charset a response body can be written in (the encodings Node's `Buffer` writes). One table serves the JSON
 * and the XML renderer; each escapes what the charset cannot carry in its own syntax.
 */
export interface ResponseCharset {
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

function charset(name: string, encoding: BufferEncoding, maxChar?: number): ResponseCharset {
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
const UTF_16LE = charset('UTF-16LE', 'utf16le');
const ISO_8859_1 = charset('ISO-8859-1', 'latin1', 0xff);
// Node's 'ascii' encoder writes latin1 bytes; escaping everything above 0x7F first keeps the body pure ASCII.
const US_ASCII = charset('US-ASCII', 'latin1', 0x7f);

// Lower-cased names and the aliases the config accepts (config-schema's RESPONSE_CHARSET_ALIASES).
const CHARSETS: ReadonlyMap<string, ResponseCharset> = new Map([
  ['utf-8', UTF_8],
  ['utf8', UTF_8],
  ['utf-16le', UTF_16LE],
  ['utf16le', UTF_16LE],
  ['utf-16-le', UTF_16LE],
  ['iso-8859-1', ISO_8859_1],
  ['iso8859-1', ISO_8859_1],
  ['iso_8859-1', ISO_8859_1],
  ['latin1', ISO_8859_1],
  ['latin-1', ISO_8859_1],
  ['us-ascii', US_ASCII],
  ['us_ascii', US_ASCII],
  ['ascii', US_ASCII],
]);

/** True when `name` (any letter case) is a charset a response can be written in. */
export function isSupportedResponseCharset(name: string): boolean {
  return CHARSETS.has(name.toLowerCase());
}

/**
 * The response charset called `name` (any letter case, or an accepted alias).
 *
 * @throws OriginError `ORIGIN_RESPONSE_CHARSET_UNSUPPORTED` for another name.
 */
export function responseCharset(name: string): ResponseCharset {
  const found = CHARSETS.get(name.toLowerCase());
  if (found === undefined) throw new OriginError('ORIGIN_RESPONSE_CHARSET_UNSUPPORTED', { charset: name });
  return found;
}

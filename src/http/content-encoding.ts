import { OriginError } from '../errors/origin-error';

/**
 * A content coding the origin can undo. `identity` is not one: it means "no coding" and is dropped. `x-gzip` is
 * `gzip`; `deflate` is the zlib format (RFC 9110 §8.4.1.2) or, as some clients send it, raw deflate (told apart by
 * the zlib header check); `br` is Brotli (RFC 7932); `zstd` is Zstandard (RFC 9659, window at most 8 MiB).
 */
export type ContentCoding = 'gzip' | 'deflate' | 'br' | 'zstd' | 'snappy';

/** The value of the `Accept-Encoding` header that goes with a 415 answer: the codings a client may send. */
export const ACCEPTED_CONTENT_ENCODINGS = 'gzip, x-gzip, deflate, br, zstd, snappy';

/**
 * The most codings one request may stack (`identity` entries not counted). Each stage of a chain holds its own
 * inflater, so an unbounded list would let one header allocate without limit; real clients send one.
 */
export const MAX_CONTENT_CODINGS = 3;

const CODINGS: Readonly<Record<string, ContentCoding | 'identity'>> = {
  gzip: 'gzip',
  'x-gzip': 'gzip',
  deflate: 'deflate',
  br: 'br',
  zstd: 'zstd',
  snappy: 'snappy',
  identity: 'identity',
};

/**
 * Reads a `Content-Encoding` header value (a string, the array Node gives for repeated lines, or `undefined` when
 * the header is absent) and returns the codings in the order the client APPLIED them, as listed (RFC 9110
 * §8.4); the body is decoded in the reverse order. Names are trimmed and compared case-insensitively; `x-gzip`
 * is `gzip` (see {@link ContentCoding} for the others); `identity` and empty list elements are dropped, so `[]` means the body is sent as is.
 *
 * Call it on the request headers before reading any body byte, so that an unusable request is refused early.
 *
 * @throws OriginError `ORIGIN_HTTP_ENCODING_UNSUPPORTED` (415; answer with `Accept-Encoding:`
 *   {@link ACCEPTED_CONTENT_ENCODINGS}) with param `encoding` when a coding is unknown (`encoding` is that
 *   coding as sent) or when more than {@link MAX_CONTENT_CODINGS} codings are stacked (`encoding` is the whole
 *   header value).
 */
export function checkContentEncoding(headerValue: string | readonly string[] | undefined): ContentCoding[] {
  if (headerValue === undefined) return [];
  const joined = typeof headerValue === 'string' ? headerValue : headerValue.join(',');
  const codings: ContentCoding[] = [];
  for (const element of joined.split(',')) {
    const name = element.trim();
    if (name === '') continue;
    const coding = Object.hasOwn(CODINGS, name.toLowerCase()) ? CODINGS[name.toLowerCase()] : undefined;
    if (coding === undefined) throw new OriginError('ORIGIN_HTTP_ENCODING_UNSUPPORTED', { encoding: name });
    if (coding !== 'identity') codings.push(coding);
  }
  if (codings.length > MAX_CONTENT_CODINGS) {
    throw new OriginError('ORIGIN_HTTP_ENCODING_UNSUPPORTED', { encoding: joined.trim() });
  }
  return codings;
}

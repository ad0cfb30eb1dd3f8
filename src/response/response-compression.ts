import { brotliCompress, constants as zlib, gzip } from 'node:zlib';
import type { RenderedResponse } from './json-response';

/** The codings a response may be sent in, in the origin's order of preference when a client rates them alike. */
export const RESPONSE_CODINGS = ['br', 'gzip'] as const;
/** A coding the origin can apply to a response. */
export type ResponseCoding = (typeof RESPONSE_CODINGS)[number];

/** The default of `httpResponse.compressMinBytes`: below about this size compression saves no packet. */
export const DEFAULT_COMPRESS_MIN_BYTES = 1024;

/** The `httpResponse` options that decide response compression. */
export interface ResponseCompressionConfig {
  /** (addition) Compress responses with `gzip` or `br` when the client's `Accept-Encoding` allows. */
  readonly compress: boolean;
  /** (addition) The smallest body, in bytes as rendered, that is compressed. */
  readonly compressMinBytes: number;
}

/**
 * Brotli's quality for responses: 4 compresses about as fast as gzip's default level and still smaller; Node's
 * default (11) is for files compressed once, at about a hundred times the CPU.
 */
const BROTLI_QUALITY = 4;
/** zlib's default level. */
const GZIP_LEVEL = 6;

/** What a client's `Accept-Encoding` allows: the coding to use (if any) and whether identity is refused. */
export interface EncodingChoice {
  /** The acceptable coding the client rates highest (`br` on a tie); `undefined` when neither is acceptable. */
  readonly coding: ResponseCoding | undefined;
  /** True when the client refused an unencoded answer (`identity;q=0`, or `*;q=0` without `identity`). */
  readonly identityRefused: boolean;
}

const NO_CHOICE: EncodingChoice = { coding: undefined, identityRefused: false };
/** A qvalue (RFC 9110 §12.4.2): 0 or 1 with up to three decimals. */
const QVALUE = /^(?:0(?:\.\d{0,3})?|1(?:\.0{0,3})?)$/;

/**
 * Reads an `Accept-Encoding` header (RFC 9110 §12.5.3) for the codings the origin can send. Names are compared
 * case-insensitively (`x-gzip` is `gzip`); each may carry `;q=` (a weight from 0 to 1, three decimals at most;
 * 0 means "not acceptable"); `*` stands for every coding not named; a coding neither named nor covered by `*` is
 * not acceptable. An element with a malformed weight is ignored, as is an unknown parameter's element. An absent
 * or empty header chooses nothing: the answer is sent as it is.
 */
export function chooseResponseCoding(header: string | undefined): EncodingChoice {
  if (header === undefined || header.trim() === '') return NO_CHOICE;
  const weights = new Map<string, number>();
  for (const element of header.split(',')) {
    const [rawName = '', ...params] = element.split(';');
    const name = rawName.trim().toLowerCase();
    if (name === '') continue;
    let q = 1;
    let valid = true;
    for (const param of params) {
      const [key = '', value = ''] = param.split('=').map((part) => part.trim());
      if (key.toLowerCase() !== 'q' || !QVALUE.test(value)) valid = false;
      else q = Number(value);
    }
    if (!valid) continue;
    const coding = name === 'x-gzip' ? 'gzip' : name;
    // A name listed twice keeps its highest weight.
    weights.set(coding, Math.max(q, weights.get(coding) ?? 0));
  }
  const star = weights.get('*');
  const weightOf = (coding: string): number => weights.get(coding) ?? star ?? 0;
  const identity = weights.get('identity') ?? star;
  let coding: ResponseCoding | undefined;
  let best = 0;
  for (const candidate of RESPONSE_CODINGS) {
    const q = weightOf(candidate);
    if (q > best) {
      best = q;
      coding = candidate;
    }
  }
  return { coding, identityRefused: identity === 0 };
}

function headerNamed(headers: Readonly<Record<string, string>>, name: string): string | undefined {
  for (const key of Object.keys(headers)) if (key.toLowerCase() === name) return key;
  return undefined;
}

/**
 * Compresses a rendered response for the client whose `Accept-Encoding` is `acceptEncoding`, and hands the
 * response to `send`: at once and unchanged when `config.compress` is off (nothing else is looked at), when the
 * body is empty, or when the pipeline set a `Content-Encoding` of its own; otherwise with `Vary:
 * Accept-Encoding` added (the answer depends on that header) and, when the client accepts `br` or `gzip` and the
 * body has at least `compressMinBytes` bytes (or the client refused identity), the body compressed and
 * `Content-Encoding` set. Compression runs on libuv's thread pool, so `send` is then called later; a compression
 * that fails (it cannot, short of memory) sends the response unencoded. `Content-Length` is left to the caller.
 *
 * A client that accepts neither coding and refuses identity still gets the unencoded answer: the pipeline has
 * processed the request, and a 406 would lose its response.
 */
export function compressResponse(
  rendered: RenderedResponse,
  acceptEncoding: string | undefined,
  config: ResponseCompressionConfig,
  send: (response: RenderedResponse) => void,
): void {
  if (!config.compress) return send(rendered);
  const { body, headers } = rendered;
  const length = typeof body === 'string' ? Buffer.byteLength(body, 'utf8') : body.length;
  if (length === 0 || headerNamed(headers, 'content-encoding') !== undefined) return send(rendered);
  const vary = headerNamed(headers, 'vary');
  if (vary === undefined) headers['Vary'] = 'Accept-Encoding';
  else if (!/(^|,)\s*(accept-encoding|\*)\s*(,|$)/i.test(headers[vary]!)) {
    headers[vary] = `${headers[vary]}, Accept-Encoding`;
  }
  const { coding, identityRefused } = chooseResponseCoding(acceptEncoding);
  if (coding === undefined || (length < config.compressMinBytes && !identityRefused)) return send(rendered);
  const done = (error: Error | null, compressed: Buffer): void => {
    if (error !== null) return send(rendered);
    headers['Content-Encoding'] = coding;
    send({ status: rendered.status, headers, body: compressed });
  };
  const input = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
  if (coding === 'br') {
    brotliCompress(
      input,
      {
        params: {
          [zlib.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY,
          [zlib.BROTLI_PARAM_SIZE_HINT]: input.length,
        },
      },
      done,
    );
  } else gzip(input, { level: GZIP_LEVEL }, done);
}

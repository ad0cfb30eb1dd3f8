import type { IncomingHttpHeaders } from 'node:http';
import { Readable, pipeline, type Transform } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate, createInflateRaw, type Zlib } from 'node:zlib';
import { uncompress } from 'snappy';

import { OriginError } from '../errors/origin-error';
import { PacedRead, type BodyPaceWatch } from './body-pace';
import { eventSourceOf, wasReset } from './http2-stream';
import type { OriginRequest } from './origin-exchange';
import { checkContentEncoding, type ContentCoding } from './content-encoding';
import { SNAPPY_STREAM_IDENTIFIER, SnappyFramedDecoder, snappyBlockLength } from '../formats/snappy-framing';
import { DecompressError, createDecompressor } from '../formats/decompressors';
import { TurnBudget } from './turn-budget';

/**
 * A request body to read: Node's `IncomingMessage`, or any `Readable` / async iterable of bytes with the
 * request's headers beside it. When `complete` is present (as on `IncomingMessage`), a body that ends while it
 * is `false` was cut short by the client.
 */
export interface RequestBody extends AsyncIterable<Uint8Array> {
  readonly headers: IncomingHttpHeaders;
  readonly complete?: boolean;
}

/** How much of a body the origin accepts, and how to stop reading early. */
export interface BodyReadOptions {
  /**
   * The most bytes accepted, counted once on the bytes received (`raw`) and once on the bytes after undoing
   * the Content-Encoding (`decoded`). Exactly this many is allowed; one more is refused. A non-negative integer.
   */
  readonly maxRequestBytes: number;
  /** The limit as the user configured it, for the 413 message; defaults to `maxRequestBytes / 10^6`. */
  readonly limitMb?: number;
  /** When it aborts, reading stops and the iterable throws the signal's `reason`. */
  readonly signal?: AbortSignal;
  /**
   * The body's codings as {@link checkContentEncoding} returned them, when the caller already read the header
   * (the origin does, to refuse an unusable request early); when absent, the `Content-Encoding` header is read.
   */
  readonly codings?: readonly ContentCoding[];
  /**
   * Watches the read's raw bytes against a minimum pace (decision 0041); a body that falls behind ends the read
   * with `ORIGIN_HTTP_BODY_TIMEOUT` (408). Used by {@link readBody} only.
   */
  readonly pace?: BodyPaceWatch;
  /**
   * Called with each chunk of the body as received, before any Content-Encoding is undone and before it is
   * counted against the limit's decoded side (the idempotency step digests the raw body this way, without a
   * copy). Runs synchronously; it must neither keep nor change the chunk. Used by {@link readBody} only.
   */
  readonly onRawChunk?: (chunk: Uint8Array) => void;
}

/**
 * From a large body's second chunk on, a chunk is handed to the consumer at most this many bytes at a time, so that
 * a turn (decision 0090) can end inside one socket read of up to 64 KiB (decision 0136): parsed whole, such a read
 * held the loop 2–5 ms. 16 KiB is what the origin already parses at a time between two looks at the heap.
 */
const TURN_SLICE_BYTES = 16 * 1024;

/** The size of the decoded chunks that gzip, deflate, brotli and raw snappy produce. */
const DECODED_CHUNK_BYTES = 64 * 1024;
/** The largest window a `zstd` body may need: RFC 9659 §3 holds encoders to 8 MiB for the HTTP content coding. */
const ZSTD_MAX_WINDOW_BYTES = 8 * 1024 * 1024;
/**
 * A zstd body is handed to the decoder this much at a time, and the output is passed on (and counted against the
 * limit) as soon as 64 KiB have gathered: fzstd decodes all it is given before returning, and a Zstandard RLE
 * block turns 4 bytes into 128 KiB, so one piece decodes to at most about 16 MiB however hostile the body.
 */
const ZSTD_FEED_BYTES = 512;

interface Limit {
  readonly maxRequestBytes: number;
  readonly limitMb: number;
}

function limitOf(options: BodyReadOptions): Limit {
  const { maxRequestBytes } = options;
  if (!Number.isSafeInteger(maxRequestBytes) || maxRequestBytes < 0) {
    throw new RangeError(`maxRequestBytes must be a non-negative integer, got ${maxRequestBytes}`);
  }
  // The origin's body plan gives both (nearly every read): the options are the limit then, with no object made per
  // request.
  if (options.limitMb !== undefined) return options as Limit;
  return { maxRequestBytes, limitMb: maxRequestBytes / 1_000_000 };
}

/**
 * The 413 error for a body over the limit: `OriginError` `ORIGIN_HTTP_BODY_TOO_LARGE` with params
 * `{ which, limitMb, limitBytes }`. `which` is `'raw'` for the bytes received (or declared in Content-Length),
 * `'decoded'` for the bytes after undoing the Content-Encoding.
 */
export function bodyTooLargeError(
  which: 'raw' | 'decoded',
  options: Pick<BodyReadOptions, 'maxRequestBytes' | 'limitMb'>,
): OriginError<'ORIGIN_HTTP_BODY_TOO_LARGE'> {
  const limit = limitOf(options);
  return new OriginError('ORIGIN_HTTP_BODY_TOO_LARGE', {
    which,
    limitMb: limit.limitMb,
    limitBytes: limit.maxRequestBytes,
  });
}

/**
 * True when the request declares a `Content-Length` above `maxRequestBytes`, so the origin can answer 413
 * (with {@link bodyTooLargeError}`('raw', …)`) before reading a byte. False when the header is absent (chunked
 * bodies are limited while they are read) or not a number (Node's parser already refuses such requests).
 */
export function declaredLengthTooLarge(headers: IncomingHttpHeaders, maxRequestBytes: number): boolean {
  const declared = headers['content-length'];
  if (declared === undefined) return false;
  const length = Number(declared);
  return Number.isFinite(length) && length > maxRequestBytes;
}

/**
 * Reads a request body and yields it DECODED, chunk by chunk, undoing its `Content-Encoding` (absent or
 * `identity`: as sent; `gzip` / `x-gzip`, one or more members; `deflate`: the zlib format, or raw deflate when
 * the body does not open with a zlib header; `br`; `zstd`, window at most 8 MiB; `snappy`: the framing format
 * when the body starts with the stream identifier, else one raw snappy block as Prometheus remote-write sends; a
 * list such as `gzip, br` is undone in reverse order, see {@link checkContentEncoding}). An empty body yields
 * nothing, whatever its Content-Encoding.
 *
 * The reading is pull-based: nothing is read from `body` until the consumer asks for the next chunk, and at most
 * a few small fixed buffers (of 64 KiB or less) are held ahead of the consumer, so a slow consumer slows the client down
 * instead of filling memory. The one exception is a raw snappy block, which can only be decompressed whole: its
 * compressed bytes are gathered (within the raw limit) and decompressed once, after its declared length was
 * checked against the limit. Chunks belong to the consumer once yielded; identity chunks are the request's own.
 *
 * The Content-Encoding is checked when this function is called, before any byte is read: an unsupported one
 * throws `ORIGIN_HTTP_ENCODING_UNSUPPORTED` (415) synchronously. The iterable then throws:
 * - `ORIGIN_HTTP_BODY_TOO_LARGE` (413), params `{ which: 'raw' | 'decoded', limitMb, limitBytes }`, as soon as
 *   either count passes `maxRequestBytes` (a raw snappy block: as soon as its declared length does); decoding
 *   stops at once, so a gzip bomb costs no more than the limit;
 * - `ORIGIN_HTTP_BODY_CORRUPT` (400), params `{ encoding, detail }`, when the body does not decode (including
 *   bytes after the end of a deflate or br stream, and a zstd frame that needs a window over 8 MiB);
 * - `ORIGIN_HTTP_BODY_ABORTED` (400) when the client closes the connection before the body is complete (or the
 *   body stream fails);
 * - the signal's `reason` when `options.signal` aborts.
 * Errors keep the underlying error as `cause`.
 *
 * An `IncomingMessage` is not destroyed when reading stops early (a limit, a corrupt body, the consumer breaking
 * off), so the caller can still answer 413 or 400 on the same connection; it should answer with
 * `Connection: close`, as the rest of the body was not read.
 *
 * @throws RangeError synchronously when `maxRequestBytes` is not a non-negative integer.
 */
export function readDecodedBody(body: RequestBody, options: BodyReadOptions): AsyncIterable<Uint8Array> {
  const codings = options.codings ?? checkContentEncoding(body.headers['content-encoding']);
  return decodeBody(body, codings, limitOf(options), options.signal, undefined, undefined);
}

/** The raw bytes a read has received so far, kept up to date by the read. */
interface RawProgress {
  receivedBytes: number;
}

async function* decodeBody(
  body: RequestBody,
  codings: readonly ContentCoding[],
  limit: Limit,
  signal: AbortSignal | undefined,
  progress: RawProgress | undefined,
  onRawChunk: ((chunk: Uint8Array) => void) | undefined,
): AsyncGenerator<Uint8Array, void, undefined> {
  signal?.throwIfAborted();
  let stream: AsyncIterable<Uint8Array> = readRawBody(body, limit, signal, progress, onRawChunk);
  // The list names codings in the order they were applied, so they are undone from the last one back.
  for (let i = codings.length - 1; i >= 0; i--) {
    stream = limitDecoded(decoderOf(codings[i]!, stream, limit, signal), limit, signal);
  }
  yield* stream;
}

/** The decoded bytes of `source`, a body (or the output of the stage before) encoded with `coding`. */
function decoderOf(
  coding: ContentCoding,
  source: AsyncIterable<Uint8Array>,
  limit: Limit,
  signal: AbortSignal | undefined,
): AsyncIterable<Uint8Array> {
  switch (coding) {
    case 'gzip':
      return zlibDecode('gzip', source, () => createGunzip({ chunkSize: DECODED_CHUNK_BYTES }), signal);
    case 'deflate':
      return inflate(source, signal);
    case 'br':
      return zlibDecode(
        'br',
        source,
        () => createBrotliDecompress({ chunkSize: DECODED_CHUNK_BYTES }),
        signal,
      );
    case 'zstd':
      return unzstd(source, limit, signal);
    case 'snappy':
      return unsnappy(source, limit, signal);
  }
}

async function* readRawBody(
  body: RequestBody,
  limit: Limit,
  signal: AbortSignal | undefined,
  progress: RawProgress | undefined,
  onRawChunk: ((chunk: Uint8Array) => void) | undefined,
): AsyncGenerator<Uint8Array, void, undefined> {
  // Leaving the loop early must not destroy the request: the socket is still needed to send the 413 or 400.
  const iterator: AsyncIterator<unknown> =
    body instanceof Readable ? body.iterator({ destroyOnReturn: false }) : body[Symbol.asyncIterator]();
  const aborted = signal === undefined ? undefined : abortPromise(signal);
  let received = 0;
  try {
    for (;;) {
      let step: IteratorResult<unknown>;
      try {
        step = await (aborted === undefined
          ? iterator.next()
          : Promise.race([iterator.next(), aborted.promise]));
      } catch (error) {
        throw readFailure(error, signal);
      }
      if (step.done === true) break;
      const chunk = step.value;
      if (!(chunk instanceof Uint8Array)) {
        throw new TypeError(
          'The request body yielded a chunk that is not bytes; do not call setEncoding on it',
        );
      }
      received += chunk.length;
      if (progress !== undefined) progress.receivedBytes = received;
      if (received > limit.maxRequestBytes) throw bodyTooLargeError('raw', limit);
      onRawChunk?.(chunk);
      yield chunk;
    }
    if (body.complete === false || wasReset(body)) throw new OriginError('ORIGIN_HTTP_BODY_ABORTED');
  } finally {
    aborted?.dispose();
    // Not awaited: after an abort the iterator may still wait for a byte that never comes.
    Promise.resolve(iterator.return?.()).catch(ignore);
  }
}

function readFailure(error: unknown, signal: AbortSignal | undefined): unknown {
  if (signal?.aborted === true) return signal.reason;
  if (error instanceof OriginError) return error;
  return new OriginError('ORIGIN_HTTP_BODY_ABORTED', {}, { cause: error });
}

function abortPromise(signal: AbortSignal): { promise: Promise<never>; dispose(): void } {
  let onAbort = ignore;
  const promise = new Promise<never>((_, reject) => {
    onAbort = () => reject(signal.reason);
  });
  promise.catch(ignore);
  if (signal.aborted) onAbort();
  else signal.addEventListener('abort', onAbort, { once: true });
  return { promise, dispose: () => signal.removeEventListener('abort', onAbort) };
}

function ignore(): void {}

async function* limitDecoded(
  source: AsyncIterable<Uint8Array>,
  limit: Limit,
  signal: AbortSignal | undefined,
): AsyncGenerator<Uint8Array, void, undefined> {
  let decoded = 0;
  for await (const chunk of source) {
    decoded += chunk.length;
    // Throwing here returns the decoder stage, which destroys its inflater: nothing more is inflated.
    if (decoded > limit.maxRequestBytes) throw bodyTooLargeError('decoded', limit);
    signal?.throwIfAborted();
    yield chunk;
  }
}

function decodeFailure(encoding: ContentCoding, error: unknown, signal: AbortSignal | undefined): unknown {
  if (error instanceof OriginError) return error;
  if (signal?.aborted === true) return signal.reason;
  const detail = error instanceof Error ? error.message : String(error);
  return new OriginError('ORIGIN_HTTP_BODY_CORRUPT', { encoding, detail }, { cause: error });
}

/** The source's first chunk, and an iterable of the whole source again; `undefined` when the source is empty. */
async function peek(
  source: AsyncIterable<Uint8Array>,
): Promise<{ first: Uint8Array; rest: AsyncIterator<Uint8Array> } | undefined> {
  const rest = source[Symbol.asyncIterator]();
  const step = await rest.next();
  return step.done === true ? undefined : { first: step.value, rest };
}

/**
 * The source's first `bytes` bytes at least (fewer when the source ends before), as one piece, and the rest of
 * the source; `undefined` when the source is empty.
 */
async function gather(
  source: AsyncIterable<Uint8Array>,
  bytes: number,
): Promise<{ prefix: Uint8Array; rest: AsyncIterator<Uint8Array> } | undefined> {
  const rest = source[Symbol.asyncIterator]();
  const head: Uint8Array[] = [];
  let headBytes = 0;
  try {
    while (headBytes < bytes) {
      const step = await rest.next();
      if (step.done === true) break;
      head.push(step.value);
      headBytes += step.value.length;
    }
  } catch (error) {
    await rest.return?.();
    throw error;
  }
  if (headBytes === 0) return undefined;
  return { prefix: head.length === 1 ? head[0]! : Buffer.concat(head), rest };
}

/** `first`, then the rest; `counter`, when given, counts the bytes handed out. */
async function* prepend(
  first: Uint8Array,
  rest: AsyncIterator<Uint8Array>,
  counter?: { bytes: number },
): AsyncGenerator<Uint8Array> {
  try {
    if (counter !== undefined) counter.bytes += first.length;
    yield first;
    for (;;) {
      const step = await rest.next();
      if (step.done === true) return;
      if (counter !== undefined) counter.bytes += step.value.length;
      yield step.value;
    }
  } finally {
    await rest.return?.();
  }
}

/**
 * `source` through one of Node's zlib decoders (made by `make`), pulled: the decoder holds at most its window and
 * a chunk or two of output, and the consumer's pace drives it.
 */
async function* zlibDecode(
  coding: ContentCoding,
  source: AsyncIterable<Uint8Array>,
  make: () => Transform & Zlib,
  signal: AbortSignal | undefined,
): AsyncGenerator<Uint8Array, void, undefined> {
  // zlib calls an empty input truncated; an empty body is empty whatever its Content-Encoding says.
  const head = await peek(source);
  if (head === undefined) return;
  const decoder = make();
  const fed = { bytes: 0 };
  const feeder = Readable.from(prepend(head.first, head.rest, fed), { objectMode: false });
  // The pipeline carries a source error into the decoder, where the loop below sees it; errors raised while
  // tearing down are already reported there, hence the empty handlers.
  feeder.on('error', ignore);
  decoder.on('error', ignore);
  pipeline(feeder, decoder, ignore);
  try {
    for await (const chunk of decoder) yield chunk as Buffer;
  } catch (error) {
    throw decodeFailure(coding, error, signal);
  } finally {
    decoder.destroy();
    feeder.destroy();
  }
  // zlib and brotli stop at the end of their stream and drop what follows; gzip reads it as another member.
  // Bytes after the end are refused as gzip's are, so that a body is never silently cut short.
  if (decoder.bytesWritten < fed.bytes) {
    throw new OriginError('ORIGIN_HTTP_BODY_CORRUPT', {
      encoding: coding,
      detail: `${fed.bytes - decoder.bytesWritten} bytes follow the end of the compressed stream`,
    });
  }
}

/**
 * True when `cmf` and `flg` open a zlib stream (RFC 1950 §2.2): deflate (CM 8) with a window of at most 32 KiB,
 * and FCHECK making the pair a multiple of 31. A raw deflate stream opens with block bits that pass this check
 * for few first bytes; the check is the one browsers and curl use to read both forms of `deflate`.
 */
export function isZlibHeader(cmf: number, flg: number): boolean {
  return (cmf & 0x0f) === 8 && cmf >> 4 <= 7 && ((cmf << 8) | flg) % 31 === 0;
}

/**
 * `deflate`: RFC 9110 §8.4.1.2 means the zlib format, but some clients send raw deflate under that name; the
 * first two bytes tell which (see {@link isZlibHeader}).
 */
async function* inflate(
  source: AsyncIterable<Uint8Array>,
  signal: AbortSignal | undefined,
): AsyncGenerator<Uint8Array, void, undefined> {
  const head = await gather(source, 2);
  if (head === undefined) return;
  const zlib = head.prefix.length >= 2 && isZlibHeader(head.prefix[0]!, head.prefix[1]!);
  const options = { chunkSize: DECODED_CHUNK_BYTES };
  yield* zlibDecode(
    'deflate',
    prepend(head.prefix, head.rest),
    () => (zlib ? createInflate(options) : createInflateRaw(options)),
    signal,
  );
}

/**
 * `zstd` through the Zstandard decompressor the formats use (fzstd, with frame checksums checked and every frame
 * header checked before fzstd allocates for it), its window held to RFC 9659's 8 MiB. The body goes in
 * {@link ZSTD_FEED_BYTES} at a time, and what a piece decoded is passed on (in pieces of about
 * {@link DECODED_CHUNK_BYTES}) before the next piece is decoded.
 */
async function* unzstd(
  source: AsyncIterable<Uint8Array>,
  limit: Limit,
  signal: AbortSignal | undefined,
): AsyncGenerator<Uint8Array, void, undefined> {
  let pending: Uint8Array[] = [];
  let pendingBytes = 0;
  const decoder = createDecompressor(
    'zstandard',
    (data) => {
      // fzstd's streaming decoder hands out each block as a new array: it is the consumer's without a copy.
      pending.push(data);
      pendingBytes += data.length;
    },
    limit.maxRequestBytes,
    { maxWindowBytes: ZSTD_MAX_WINDOW_BYTES },
  );
  const take = (): Uint8Array[] => {
    const out = pending;
    pending = [];
    pendingBytes = 0;
    return out;
  };
  try {
    for await (const chunk of source) {
      for (let at = 0; at < chunk.length; at += ZSTD_FEED_BYTES) {
        decoder.push(chunk.subarray(at, at + ZSTD_FEED_BYTES));
        if (pendingBytes >= DECODED_CHUNK_BYTES) yield* take();
      }
    }
    decoder.end();
  } catch (error) {
    if (error instanceof DecompressError && error.kind === 'tooLarge')
      throw bodyTooLargeError('decoded', limit);
    throw decodeFailure('zstd', error instanceof DecompressError ? new Error(error.detail) : error, signal);
  }
  yield* take();
}

function startsWith(bytes: Uint8Array, prefix: Uint8Array): boolean {
  if (bytes.length < prefix.length) return false;
  for (let i = 0; i < prefix.length; i++) if (bytes[i] !== prefix[i]) return false;
  return true;
}

async function* unsnappy(
  source: AsyncIterable<Uint8Array>,
  limit: Limit,
  signal: AbortSignal | undefined,
): AsyncGenerator<Uint8Array, void, undefined> {
  // Enough bytes to tell the framing format from a raw block, and to hold a raw block's whole length varint.
  const head = await gather(source, SNAPPY_STREAM_IDENTIFIER.length);
  if (head === undefined) return;
  const { prefix, rest: iterator } = head;
  try {
    if (startsWith(prefix, SNAPPY_STREAM_IDENTIFIER)) {
      const decoder = new SnappyFramedDecoder();
      yield* decoder.push(prefix);
      for (;;) {
        const step = await iterator.next();
        if (step.done === true) break;
        yield* decoder.push(step.value);
      }
      decoder.end();
      return;
    }
    yield* await decodeRawSnappy(prefix, iterator, limit, signal);
  } finally {
    await iterator.return?.();
  }
}

async function decodeRawSnappy(
  prefix: Uint8Array,
  rest: AsyncIterator<Uint8Array>,
  limit: Limit,
  signal: AbortSignal | undefined,
): Promise<Uint8Array[]> {
  const declared = snappyBlockLength(prefix);
  if (declared === undefined) {
    throw new OriginError('ORIGIN_HTTP_BODY_CORRUPT', {
      encoding: 'snappy',
      detail: 'the body is neither a snappy framed stream nor a raw snappy block with a valid length',
    });
  }
  // Refused before gathering the rest or decompressing: the declared length is what decompression allocates.
  if (declared.length > limit.maxRequestBytes) throw bodyTooLargeError('decoded', limit);
  const compressed: Uint8Array[] = [prefix];
  for (;;) {
    const step = await rest.next();
    if (step.done === true) break;
    compressed.push(step.value);
  }
  let block: Buffer;
  try {
    block = (await uncompress(Buffer.concat(compressed), { asBuffer: true }, signal)) as Buffer;
  } catch (error) {
    throw decodeFailure('snappy', error, signal);
  }
  // Views, not copies: consumers see chunks of the usual size, so a parser can yield between them.
  const chunks: Uint8Array[] = [];
  for (let offset = 0; offset < block.length; offset += DECODED_CHUNK_BYTES) {
    chunks.push(block.subarray(offset, offset + DECODED_CHUNK_BYTES));
  }
  return chunks;
}

/**
 * What {@link consumeDecodedBody} and {@link readBody} read from: a request body with the events and flow control
 * of a readable stream and the request's headers, such as an {@link OriginRequest} (an `IncomingMessage`, an
 * HTTP/2 request) or any `Readable` with the headers beside it.
 */
export type RequestBodyStream = RequestBody &
  Pick<OriginRequest, 'destroyed' | 'readableEnded' | 'on' | 'off' | 'pause' | 'resume'>;

/**
 * Reads a request body and hands each DECODED chunk to `onChunk` as it arrives; resolves with the number of
 * decoded bytes once the body is complete. Limits, encodings and errors are those of {@link readDecodedBody};
 * the promise form of {@link readBody}.
 */
export function consumeDecodedBody(
  body: RequestBodyStream,
  options: BodyReadOptions,
  onChunk: (chunk: Uint8Array) => void,
): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    readBody(body, options, onChunk, (error, bytes) =>
      error === undefined ? resolve(bytes) : reject(error),
    );
  });
}

/** Told once how a body read ended: `error` undefined and the decoded byte count, or the error. */
export type BodyReadDone = (error: unknown, decodedBytes: number) => void;

/**
 * Reads a request body and hands each DECODED chunk to `onChunk` as it arrives; calls `done` exactly once, with
 * the number of decoded bytes when the body is complete or with the error that stopped the read (synchronously,
 * from this call, when the request was aborted already). Limits, encodings and errors are those of
 * {@link readDecodedBody}.
 *
 * A body without a Content-Encoding (nearly every request) is read from the stream's own events, with no promise
 * and no async iterator in between, which is most of what reading a small body costs. `onChunk` runs
 * synchronously for each chunk; what it throws ends the read with that error (the request is paused, not
 * destroyed, so the caller can still answer on the connection). An encoded body goes through
 * {@link readDecodedBody}.
 *
 * Fairness (decision 0090): from a body's second chunk on, once the `onChunk` calls of one event-loop turn took
 * the {@link TurnBudget}'s budget (1 ms, decision 0129) together, reading pauses until the next turn, so the parse
 * of a large body never holds the loop for longer than that at a time and other clients' requests are served in
 * between.
 */
export function readBody(
  body: RequestBodyStream,
  options: BodyReadOptions,
  onChunk: (chunk: Uint8Array) => void,
  done: BodyReadDone,
): void {
  const codings = options.codings ?? checkContentEncoding(body.headers['content-encoding']);
  // A request that waited for its slot may have lost its client meanwhile: its 'close' is gone, and listeners
  // attached now would wait for events that never come, holding the slot for good.
  // An HTTP/2 stream reset meanwhile may have ended its request, its body dropped (decision 0096).
  if ((body.destroyed && !body.readableEnded) || wasReset(body)) {
    return done(new OriginError('ORIGIN_HTTP_BODY_ABORTED'), 0);
  }
  if (codings.length > 0 || options.signal !== undefined) {
    consumeIterable(body, codings, options, onChunk).then(
      (bytes) => done(undefined, bytes),
      (error: unknown) => done(error, 0),
    );
    return;
  }
  // The raw chunks of an unencoded body are its decoded chunks: one callback sees each first.
  const { onRawChunk } = options;
  const take =
    onRawChunk === undefined
      ? onChunk
      : (chunk: Uint8Array): void => {
          onRawChunk(chunk);
          onChunk(chunk);
        };
  readUnencoded(body, limitOf(options), options.pace, take, done);
}

function readUnencoded(
  body: RequestBodyStream,
  limit: Limit,
  pace: BodyPaceWatch | undefined,
  onChunk: (chunk: Uint8Array) => void,
  done: BodyReadDone,
): void {
  // The read's state hangs on the stream itself, and the four listeners are shared functions that find it there
  // through `this` (the emitter): one object per request instead of six closures.
  // An HTTP/2 request's events are its stream's, whose listeners see the stream as `this`.
  const source: ReadableBody = eventSourceOf(body);
  const read = new UnencodedBodyRead(body, source, limit, pace, onChunk, done);
  source[BODY_READ] = read;
  pace?.watch(read);
  source.on('data', onBodyData);
  source.on('end', onBodyEnd);
  source.on('error', onBodyError);
  source.on('close', onBodyClose);
}

const BODY_READ = Symbol('rest-service-origin.bodyRead');

/** A body stream while {@link readUnencoded} reads it. */
interface ReadableBody extends RequestBodyStream {
  [BODY_READ]?: UnencodedBodyRead;
}

function onBodyData(this: ReadableBody, chunk: Buffer): void {
  this[BODY_READ]?.data(chunk);
}

function onBodyEnd(this: ReadableBody): void {
  this[BODY_READ]?.end();
}

function onBodyError(this: ReadableBody, error: unknown): void {
  this[BODY_READ]?.stop(new OriginError('ORIGIN_HTTP_BODY_ABORTED', {}, { cause: error }));
}

function onBodyClose(this: ReadableBody): void {
  if (!this.readableEnded) this[BODY_READ]?.stop(new OriginError('ORIGIN_HTTP_BODY_ABORTED'));
}

/** The state of one unencoded body read: bytes so far, and whether `done` was called. */
class UnencodedBodyRead extends PacedRead {
  readonly #body: RequestBodyStream;
  /** What emits the body's events, which its listeners find this read on: the body, or its HTTP/2 stream. */
  readonly #source: ReadableBody;
  readonly #limit: Limit;
  readonly #pace: BodyPaceWatch | undefined;
  readonly #onChunk: (chunk: Uint8Array) => void;
  readonly #done: BodyReadDone;
  #received = 0;
  #chunks = 0;
  /** Made at a body's second chunk: what `onChunk` does with a large body is spread over turns (decision 0090). */
  #turns: TurnBudget | undefined;
  /**
   * Chunks not taken yet, in order, while a large body is read: what is left of a chunk whose turn ran out (its
   * first `#heldAt` bytes were taken), and any after it. Made at the body's second chunk.
   */
  #held: Buffer[] | undefined;
  #heldAt = 0;
  /** The stream ended while chunks were held. */
  #ended = false;
  /** What runs {@link UnencodedBodyRead.#continue} from the turn budget; made at the first turn that ran out. */
  #continueNextTurn: (() => void) | undefined;
  #settled = false;

  constructor(
    body: RequestBodyStream,
    source: ReadableBody,
    limit: Limit,
    pace: BodyPaceWatch | undefined,
    onChunk: (chunk: Uint8Array) => void,
    done: BodyReadDone,
  ) {
    super();
    this.#body = body;
    this.#source = source;
    this.#limit = limit;
    this.#pace = pace;
    this.#onChunk = onChunk;
    this.#done = done;
  }

  get receivedBytes(): number {
    return this.#received;
  }

  expire(error: OriginError): void {
    this.stop(error);
  }

  data(chunk: Buffer): void {
    this.#received += chunk.length;
    if (this.#received > this.#limit.maxRequestBytes) return this.stop(bodyTooLargeError('raw', this.#limit));
    // The first chunk (the whole of most bodies) is taken whole, without reading a clock.
    if (this.#chunks++ === 0) {
      try {
        this.#onChunk(chunk);
      } catch (error) {
        this.stop(error);
      }
      return;
    }
    const held = (this.#held ??= []);
    held.push(chunk);
    // A chunk that came while an earlier one waits for its turn (the stream was paused, so this is not expected)
    // waits behind it: chunks are taken in order.
    if (held.length === 1) {
      this.#turns ??= new TurnBudget();
      this.#drain();
    }
  }

  /**
   * Hands the held chunks to `onChunk`, {@link TURN_SLICE_BYTES} at a time, until they are all taken (true) or the
   * turn's budget is spent (decision 0090): the stream is then paused, what is left stays held, and
   * {@link UnencodedBodyRead.#continue} runs in the next turn (false). A socket read is up to 64 KiB, several
   * milliseconds of parsing, so a turn may end inside one (decision 0136).
   */
  #drain(): boolean {
    const held = this.#held!;
    const turns = this.#turns!;
    turns.begin();
    let spent = false;
    while (held.length > 0) {
      const chunk = held[0]!;
      let at = this.#heldAt;
      while (at < chunk.length && !spent) {
        const end = Math.min(chunk.length, at + TURN_SLICE_BYTES);
        try {
          this.#onChunk(at === 0 && end === chunk.length ? chunk : chunk.subarray(at, end));
        } catch (error) {
          this.stop(error);
          return false;
        }
        at = end;
        spent = turns.spent();
      }
      if (at < chunk.length) this.#heldAt = at;
      else {
        held.shift();
        this.#heldAt = 0;
      }
      if (spent) {
        // The turn's work took its budget: the rest waits in the stream (which stops reading the socket once its
        // buffer is full), and in `held`, until other clients' I/O had its turn.
        this.#body.pause();
        turns.next((this.#continueNextTurn ??= () => this.#continue()));
        return false;
      }
    }
    return true;
  }

  /** The next turn of a paused read: the held chunks first, then the stream flows again (or the read ends). */
  #continue(): void {
    if (this.#settled || !this.#drain()) return;
    if (this.#ended) this.end();
    else this.#body.resume();
  }

  end(): void {
    if (this.#settled) return;
    // The stream has ended, but part of its last chunks still waits for its turn: the read ends once it is taken.
    if (this.#held !== undefined && this.#held.length > 0) {
      this.#ended = true;
      return;
    }
    this.#settled = true;
    this.#pace?.unwatch(this);
    // The 'data' listener goes: when the answer is written, Node "dumps" a request it thinks nobody read (our body
    // came whole before the stream was asked for more), and its removeAllListeners('data') deletes the property from
    // the stream's listener table, which turns the table into a slow dictionary on every request; `off` only sets
    // it to undefined. The other listeners stay: a later 'close' or 'error' finds no read, and does nothing.
    this.#source.off('data', onBodyData);
    // Nor does the stream keep the read, and through its `done` the whole request, once the request is answered: a
    // dead object of the old generation that still points at the stream (an HTTP/2 session's old stream table,
    // decision 0130) would keep all of it alive through scavenges into the old generation.
    this.#source[BODY_READ] = undefined;
    // A reset HTTP/2 stream ends its request as if complete (decision 0096).
    if (this.#body.complete === false || wasReset(this.#body)) {
      this.#done(new OriginError('ORIGIN_HTTP_BODY_ABORTED'), 0);
    } else this.#done(undefined, this.#received);
  }

  /** Ends the read with `error`: the listeners go and the stream is paused (not destroyed), so it can be answered. */
  stop(error: unknown): void {
    if (this.#settled) return;
    this.#settled = true;
    this.#pace?.unwatch(this);
    this.#turns?.cancel();
    this.#held = undefined;
    const source = this.#source;
    source.off('data', onBodyData);
    source.off('end', onBodyEnd);
    source.off('error', onBodyError);
    source.off('close', onBodyClose);
    source[BODY_READ] = undefined;
    this.#body.pause();
    this.#done(error, 0);
  }
}

async function consumeIterable(
  body: RequestBody,
  codings: readonly ContentCoding[],
  options: BodyReadOptions,
  onChunk: (chunk: Uint8Array) => void,
): Promise<number> {
  const { pace } = options;
  const paced = pace === undefined ? undefined : new IterablePacedRead(options.signal);
  const signal = paced === undefined ? options.signal : paced.signal;
  if (paced !== undefined) pace?.watch(paced);
  try {
    let decoded = 0;
    let chunks = 0;
    let turns: TurnBudget | undefined;
    for await (const chunk of decodeBody(
      body,
      codings,
      limitOf(options),
      signal,
      paced,
      options.onRawChunk,
    )) {
      decoded += chunk.length;
      // As for an unencoded body (decision 0090); here it matters even more, as the decoders hand over chunks
      // in microtasks (a raw snappy block's whole output, a gzip stream's buffered output) with no turn between.
      if (chunks++ === 0) {
        onChunk(chunk);
        continue;
      }
      const budget = (turns ??= new TurnBudget());
      // A decoded chunk is up to 64 KiB too: taken a slice at a time, so that a turn can end inside it (0136).
      for (let at = 0; at < chunk.length; at += TURN_SLICE_BYTES) {
        budget.begin();
        onChunk(chunk.length <= TURN_SLICE_BYTES ? chunk : chunk.subarray(at, at + TURN_SLICE_BYTES));
        if (budget.spent()) await budget.nextTurn();
      }
    }
    return decoded;
  } finally {
    if (paced !== undefined) pace?.unwatch(paced);
  }
}

/** An encoded body's read as the pace watch sees it: expiring aborts the read's signal with the 408 error. */
class IterablePacedRead extends PacedRead {
  receivedBytes = 0;
  readonly #controller = new AbortController();
  readonly signal: AbortSignal;

  constructor(outer: AbortSignal | undefined) {
    super();
    this.signal =
      outer === undefined ? this.#controller.signal : AbortSignal.any([outer, this.#controller.signal]);
  }

  expire(error: OriginError): void {
    this.#controller.abort(error);
  }
}

import type { IncomingHttpHeaders, OutgoingHttpHeaders } from 'node:http';
import {
  constants,
  type Http2Stream,
  type IncomingHttpHeaders as Http2Headers,
  type ServerHttp2Stream,
} from 'node:http2';
import type { Socket } from 'node:net';
import type { RequestEventListener, OriginRequest, OriginResponse } from './origin-exchange';
import type { Deadline, StreamDeadlines } from './stream-deadlines';

/**
 * An HTTP/2 request as the request path reads it ({@link OriginRequest}): one object over the stream Node's
 * stream API hands the server, instead of the compatibility API's `Http2ServerRequest`, a `Readable` of its own
 * that copies the stream's data into a second buffer and sets up a dozen listeners per stream (decision 0120).
 *
 * The body is the stream's own: `on`, `once`, `off`, `pause`, `resume` and iteration go to the stream, whose
 * listeners Node calls with `this` set to the stream. A stream the client resets emits `close` without `end`, so
 * a body cut off mid-record is never taken for a whole one (decision 0096).
 */
export class Http2Request implements OriginRequest {
  readonly stream: ServerHttp2Stream;
  readonly headers: IncomingHttpHeaders & Http2Headers;
  readonly rawHeaders: string[];
  /** The session's connection, as Node's proxy of it (which refuses to end or destroy it). */
  readonly socket: Socket;
  readonly method: string | undefined;
  readonly url: string | undefined;

  constructor(
    stream: ServerHttp2Stream,
    headers: IncomingHttpHeaders & Http2Headers,
    rawHeaders: string[],
    socket: Socket,
  ) {
    this.stream = stream;
    this.headers = headers;
    this.rawHeaders = rawHeaders;
    this.socket = socket;
    this.method = headers[':method'];
    this.url = headers[':path'];
  }

  get httpVersionMajor(): number {
    return 2;
  }

  /**
   * True once no more of the body is to come: it was read to its end, the request had none (END_STREAM on its
   * HEADERS), or the stream is closed. A stream closed before its answer was a reset: see `wasReset`.
   */
  get complete(): boolean {
    const { stream } = this;
    return stream.endAfterHeaders || stream.readableEnded || stream.closed;
  }

  get destroyed(): boolean {
    return this.stream.destroyed;
  }

  get readableEnded(): boolean {
    return this.stream.readableEnded;
  }

  on(event: string, listener: RequestEventListener): this {
    this.stream.on(event, listener);
    return this;
  }

  once(event: string, listener: RequestEventListener): this {
    this.stream.once(event, listener);
    return this;
  }

  off(event: string, listener: RequestEventListener): this {
    this.stream.off(event, listener);
    return this;
  }

  pause(): this {
    this.stream.pause();
    return this;
  }

  resume(): this {
    this.stream.resume();
    return this;
  }

  [Symbol.asyncIterator](): AsyncIterator<Uint8Array> {
    // Leaving the loop early leaves the stream open: the answer (413, 400) still goes out on it.
    return this.stream.iterator({ destroyOnReturn: false });
  }
}

/**
 * The answer to an {@link Http2Request} ({@link OriginResponse}): `writeHead` is the stream's `respond`, `end`
 * and `write` its own, with no trailers (the compatibility API asks every stream for trailers, an extra step per
 * answer).
 */
export class Http2Response implements OriginResponse {
  readonly req: Http2Request;
  readonly #stream: ServerHttp2Stream;
  /** The port's deadlines of answers their clients do not read ({@link Http2Response.setTimeout}). */
  readonly #unread: StreamDeadlines;
  /** This answer's place in `#unread`, made with the stream (the port clears it when the stream closes). */
  readonly #deadline: Deadline;

  constructor(req: Http2Request, unread: StreamDeadlines, deadline: Deadline) {
    this.req = req;
    this.#stream = req.stream;
    this.#unread = unread;
    this.#deadline = deadline;
  }

  get headersSent(): boolean {
    return this.#stream.headersSent;
  }

  /** True once the stream is closed or destroyed: nothing can be sent on it any more. */
  get destroyed(): boolean {
    const stream = this.#stream;
    return stream.destroyed || stream.closed;
  }

  get writableFinished(): boolean {
    return this.#stream.writableFinished;
  }

  get writableLength(): number {
    return this.#stream.writableLength;
  }

  /**
   * Sends the status and headers, unless the stream is gone already. HTTP/1.1's connection-specific headers
   * (`Connection`, `Keep-Alive`, `Transfer-Encoding`, …), which HTTP/2 forbids (RFC 9113 §8.2.2), are dropped;
   * the request path sends none on HTTP/2, this only guards what a host's renderer may add.
   */
  writeHead(status: number, headers: OutgoingHttpHeaders = {}): this {
    const stream = this.#stream;
    if (stream.destroyed || stream.closed) return this;
    // `headers` is given away ({@link OriginResponse.writeHead}): the status goes into it, not into a copy (Node
    // copies the fields once more itself).
    headers[':status'] = status;
    try {
      stream.respond(headers);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ERR_HTTP2_INVALID_CONNECTION_HEADERS') throw error;
      stream.respond(withoutConnectionHeaders(headers));
    }
    return this;
  }

  write(chunk: Uint8Array): boolean {
    const stream = this.#stream;
    if (!stream.headersSent) this.writeHead(200);
    // A HEAD request's answer, or a 204, ended with its headers.
    if (stream.writableEnded || stream.destroyed) return false;
    return stream.write(chunk);
  }

  /**
   * Ends the answer. Its last bytes are written first and END_STREAM follows once Node has handed them on, in an
   * empty DATA frame of its own: sent with the last DATA frame, END_STREAM closes the stream before Node completes
   * that write, and Node then makes an `ERR_STREAM_DESTROYED` error, stack trace and all, that no one reads: a
   * fifth of the server's CPU time on a small answer (measured, Node 20).
   */
  end(chunk?: string | Uint8Array): this {
    const stream = this.#stream;
    if (!stream.headersSent) this.writeHead(200);
    if (stream.writableEnded || stream.destroyed) return this;
    if (chunk === undefined || chunk.length === 0 || stream.writableCorked > 0) stream.end(chunk);
    else {
      stream.write(chunk, (error) => {
        // Handed on whole: the answer is no longer at its client's mercy.
        this.#unread.clear(this.#deadline);
        if (!error) stream.end();
      });
    }
    return this;
  }

  cork(): void {
    this.#stream.cork();
  }

  uncork(): void {
    this.#stream.uncork();
  }

  /**
   * Cancels the stream (RST_STREAM CANCEL) when its client has not read the answer (decision 0044, on HTTP/2: a
   * stream window that never opens); the session and its other streams go on. An answer not yet handed on whole
   * `timeoutMs` from now gets the stream's own timer (`stream.setTimeout`), which cancels it after `timeoutMs`
   * more without progress; most answers are handed on at once, and pay for no timer of their own.
   */
  setTimeout(timeoutMs: number): this {
    const stream = this.#stream;
    if (!stream.closed && !stream.writableFinished) this.#unread.set(this.#deadline, timeoutMs);
    return this;
  }
}

/**
 * What the deadline of an unread answer does when it passes: the stream's own timer takes over, which Node
 * restarts as long as the answer's frames go out, and which cancels the stream when they stop.
 */
export function watchUnreadAnswer(stream: Http2Stream, timeoutMs: number): void {
  if (!stream.closed) stream.setTimeout(timeoutMs, cancelStream);
}

/** Resets a stream with CANCEL (Node calls it as a 'timeout' listener, with the stream as `this`). */
function cancelStream(this: Http2Stream): void {
  this.close(constants.NGHTTP2_CANCEL);
}

/** HTTP/1.1's connection-specific header fields, which an HTTP/2 message must not carry (RFC 9113 §8.2.2). */
const CONNECTION_HEADERS: ReadonlySet<string> = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'upgrade',
]);

function withoutConnectionHeaders(headers: OutgoingHttpHeaders): OutgoingHttpHeaders {
  const kept: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(headers)) {
    if (!CONNECTION_HEADERS.has(name.toLowerCase())) kept[name] = value;
  }
  return kept;
}

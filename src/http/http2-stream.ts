import type { IncomingMessage, ServerResponse } from 'node:http';
import { constants, type Http2Stream } from 'node:http2';

/**
 * What the request path needs to know of a request that came over HTTP/2. The origin serves HTTP/2 through
 * Node's compatibility API, whose `Http2ServerRequest` and `Http2ServerResponse` carry the same members the
 * request path reads of an `IncomingMessage` and a `ServerResponse` (headers, url, method, events, `writeHead`,
 * `end`, `setTimeout`), with four differences the path handles through this file: a request's `socket` is a
 * proxy of the session's socket (which a stream must not close), HTTP/1-only headers such as `Connection` are
 * dropped with a warning, a timed-out response is not destroyed by Node, and a stream the client resets ends its
 * request normally (decision 0096).
 */
interface Http2Message {
  readonly httpVersionMajor: number;
  readonly stream?: Http2Stream;
}

/** True for a request that came over HTTP/2 (the compatibility API's `Http2ServerRequest`). */
export function isHttp2(req: Pick<IncomingMessage, 'httpVersionMajor'> | undefined): boolean {
  // A host's or a test's response object may not know its request.
  return req?.httpVersionMajor === 2;
}

/**
 * True when `body` is an HTTP/2 request whose stream the client reset (RST_STREAM) or that was destroyed before
 * its body was complete. Node's compatibility API ends such a request with `'end'` and `complete === true`, so a
 * body cut off mid-record would otherwise look whole; the body reader asks this before it reports a body read.
 * False for every HTTP/1.1 request.
 */
export function wasReset(body: object): boolean {
  const stream = (body as Http2Message).stream;
  if (stream === undefined) return false;
  return stream.destroyed || (stream.rstCode !== undefined && stream.rstCode !== constants.NGHTTP2_NO_ERROR);
}

/**
 * Bounds how long the client of an HTTP/2 answer may go without reading it (decision 0044, on HTTP/2: a stream
 * window that never opens). Node's HTTP/1.1 server destroys a socket whose timeout has no listener; an HTTP/2
 * stream is left open, holding the answer, so the stream is cancelled here (RST_STREAM CANCEL); the session and
 * its other streams go on.
 */
export function cancelUnreadAnswer(res: ServerResponse, timeoutMs: number): void {
  const stream = (res as unknown as Http2Message).stream;
  if (stream === undefined || stream.closed) return;
  stream.setTimeout(timeoutMs, () => stream.close(constants.NGHTTP2_CANCEL));
}

/**
 * Ends the request side of an HTTP/2 stream whose answer went out before its body was read (a refusal): once the
 * answer is sent, the stream is reset with NO_ERROR, which RFC 9113 §8.1 provides for telling a client to stop
 * sending a body the server will not read, so the stream does not stay open, stalled by flow control. The
 * HTTP/1.1 counterpart is `Connection: close`. Does nothing for an HTTP/1.1 request or a closed stream.
 */
export function stopUnreadBody(req: object): void {
  const stream = (req as Http2Message).stream;
  if (stream !== undefined && !stream.closed) stream.close(constants.NGHTTP2_NO_ERROR);
}

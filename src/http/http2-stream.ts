import { constants, type ServerHttp2Stream } from 'node:http2';
import type { OriginRequest } from './origin-exchange';

/**
 * What the request path needs to know of a request that came over HTTP/2. The origin serves HTTP/2 through
 * Node's stream API, each stream as an `Http2Request` and `Http2Response` (src/http/http2-exchange.ts, decision
 * 0120) that carry the members the request path reads of an `IncomingMessage` and a `ServerResponse`
 * ({@link OriginRequest}); what differs is handled through this file: a stream shares its connection with the
 * session's other streams (the path never closes it), HTTP/2 has no `Connection` header, and a stream the client
 * resets is an aborted request (decision 0096).
 */
interface Http2Message {
  readonly httpVersionMajor: number;
  readonly stream?: ServerHttp2Stream;
}

/** True for a request that came over HTTP/2. */
export function isHttp2(req: Pick<OriginRequest, 'httpVersionMajor'> | undefined): boolean {
  // A host's or a test's response object may not know its request.
  return req?.httpVersionMajor === 2;
}

/**
 * True when `body` is an HTTP/2 request whose stream the client reset (RST_STREAM), or closed before it was
 * answered, or that was destroyed before its body was complete: the body reader asks this before it reports a
 * body read, as a stream the client closes with NO_ERROR ends its body as if complete. False for every HTTP/1.1
 * request.
 */
export function wasReset(body: object): boolean {
  const stream = (body as Http2Message).stream;
  if (stream === undefined) return false;
  // A stream's code is NO_ERROR until it closes; one closed with NO_ERROR before it was answered was closed by
  // its client.
  return (
    stream.destroyed ||
    stream.rstCode !== constants.NGHTTP2_NO_ERROR ||
    (stream.closed && !stream.headersSent)
  );
}

/**
 * The emitter of `body`'s events: the HTTP/2 stream of an HTTP/2 request, whose listeners Node calls with `this`
 * set to the stream; `body` itself for any other.
 */
export function eventSourceOf<T extends object>(body: T): T {
  return ((body as Http2Message).stream as T | undefined) ?? body;
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

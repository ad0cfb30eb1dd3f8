import type { IncomingHttpHeaders, OutgoingHttpHeaders } from 'node:http';
import type { Socket } from 'node:net';

/**
 * What the request path reads of a request, whichever protocol brought it. Node's `IncomingMessage` (HTTP/1.1)
 * has every member as declared here; so does the origin's own {@link Http2Request} of src/http/http2-exchange.ts
 * (HTTP/2, served through Node's stream API rather than its compatibility API, decision 0120).
 *
 * The body is read through the events and flow control of a readable stream: `data` (a `Buffer` each), `end`,
 * `error`, `close`, with `pause` and `resume`; listeners other than the body reader's must not rely on `this`.
 */
export interface OriginRequest {
  /** The request method as sent (`GET`, `POST`, …); absent only on a message Node did not parse as a request. */
  readonly method?: string | undefined;
  /** The request target: path and query. */
  readonly url?: string | undefined;
  /** The header fields, names in lower case; an HTTP/2 request's include its pseudo-headers (`:authority`, …). */
  readonly headers: IncomingHttpHeaders;
  /** The header fields as received, name and value alternating, in order. */
  readonly rawHeaders: string[];
  /** 1 for HTTP/1.x, 2 for HTTP/2. */
  readonly httpVersionMajor: number;
  /**
   * The connection. For HTTP/2 it is shared by the session's other streams: a request may read it
   * (`remoteAddress`, the TLS peer certificate) but never end or destroy it (Node's proxy of it throws).
   */
  readonly socket: Socket;
  /** True once nothing more of the body is to come: it was received whole (or the request has none). */
  readonly complete: boolean;
  readonly destroyed: boolean;
  /** True once `end` was emitted: the body was read to its end. */
  readonly readableEnded: boolean;
  on(event: string, listener: RequestEventListener): unknown;
  once(event: string, listener: RequestEventListener): unknown;
  off(event: string, listener: RequestEventListener): unknown;
  pause(): unknown;
  resume(): unknown;
  /** The body's chunks; leaving the loop early must not destroy the request (the answer is still to be sent). */
  [Symbol.asyncIterator](): AsyncIterator<Uint8Array>;
}

/** A listener of a request's events, typed as Node's own emitters take them. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type RequestEventListener = (...args: any[]) => void;

/**
 * What the request path does with the answer to an {@link OriginRequest}: Node's `ServerResponse` (HTTP/1.1), or
 * the origin's own {@link Http2Response} (HTTP/2).
 */
export interface OriginResponse {
  /** The request this answers. */
  readonly req: OriginRequest;
  readonly headersSent: boolean;
  /** True once the answer can no longer be written (the client went away, or it was cut). */
  readonly destroyed: boolean;
  /** True once every byte of the answer was handed to the operating system. */
  readonly writableFinished: boolean;
  /**
   * Bytes of the answer not yet handed on: to the operating system (HTTP/1.1: 0 right after `end` when the kernel
   * took the whole answer), or to the HTTP/2 session.
   */
  readonly writableLength: number;
  /**
   * Sends the status and headers (names in any case; HTTP/2 sends them in lower case). `headers` is given away:
   * the caller passes an object of its own and does not use it again (HTTP/2 adds its `:status` to it).
   */
  writeHead(status: number, headers?: OutgoingHttpHeaders): this;
  write(chunk: Uint8Array): unknown;
  /** Ends the answer, with `chunk` as its last (or only) body bytes. */
  end(chunk?: string | Uint8Array): unknown;
  cork(): void;
  uncork(): void;
  /**
   * Bounds how long the client may take to read the rest of the answer (decision 0044): HTTP/1.1 destroys the
   * socket when it passes, HTTP/2 cancels the stream alone.
   */
  setTimeout(timeoutMs: number): unknown;
}

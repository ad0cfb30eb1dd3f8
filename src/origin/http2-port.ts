import { Server as HttpServer } from 'node:http';
import {
  constants,
  createSecureServer,
  createServer as createHttp2Server,
  type Http2SecureServer,
  type Http2Server,
  type Http2Session,
  type IncomingHttpHeaders,
  type ServerHttp2Stream,
} from 'node:http2';
import { Server as NetServer, createServer as createNetServer, type Socket } from 'node:net';
import type { TlsOptions } from 'node:tls';
import { Http2Request, Http2Response, watchUnreadAnswer } from '../http/http2-exchange';
import { Deadline, StreamDeadlines } from '../http/stream-deadlines';
import type { OriginRequest, OriginResponse } from '../http/origin-exchange';
import type { LoadedTls } from '../tls/tls-settings';

/** The connection preface every HTTP/2 client with prior knowledge sends first (RFC 9113 §3.4). */
export const HTTP2_PREFACE = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', 'latin1');

/**
 * The largest header list (names, values and 32 bytes per field, RFC 9113 §6.5.2) one HTTP/2 request may carry:
 * the 16 KiB Node's HTTP/1.1 parser allows a request head. A larger list (an HPACK bomb expands into one) gets
 * its stream reset with ENHANCE_YOUR_CALM before any of it reaches the origin.
 */
export const HTTP2_MAX_HEADER_LIST_BYTES = 16 * 1024;
/** The most header fields one HTTP/2 request may carry (Node's default, as HTTP/1.1's 2000 is far above need). */
export const HTTP2_MAX_HEADER_PAIRS = 128;
/**
 * The memory one HTTP/2 session may hold in nghttp2 (header tables, queued frames, unsent data), in MB; past it,
 * new streams are refused with ENHANCE_YOUR_CALM (Node's `maxSessionMemory`; its default).
 */
export const HTTP2_MAX_SESSION_MEMORY_MB = 10;

/** What an HTTP/2 port needs besides its request handler. */
export interface Http2PortOptions {
  /** SETTINGS_MAX_CONCURRENT_STREAMS announced to every client (`http.http2MaxConcurrentStreams`). */
  readonly maxConcurrentStreams: number;
  /**
   * How long a stream may go without receiving a byte before its request body is complete, in milliseconds
   * (`http.requestTimeoutMs`): then it is cancelled. Once its body is complete the stream has no such bound (the
   * pipeline's `responseTimeoutMs` and the answer's `clientReadTimeoutMs` take over).
   */
  readonly requestTimeoutMs: number;
  /**
   * How long a session with no open stream stays open, in milliseconds (`http.keepAliveTimeoutMs`); then it gets
   * GOAWAY and closes. 0: no bound.
   */
  readonly idleTimeoutMs: number;
  /**
   * How long a plain connection may take to send the bytes that tell its protocol, in milliseconds
   * (`http.headersTimeoutMs`): then it is closed. Once handed on, the HTTP/1.1 server's own timeouts apply.
   */
  readonly prefaceTimeoutMs: number;
  /** Serve HTTPS (ALPN `h2` and `http/1.1`) with these options; absent: h2c with prior knowledge beside HTTP/1.1. */
  readonly tls?: LoadedTls;
}

/** A port's server as the listener registry drives it, whatever protocols it speaks. */
export interface PortServer {
  /** The server that listens and accepts: `listen`, `address`, `'connection'`, `'close'`, `'error'`. */
  readonly acceptor: NetServer;
  /** Swaps the TLS material for connections made from now on (HTTPS only). */
  setSecureContext(options: TlsOptions): void;
  /**
   * Sends GOAWAY to every HTTP/2 session: the client opens no new stream on it, the streams it opened go on and
   * are answered, then the session closes. Nothing for HTTP/1.1 connections.
   */
  goAway(): void;
  /** Closes what has no request in progress: idle HTTP/1.1 keep-alive connections, and GOAWAY as {@link goAway}. */
  closeIdle(): void;
  /** Cuts every connection now. */
  closeAll(): void;
  /** Stops listening, and clears the HTTP/1.1 server's connection-checking timer. */
  close(): void;
}

/**
 * The handler of every request: Node's `IncomingMessage` and `ServerResponse` for HTTP/1.1, the origin's
 * `Http2Request` and `Http2Response` for HTTP/2 (src/http/http2-exchange.ts, decision 0120).
 */
export type RequestHandler = (req: OriginRequest, res: OriginResponse) => void;

/**
 * A port that serves HTTP/2 beside HTTP/1.1 (decision 0095). With TLS: one `Http2SecureServer` with
 * `allowHTTP1`, whose ALPN offers `h2` and `http/1.1`; `http1.configure` gives it the HTTP/1.1 timeouts and
 * answers of an origin's HTTP/1.1 server. Without TLS: a `net.Server` that reads the first bytes of every
 * connection and hands it, those bytes put back, to an HTTP/2 server when they are the HTTP/2 connection preface,
 * else to the HTTP/1.1 server `http1.create` makes. Neither inner server listens.
 *
 * Every HTTP/2 stream is one request for `onRequest`, served through Node's stream API (not its compatibility
 * API, decision 0120). The abuses of HTTP/2 are bounded here and by nghttp2
 * (decision 0097): header lists ({@link HTTP2_MAX_HEADER_LIST_BYTES}, {@link HTTP2_MAX_HEADER_PAIRS}), session
 * memory ({@link HTTP2_MAX_SESSION_MEMORY_MB}), streams per connection, rapid reset (a count of reset streams per
 * session), SETTINGS and PING floods (nghttp2), idle sessions, and streams whose request stalls. See
 * docs/http2.md.
 */
export function createHttp2Port(
  onRequest: RequestHandler,
  options: Http2PortOptions,
  http1: {
    /** Makes the HTTP/1.1 server of a plain port (not listening). */
    readonly create: () => HttpServer;
    /** Gives the TLS port the HTTP/1.1 timeouts and answers of the origin's HTTP/1.1 server. */
    readonly configure: (server: Http2SecureServer) => void;
  },
): PortServer {
  const sessions = new Set<Http2Session>();
  const deadlines = new PortDeadlines();
  const h2Options = {
    settings: {
      maxConcurrentStreams: options.maxConcurrentStreams,
      maxHeaderListSize: HTTP2_MAX_HEADER_LIST_BYTES,
      enablePush: false,
    },
    maxHeaderListPairs: HTTP2_MAX_HEADER_PAIRS,
    maxSessionMemory: HTTP2_MAX_SESSION_MEMORY_MB,
  };
  if (options.tls) {
    // `noDelay`: HTTP/1.1 connections go without Nagle's algorithm, as on Node's own HTTPS server (HTTP/2 sessions
    // turn it off themselves).
    const server = createSecureServer({
      ...options.tls.options,
      ...h2Options,
      allowHTTP1: true,
      noDelay: true,
    });
    http1.configure(server);
    watchSessions(server, sessions, deadlines, options, onRequest);
    // The HTTP/1.1 requests of an `allowHTTP1` server come as 'request' events. Listening to them makes Node set up
    // its compatibility API for HTTP/2 streams too (a server 'stream' listener that wraps every stream): that
    // listener goes, as the sessions' streams are served through the stream API.
    server.on('request', onRequest);
    server.removeAllListeners('stream');
    return {
      acceptor: server,
      setSecureContext: (tls) => server.setSecureContext(tls),
      goAway: () => goAway(sessions),
      closeIdle: () => {
        // The HTTP/1.1 connections of an `allowHTTP1` server are in the list http.Server keeps.
        HttpServer.prototype.closeIdleConnections.call(server);
        goAway(sessions);
      },
      // The HTTP/1.1 connections of an `allowHTTP1` server are in the list http.Server keeps.
      closeAll: () => closeAll(sessions, server as unknown as HttpServer),
      close: () => {
        deadlines.clearAll();
        server.close();
      },
    };
  }
  const h2 = createHttp2Server(h2Options);
  watchSessions(h2, sessions, deadlines, options, onRequest);
  const h1 = http1.create();
  // Starts the HTTP/1.1 server's connection tracking (request and headers timeouts), which Node begins on
  // 'listening'; the server never listens itself.
  h1.emit('listening');
  // Connections that have not told their protocol yet: idle for closeIdle, like a fresh HTTP/1.1 connection.
  const undecided = new Set<Socket>();
  // `noDelay` as Node's HTTP server sets it: without it, every HTTP/1.1 answer waited on Nagle's algorithm and the
  // kernel spent about 4 µs more per request (CPU profile of bench --http2's h1on2).
  const acceptor = createNetServer({ noDelay: true }, (socket) =>
    sniffPreface(socket, h1, h2, options.prefaceTimeoutMs, undecided),
  );
  const closeUndecided = (): void => {
    for (const socket of undecided) socket.destroy();
  };
  return {
    acceptor,
    setSecureContext: () => undefined,
    goAway: () => goAway(sessions),
    closeIdle: () => {
      closeUndecided();
      h1.closeIdleConnections();
      goAway(sessions);
    },
    closeAll: () => {
      closeUndecided();
      closeAll(sessions, h1);
    },
    close: () => {
      deadlines.clearAll();
      // Clears the HTTP/1.1 server's connection-checking timer; it holds no listening handle to close.
      h1.close();
      NetServer.prototype.close.call(acceptor);
    },
  };
}

/**
 * Reads a connection's first bytes until they either are the HTTP/2 preface or cannot become it, then puts them
 * back and hands the connection to the server of its protocol; one that has not told within `timeoutMs` is
 * closed; until it has told, it is in `undecided`. A connection the registry refused meanwhile (beyond `maxConnections`, answered and ending) goes to
 * neither: what it sends is read and dropped.
 */
function sniffPreface(
  socket: Socket,
  h1: HttpServer,
  h2: Http2Server,
  timeoutMs: number,
  undecided: Set<Socket>,
): void {
  let seen: Buffer | undefined;
  undecided.add(socket);
  socket.once('close', () => undecided.delete(socket));
  // A connection that sends nothing reaches neither server's timeouts: it is bounded here.
  socket.setTimeout(timeoutMs, () => socket.destroy());
  const onData = (chunk: Buffer): void => {
    seen = seen === undefined ? chunk : Buffer.concat([seen, chunk]);
    const compared = Math.min(seen.length, HTTP2_PREFACE.length);
    const isHttp2 = seen.compare(HTTP2_PREFACE, 0, compared, 0, compared) === 0;
    if (isHttp2 && seen.length < HTTP2_PREFACE.length) return;
    socket.off('data', onData);
    socket.setTimeout(0);
    undecided.delete(socket);
    if (socket.writableEnded || socket.destroyed) return;
    socket.pause();
    socket.unshift(seen);
    if (isHttp2) {
      // The session reads what is in the socket's buffer itself, then takes over the socket's handle.
      h2.emit('connection', socket);
    } else {
      h1.emit('connection', socket);
      socket.resume();
    }
  };
  socket.on('data', onData);
}

/**
 * Keeps the port's sessions, bounds each one's idle time, its resets and each stream's stalled request, and hands
 * each stream to `onRequest`.
 */
function watchSessions(
  server: Http2Server | Http2SecureServer,
  sessions: Set<Http2Session>,
  deadlines: PortDeadlines,
  options: Http2PortOptions,
  onRequest: RequestHandler,
): void {
  const maxResets = Math.max(MIN_RESETS_PER_SECOND, 2 * options.maxConcurrentStreams);
  server.on('session', (session: Http2Session) => {
    sessions.add(session);
    // A session error (a flood nghttp2 detected, a protocol error) ends that session only.
    session.on('error', ignore);
    const watch = new SessionWatch(session, maxResets, deadlines, options.idleTimeoutMs);
    session.once('close', () => {
      sessions.delete(session);
      watch.ended();
    });
    // Node's proxy of the connection, made once per session: what a request reads of its socket (at once: the
    // proxy throws once the session is destroyed).
    const socket: Socket = session.socket;
    // The session's own 'stream' event, not the server's: a stream the client reset in the same read as its
    // HEADERS is emitted already closed, without its session.
    session.on(
      'stream',
      (stream: ServerHttp2Stream, headers: IncomingHttpHeaders, _flags: number, rawHeaders: string[]) => {
        const times = new StreamTimes(stream);
        watch.stream(times, options.requestTimeoutMs);
        // A stream reset before it was seen is served too: the request path counts it as an aborted request. One
        // of a session ended meanwhile (the stream was one reset too many) is not: its connection is gone.
        if (!session.destroyed) serveStream(times, headers, rawHeaders, socket, deadlines, onRequest);
      },
    );
  });
  // A TLS handshake that fails, or a client that sends garbage in place of a preface, concerns that client only.
  server.on('sessionError', ignore);
}

/**
 * Streams that end in a reset (RST_STREAM with an error code, from the client or a timeout here), per session and
 * second, beyond which the session ends (rapid reset, CVE-2023-44487): at least this many, and twice the streams a
 * session may have open. Browsers cancel streams when a page moves on, a few at a time.
 */
const MIN_RESETS_PER_SECOND = 200;

/**
 * The deadlines of a port's streams (decision 0120): one timer for the requests that must arrive whole within
 * `requestTimeoutMs` (as on HTTP/1.1, Node's `requestTimeout`), and one for the answers their clients have not
 * read (`clientReadTimeoutMs`, {@link Http2Response.setTimeout}).
 */
class PortDeadlines {
  /**
   * A request still incomplete at its deadline has its stream cancelled. One whose body was read to its end is
   * left alone: its deadline is not taken away at its end (a listener per stream), only when the stream closes.
   */
  readonly requests = new StreamDeadlines((stream) => {
    if (!stream.readableEnded) stream.close(constants.NGHTTP2_CANCEL);
  });
  readonly unreadAnswers = new StreamDeadlines(watchUnreadAnswer);
  /** A session without a stream open since its deadline gets GOAWAY and closes (decision 0131). */
  readonly idleSessions = new StreamDeadlines<Http2Session>((session) => {
    if (!session.closed && !session.destroyed) session.close();
  });

  /** A stream closed: it has no deadline any more. */
  closed(times: StreamTimes): void {
    this.requests.clear(times.request);
    this.unreadAnswers.clear(times.answer);
  }

  clearAll(): void {
    this.requests.clearAll();
    this.unreadAnswers.clearAll();
    this.idleSessions.clearAll();
  }
}

/** Where a stream keeps its {@link StreamTimes}, for the session's `'close'` listener. */
const STREAM_TIMES = Symbol('rest-service-origin.streamTimes');

interface TimedStream extends ServerHttp2Stream {
  [STREAM_TIMES]?: StreamTimes;
}

/**
 * One stream's two deadlines (its request's, its answer's), made when the stream opens: each is that stream's
 * place in one of the port's lists ({@link PortDeadlines}), so that setting and clearing one finds it at once. The
 * stream carries it, so that its `'close'` listener can be one function per session: a closure per stream in a
 * stream's listener array is what a listener array V8 allocated straight in the old generation (it does so once
 * long-lived connections made that allocation site "tenured") would keep alive, and with it the stream and its
 * request, until a full collection (decision 0130).
 */
class StreamTimes {
  readonly stream: ServerHttp2Stream;
  readonly request: Deadline;
  readonly answer: Deadline;

  constructor(stream: ServerHttp2Stream) {
    this.stream = stream;
    this.request = new Deadline(stream);
    this.answer = new Deadline(stream);
    (stream as TimedStream)[STREAM_TIMES] = this;
  }
}

/**
 * One session's open streams, its idle time, and its streams that ended in a reset within the current second.
 *
 * A session with no stream open for `idleTimeoutMs` (`http.keepAliveTimeoutMs`) gets GOAWAY and closes: its
 * deadline is set when it opens and whenever its last open stream closes, and cleared when a stream opens, in the
 * port's list (decision 0131). Node's own session timer (`session.setTimeout`) would be restarted by every frame
 * read or written, several times per request, and would let a client that only pings hold its connection.
 */
class SessionWatch {
  readonly #session: Http2Session;
  readonly #maxResets: number;
  readonly #deadlines: PortDeadlines;
  readonly #idle: Deadline<Http2Session>;
  readonly #idleTimeoutMs: number;
  #openStreams = 0;
  #resetsSince = 0;
  #resets = 0;

  /** The 'close' listener of every stream of the session: one function per session, not a closure per stream. */
  readonly #closed = closeListener(this);

  constructor(session: Http2Session, maxResets: number, deadlines: PortDeadlines, idleTimeoutMs: number) {
    this.#session = session;
    this.#maxResets = maxResets;
    this.#deadlines = deadlines;
    this.#idle = new Deadline(session);
    this.#idleTimeoutMs = idleTimeoutMs;
    this.#idleFromNow();
  }

  /** The session closed: it has no idle deadline any more. */
  ended(): void {
    this.#deadlines.idleSessions.clear(this.#idle);
  }

  #idleFromNow(): void {
    if (this.#idleTimeoutMs > 0) this.#deadlines.idleSessions.set(this.#idle, this.#idleTimeoutMs);
  }

  /** A stream of the session closed: no longer open, its deadlines gone, and counted if it ended in a reset. */
  closed(times: StreamTimes): void {
    if (--this.#openStreams === 0) this.#idleFromNow();
    this.#deadlines.closed(times);
    if (times.stream.rstCode !== constants.NGHTTP2_NO_ERROR) this.#reset();
  }

  /** A new stream: counted while open; bounded while its request is incomplete. */
  stream(times: StreamTimes, requestTimeoutMs: number): void {
    const { stream } = times;
    stream.on('error', ignore);
    if (stream.destroyed) {
      if (stream.rstCode !== constants.NGHTTP2_NO_ERROR) this.#reset();
      return;
    }
    if (this.#openStreams++ === 0) this.#deadlines.idleSessions.clear(this.#idle);
    // 'close' comes once: `on` spares the wrapper `once` makes.
    stream.on('close', this.#closed);
    // Bounds a request whose body stalls; lifted once the body is complete. The pace of a body being read and
    // the queue's wait are bounded by the request path as on HTTP/1.1. A request without a body (END_STREAM on its
    // HEADERS) is complete already.
    if (requestTimeoutMs > 0 && !stream.endAfterHeaders)
      this.#deadlines.requests.set(times.request, requestTimeoutMs);
  }

  /**
   * Counts a stream that ended in a reset; past the limit within one second the session is sent GOAWAY
   * ENHANCE_YOUR_CALM and destroyed, its streams with it. nghttp2's own reset limit and Node's rejected-stream
   * limit stop such a flood too, but leave the connection open (measured on Node 20): this closes it.
   */
  #reset(): void {
    const session = this.#session;
    if (session.destroyed) return;
    const now = performance.now();
    if (now - this.#resetsSince > 1000) {
      this.#resetsSince = now;
      this.#resets = 0;
    }
    if (++this.#resets > this.#maxResets) {
      session.destroy(new Error('HTTP/2 rapid reset'), constants.NGHTTP2_ENHANCE_YOUR_CALM);
    }
  }
}

/**
 * Hands one stream to `onRequest` as an {@link Http2Request} and its {@link Http2Response}, after the expectation
 * step HTTP/1.1 has too: `Expect: 100-continue` gets its interim 100 at once (Node's HTTP/1.1 server sends it
 * too, so a client that waits for it sends its body), any other expectation 417 without the origin.
 */
function serveStream(
  times: StreamTimes,
  headers: IncomingHttpHeaders,
  rawHeaders: string[],
  socket: Socket,
  deadlines: PortDeadlines,
  onRequest: RequestHandler,
): void {
  const { stream } = times;
  const { expect } = headers;
  if (expect !== undefined && !stream.destroyed) {
    if (expect.toLowerCase() !== '100-continue') {
      stream.respond({ ':status': 417 }, { endStream: true });
      return;
    }
    stream.additionalHeaders({ ':status': 100 });
  }
  const req = new Http2Request(stream, headers, rawHeaders, socket);
  onRequest(req, new Http2Response(req, deadlines.unreadAnswers, times.answer));
}

/** A stream 'close' listener (Node calls it with the stream as `this`) that tells `watch`. */
function closeListener(watch: SessionWatch): (this: TimedStream) => void {
  return function closed(this: TimedStream): void {
    const times = this[STREAM_TIMES];
    if (times === undefined) return;
    // A closed stream may still be pointed at by a dead table of Node's in the old generation (the session's map of
    // its streams, decision 0130): it should hold as little as possible.
    this[STREAM_TIMES] = undefined;
    watch.closed(times);
  };
}

/** GOAWAY to every session: no new streams, open ones finish, then the session closes. */
function goAway(sessions: ReadonlySet<Http2Session>): void {
  for (const session of sessions) if (!session.closed) session.close();
}

function closeAll(sessions: ReadonlySet<Http2Session>, h1: HttpServer): void {
  for (const session of sessions) session.destroy();
  HttpServer.prototype.closeAllConnections.call(h1);
}

function ignore(): void {}

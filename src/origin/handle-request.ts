import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AuthenticationOutcome, Authenticator } from '../auth/authenticator';
import { ERROR_TABLE, formatMessage, type ErrorCode } from '../errors/error-table';
import { OriginError, isOriginError } from '../errors/origin-error';
import type { ParseFailure, ParseResult, ParseSource, ParsedRecord, Parser } from '../formats/data-format';
import { bodyTooLargeError, declaredLengthTooLarge, readBody } from '../http/body-reader';
import {
  ACCEPTED_CONTENT_ENCODINGS,
  checkContentEncoding,
  type ContentCoding,
} from '../http/content-encoding';
import { cancelUnreadAnswer, isHttp2, stopUnreadBody, wasReset } from '../http/http2-stream';
import { lingerOnClose } from '../http/lingering-close';
import { createRequestBatch, type Batch } from '../pipeline/batch';
import type { ResponseSink } from '../pipeline/response-sink';
import { applyRecordErrorPolicy } from './record-error-policy';
import { FINISHED_RUN, type RunProgress, type RunnerPool } from '../pipeline/runner-pool';
import { ListMapShape } from '../record/list-map';
import { renderedBodyLength, type RenderedResponse } from '../response/json-response';
import type { ResponseRenderer } from '../response/response-renderer';
import { BufferedResponseSink } from '../response/buffered-response-sink';
import type { Admission, ReleaseSlot, SlotWaiter } from './admission';
import { applicationIdOf, type ApplicationIdList } from './application-id';
import { ALLOWED_METHODS, REFUSED_METHODS } from './methods';
import type { OriginConfig } from './config';
import type { BatchDeadlines } from './batch-deadlines';
import type { BatchSignals } from './batch-signals';
import type { BodyPlan } from './body-plan';
import type { HeapGuard } from './heap-guard';
import type { InFlight } from './in-flight';
import type { OriginMetrics } from './origin-metrics';
import { IncomingRequestInfo, type RequestAttributeSources } from './request-info';

/**
 * Notifications the request path gives the origin (events and diagnostics). `listening` says which of them anyone
 * listens to right now; the request path builds a notification's object only then (most origins have no
 * listener, and those objects were a measurable share of a small request).
 */
export interface RequestObserver {
  readonly listening: { readonly request: boolean; readonly batch: boolean; readonly rejection: boolean };
  request(info: { requestId: string; method: string; path: string; remoteHost: string }): void;
  batch(info: {
    requestId: string;
    records: number;
    errorRecords: number;
    status: number;
    durationMs: number;
  }): void;
  rejection(info: { requestId: string; code: ErrorCode; status: number; message: string }): void;
}

/** Everything the request path needs from its origin. Built once per origin start. */
export interface RequestContext {
  readonly config: OriginConfig;
  /** How every request body is read: limit and parser factory, decided once per origin. */
  readonly body: BodyPlan;
  /** Decides who sent a request, before the application ID check; `undefined` when no method applies. */
  readonly authenticator: Authenticator | undefined;
  readonly applicationIds: ApplicationIdList;
  readonly admission: Admission;
  /** Refuses new requests, and stops body reads, while the process heap is nearly full (decision 0040). */
  readonly heap: HeapGuard;
  readonly runners: RunnerPool;
  readonly metrics: OriginMetrics;
  readonly observer: RequestObserver;
  /** Renders answers in the configured response format. */
  readonly renderer: ResponseRenderer;
  /** The batches running now and their response deadlines; `destroy()` gives up on each of them. */
  readonly runningBatches: BatchDeadlines;
  readonly batchSignals: BatchSignals;
  /** The requests being handled now; `handleRequest` enters on arrival and leaves once the answer is written. */
  readonly inFlight: InFlight;
  /** What a request's header attributes are made of besides its headers (decided once per origin). */
  readonly attributeSources: RequestAttributeSources;
  isClosing(): boolean;
  nextRequestId(): string;
  /** Called when a record failed under onRecordError `stopPipeline`, after the client has its 500 answer. */
  stopPipeline(error: OriginError): void;
}

/**
 * The request path of DESIGN.md §2, top to bottom: cheap refusals (method, closing), authentication, more cheap
 * refusals (application ID, encoding, declared size), admission, body → records, On Record Error, batch →
 * runners, response. Every step that refuses throws an {@link OriginError}, which becomes the answer. Never
 * throws itself; the promise settles once the answer is written and never rejects. The origin's own listener
 * calls {@link serveRequest}, which needs no promise.
 */
export function handleRequest(ctx: RequestContext, req: IncomingMessage, res: ServerResponse): Promise<void> {
  return new Promise<void>((resolve) => serveRequest(ctx, req, res, resolve));
}

/**
 * {@link handleRequest} without a promise: `answered`, when given, is called once the answer is written;
 * `identity`, when given, is the caller the gateway authenticated (record header attributes of decision 0038). A
 * request whose body is not encoded and whose pipeline finishes synchronously (the echo microservice) goes from
 * the body's last chunk to its answer in one call stack, with no promise and no tick.
 */
export function serveRequest(
  ctx: RequestContext,
  req: IncomingMessage,
  res: ServerResponse,
  answered?: () => void,
  identity?: Readonly<Record<string, string>>,
): void {
  const served = new ServedRequest(ctx, req, res, answered);
  // The gateway authenticated the caller itself (spec §5); the origin then has no authenticator of its own.
  if (identity !== undefined) served.identify(identity);
  served.start();
}

const NO_CODINGS: readonly ContentCoding[] = Object.freeze([]);
const NO_HEADERS: Readonly<Record<string, string>> = Object.freeze({});

/**
 * One request on its way through the path. Each step is a method that either goes on to the next (directly, or
 * from the callback of what it waited for) or ends in {@link ServedRequest.fail}; {@link ServedRequest.finish}
 * runs exactly once. One object per request instead of an async function's promises and closures: the step
 * methods are shared by every request.
 */
class ServedRequest implements SlotWaiter {
  readonly #ctx: RequestContext;
  readonly #req: IncomingMessage;
  readonly #res: ServerResponse;
  readonly #answered: (() => void) | undefined;
  readonly #info: IncomingRequestInfo;
  readonly #startedAt: number;
  #release: ReleaseSlot | undefined;
  /** The request's Content-Encoding, read once by the early refusals. */
  #codings: readonly ContentCoding[] = NO_CODINGS;
  #parse: BodyParse | undefined;
  /** Headers every answer to this request carries: the authenticator's challenge or mutual token. */
  #replyHeaders: Readonly<Record<string, string>> = NO_HEADERS;
  #bodyRead = false;
  #finished = false;
  /** `fail` has begun answering: its answer may wait for the rest of a small body. */
  #refusing = false;

  constructor(
    ctx: RequestContext,
    req: IncomingMessage,
    res: ServerResponse,
    answered: (() => void) | undefined,
  ) {
    this.#ctx = ctx;
    this.#req = req;
    this.#res = res;
    this.#answered = answered;
    this.#startedAt = performance.now();
    this.#info = new IncomingRequestInfo(ctx.nextRequestId(), req, ctx.attributeSources);
  }

  /** Sets the caller's identity attributes decided before the request reached the origin (the gateway's). */
  identify(identity: Readonly<Record<string, string>>): void {
    this.#info.identity = identity;
  }

  start(): void {
    const ctx = this.#ctx;
    ctx.inFlight.enter();
    const info = this.#info;
    if (ctx.observer.listening.request) {
      ctx.observer.request({
        requestId: info.requestId,
        method: info.method,
        path: info.path,
        remoteHost: info.remoteHost,
      });
    }
    const { method } = info;
    if (REFUSED_METHODS.has(method)) {
      return this.fail(new OriginError('ORIGIN_HTTP_METHOD_NOT_ALLOWED', { method }));
    }
    if (ctx.isClosing()) return this.fail(new OriginError('ORIGIN_HTTP_CLOSING'));
    // Without authentication (the common case) the request goes on with no outcome object and no promise.
    const { authenticator } = ctx;
    if (authenticator === undefined) return this.authorized();
    this.#authenticate(authenticator);
  }

  /** Passed authentication (or there is none): the remaining cheap refusals, then a request slot. */
  authorized(): void {
    const ctx = this.#ctx;
    try {
      this.#codings = refuseEarly(ctx, this.#req, this.#info, this.#startedAt);
    } catch (error) {
      return this.fail(error);
    }
    const release = ctx.admission.tryAcquire();
    if (release) return this.granted(release);
    ctx.admission.wait(this);
  }

  /** What the authenticator decided, at once or later: a refusal with its challenge, or the caller's identity. */
  authenticated(outcome: AuthenticationOutcome): void {
    if (!outcome.ok) {
      this.#replyHeaders = { 'WWW-Authenticate': outcome.challenge };
      return this.fail(outcome.error);
    }
    this.#info.identity = outcome.identity;
    if (outcome.replyHeaders !== undefined) this.#replyHeaders = outcome.replyHeaders;
    // The origin may have begun to close while an asynchronous authenticator worked.
    if (this.#ctx.isClosing()) return this.fail(new OriginError('ORIGIN_HTTP_CLOSING'));
    this.authorized();
  }

  #authenticate(authenticator: Authenticator): void {
    authenticate(
      authenticator,
      this.#req,
      (outcome) => this.authenticated(outcome),
      (error) => this.fail(error),
    );
  }

  /** Holds a request slot now (at once, or after waiting in the admission queue): reads the body. */
  granted(release: ReleaseSlot): void {
    this.#release = release;
    const ctx = this.#ctx;
    const codings = this.#codings;
    const req = this.#req;
    try {
      // Per request: formats that keep state per exporter (NetFlow v9 templates) key it by the client's address.
      const source: ParseSource = {
        remoteAddress: req.socket.remoteAddress,
        originState: ctx.body.originState,
      };
      const parse = (this.#parse = new BodyParse(
        ctx.body.createParser(source),
        ctx.body.maxRecords,
        ctx.heap,
      ));
      // An unencoded body (nearly every request) reads with the plan's own options object.
      const { pace } = ctx.body;
      const options =
        codings.length === 0
          ? ctx.body.unencoded
          : { ...ctx.body.limit, codings, ...(pace === undefined ? {} : { pace }) };
      readBody(req, options, parse.onChunk, (error, bytes) => {
        if (error === undefined) this.bodyRead(bytes);
        else this.fail(error);
      });
    } catch (error) {
      this.fail(error);
    }
  }

  bodyRead(bytes: number): void {
    this.#bodyRead = true;
    const ctx = this.#ctx;
    let batch: Batch;
    let running: Promise<void> | undefined;
    // An HTTP/2 stream reset after its last byte came, before its batch is handed on: aborted all the same.
    if (wasReset(this.#req)) return this.fail(new OriginError('ORIGIN_HTTP_BODY_ABORTED'));
    try {
      ctx.metrics.countBytes(bytes);
      batch = batchOf(ctx, this.#parse!.finish(bytes), this.#info);
      this.#parse = undefined;
      running = runBatch(ctx, batch);
    } catch (error) {
      return this.fail(error);
    }
    if (running === undefined) return this.respond(batch);
    running.then(
      () => this.respond(batch),
      (error: unknown) => this.fail(error),
    );
  }

  respond(batch: Batch): void {
    // The origin made the batch with a BufferedResponseSink: a stage may not replace it (Batch is read-only).
    const sink = batch.response as ResponseSink;
    const { renderer } = this.#ctx;
    if (renderer.validated) {
      renderer.validated(sink).then(
        (rendered) => this.answer(batch, rendered),
        (error: unknown) => this.fail(error),
      );
      return;
    }
    let rendered: RenderedResponse;
    try {
      rendered = renderer.response(sink);
    } catch (error) {
      return this.fail(error);
    }
    this.answer(batch, rendered);
  }

  answer(batch: Batch, rendered: RenderedResponse): void {
    const ctx = this.#ctx;
    try {
      send(ctx, this.#res, rendered, this.#replyHeaders);
    } catch (error) {
      return this.fail(error);
    }
    const durationMs = performance.now() - this.#startedAt;
    ctx.metrics.countRequest('answered', rendered.status, durationMs);
    if (ctx.observer.listening.batch) {
      ctx.observer.batch({
        requestId: this.#info.requestId,
        records: batch.records.length,
        errorRecords: batch.errorRecords.length,
        status: rendered.status,
        durationMs,
      });
    }
    this.finish();
  }

  /** No slot for the request (queue full or wait ran out, origin closing). */
  refused(error: OriginError): void {
    this.fail(error);
  }

  /** Answers with the envelope of what stopped the request, unless it was answered already. */
  fail(thrown: unknown): void {
    if (this.#finished || this.#refusing) return;
    this.#refusing = true;
    const ctx = this.#ctx;
    const error = asOriginError(thrown);
    // The slot goes first, as it would from a `finally`: the next request need not wait for this answer.
    this.#releaseSlot();
    refuse(ctx, this.#req, this.#res, error, {
      requestId: this.#info.requestId,
      bodyRead: this.#bodyRead,
      startedAt: this.#startedAt,
      headers: this.#replyHeaders,
      // The answer may wait for the rest of a small body (drainSmallBody); the request is done once it is written.
      written: () => this.finish(),
    });
    if (error.code === 'ORIGIN_PIPELINE_STOPPED') ctx.stopPipeline(error);
  }

  finish(): void {
    if (this.#finished) return;
    this.#finished = true;
    this.#releaseSlot();
    this.#ctx.inFlight.leave();
    this.#answered?.();
  }

  #releaseSlot(): void {
    const release = this.#release;
    this.#release = undefined;
    release?.();
  }
}

/** Answers a request with the envelope of `error` (also used for requests a shared port cannot route). */
export function refuse(
  ctx: Pick<RequestContext, 'config' | 'metrics' | 'observer' | 'isClosing' | 'renderer'>,
  req: IncomingMessage,
  res: ServerResponse,
  error: OriginError,
  request: {
    requestId: string;
    bodyRead: boolean;
    startedAt: number;
    /** Headers the answer carries besides those of the status (`WWW-Authenticate`). */
    headers?: Readonly<Record<string, string>>;
    /** Called once the answer is written (at once, or after the rest of a small body was read). */
    written?: () => void;
  },
): void {
  const rendered = ctx.renderer.rejection(
    error.httpStatus,
    ctx.config.httpResponse.sendErrorDetails ? error.describe() : describeToClient(error, request.requestId),
  );
  const headers: Record<string, string> = { ...request.headers };
  if (error.httpStatus === 503) headers['Retry-After'] = String(ctx.config.http.retryAfterSeconds);
  if (error.httpStatus === 405) headers['Allow'] = ALLOWED_METHODS;
  if (error.httpStatus === 415) headers['Accept-Encoding'] = ACCEPTED_CONTENT_ENCODINGS;
  const answer = (): void => {
    const unread = !request.bodyRead && !req.complete;
    // A large body left unread would be drained by Node to keep the connection alive; closing is cheaper.
    // HTTP/2 has no such header (nor a connection of the request's own): its stream is ended after the answer.
    if (unread && !isHttp2(req)) {
      headers['Connection'] = 'close';
      // The client may still be sending: it must get to read this answer before the connection goes.
      lingerOnClose(req.socket);
    }
    send(ctx, res, rendered, headers);
    if (unread) stopUnreadBody(req);
    request.written?.();
  };
  if (request.bodyRead || req.complete || !drainSmallBody(req, answer)) answer();
  const outcome = error.category === 'pipeline' ? 'failed' : 'rejected';
  ctx.metrics.countRequest(outcome, error.httpStatus, performance.now() - request.startedAt, error.code);
  if (ctx.observer.listening.rejection) {
    ctx.observer.rejection({
      requestId: request.requestId,
      code: error.code,
      status: error.httpStatus,
      message: error.message,
    });
  }
}

/**
 * Answers a request that no origin of a shared port claims by its application ID (403), after the authentication
 * of the origin that answers it: an unauthenticated client gets that origin's 401 and challenge instead, so that
 * it cannot learn which application IDs exist. Origins share a port only with identical TLS settings, basic users
 * included, so the answering origin's basic authentication is every sharer's.
 */
export function refuseUnrouted(
  ctx: RequestContext,
  req: IncomingMessage,
  res: ServerResponse,
  error: OriginError,
): void {
  const request = { requestId: ctx.nextRequestId(), bodyRead: false, startedAt: performance.now() };
  const { authenticator } = ctx;
  if (authenticator === undefined) return refuse(ctx, req, res, error, request);
  const settled = (outcome: AuthenticationOutcome): void => {
    if (outcome.ok) refuse(ctx, req, res, error, { ...request, headers: outcome.replyHeaders ?? NO_HEADERS });
    else
      refuse(ctx, req, res, outcome.error, {
        ...request,
        headers: { 'WWW-Authenticate': outcome.challenge },
      });
  };
  const failed = (thrown: unknown): void => refuse(ctx, req, res, asOriginError(thrown), request);
  authenticate(authenticator, req, settled, failed);
}

/**
 * Asks `authenticator` about `req` and calls `settled` with its outcome, in the same call stack when it answers
 * at once (basic) or when its promise settles (SPNEGO); `failed` when the authenticator itself throws or rejects.
 */
function authenticate(
  authenticator: Authenticator,
  req: IncomingMessage,
  settled: (outcome: AuthenticationOutcome) => void,
  failed: (error: unknown) => void,
): void {
  let outcome: AuthenticationOutcome | Promise<AuthenticationOutcome>;
  try {
    outcome = authenticator.authenticate(req);
  } catch (error) {
    return failed(error);
  }
  if (outcome instanceof Promise) outcome.then(settled, failed);
  else settled(outcome);
}

/**
 * The codes whose `detail` is the message of an error the origin did not write (a stage's exception, an
 * unexpected failure, a renderer's or validator's complaint about the pipeline's records): it may carry paths,
 * queries or secrets, so a client gets it only with `httpResponse.sendErrorDetails` (decision 0046).
 */
const DETAIL_WITHHELD: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  'ORIGIN_PIPELINE_FAILED',
  'ORIGIN_INTERNAL_ERROR',
  'ORIGIN_RESPONSE_RENDER_FAILED',
  'ORIGIN_RESPONSE_SCHEMA_INVALID',
  'ORIGIN_GATEWAY_AUTHENTICATOR_FAILED',
]);

/**
 * `"<CODE> - <message>"` as a client may see it: the message of a {@link DETAIL_WITHHELD} code has its detail
 * replaced by the request's id, which the origin's `rejection` event carries beside the full message.
 */
function describeToClient(error: OriginError, requestId: string): string {
  if (!DETAIL_WITHHELD.has(error.code)) return error.describe();
  const params = { ...error.params, detail: `details withheld (request ${requestId})` };
  return `${error.code} - ${formatMessage(ERROR_TABLE[error.code].message, params)}`;
}

/** A refused request whose declared body is at most this long is read to its end before the answer (0047). */
const DRAINED_BODY_MAX_BYTES = 64 * 1024;
/** How long the rest of such a body may take to arrive before the answer goes anyway. */
const DRAIN_WAIT_MS = 1000;

/**
 * Reads and drops the rest of a small refused body, then calls `answer`; returns false (calling nothing) when
 * the body is not small or the request is gone. Answering while body bytes are still arriving and closing the
 * connection, as Node does after `Connection: close`, makes the kernel reset it: the client then sees
 * `ECONNRESET`, often before it has read the answer (Found 11), and a client that reconnects at once after every
 * such answer fills the port's accept queue, which the kernel resets when the port closes. Read to its end, the
 * body leaves nothing unread and the connection stays alive (or, from a closing origin, closes cleanly). A body
 * still incomplete after {@link DRAIN_WAIT_MS} is answered with `Connection: close` as before.
 */
function drainSmallBody(req: IncomingMessage, answer: () => void): boolean {
  if (req.destroyed || req.readableEnded) return false;
  const declared = Number(req.headers['content-length'] ?? Number.NaN);
  if (!(declared <= DRAINED_BODY_MAX_BYTES)) return false;
  let answered = false;
  const go = (): void => {
    if (answered) return;
    answered = true;
    clearTimeout(timer);
    req.off('end', go);
    req.off('close', go);
    req.off('error', go);
    answer();
  };
  const timer = setTimeout(go, DRAIN_WAIT_MS).unref();
  req.on('end', go);
  req.on('close', go);
  req.on('error', go);
  req.resume();
  return true;
}

/**
 * The refusals after authentication that need no body byte (the heap check last, as it reads the heap); returns
 * the request's Content-Encoding, read once here.
 */
function refuseEarly(
  ctx: RequestContext,
  req: IncomingMessage,
  info: IncomingRequestInfo,
  now: number,
): ContentCoding[] {
  checkApplicationId(ctx, req, info);
  const codings = checkContentEncoding(req.headers['content-encoding']);
  const { limit } = ctx.body;
  if (declaredLengthTooLarge(req.headers, limit.maxRequestBytes)) throw bodyTooLargeError('raw', limit);
  ctx.heap.admit(now);
  return codings;
}

function checkApplicationId(ctx: RequestContext, req: IncomingMessage, info: IncomingRequestInfo): void {
  if (ctx.applicationIds.size === 0) return;
  const inUrl = ctx.config.http.applicationIdInUrl;
  const id = applicationIdOf(req.headers['x-engine-application-id'], info.queryString, inUrl);
  if (id === undefined) {
    throw new OriginError('ORIGIN_APP_ID_MISSING', {
      urlHint: inUrl ? ' or query parameter engineApplicationId' : '',
    });
  }
  if (!ctx.applicationIds.includes(id)) throw new OriginError('ORIGIN_APP_ID_INVALID');
  info.applicationId = id;
}

/** Applies On Record Error to the parse of a body and makes its batch; throws what refuses the whole request. */
function batchOf(ctx: RequestContext, { records, failures }: ParseResult, info: IncomingRequestInfo): Batch {
  const { config } = ctx;
  const outcome = applyRecordErrorPolicy(
    records,
    failures,
    config.general.onRecordError,
    info,
    config.general.name,
  );
  if (outcome.stageFailure) throw failureError(outcome.stageFailure);
  if (outcome.stopFailure) {
    throw new OriginError('ORIGIN_PIPELINE_STOPPED', {
      detail: `${outcome.stopFailure.code} - ${outcome.stopFailure.message}`,
    });
  }
  ctx.metrics.countRecords(outcome.records.length, outcome.errorRecords.length, outcome.discarded);
  return createRequestBatch({
    records: outcome.records,
    errorRecords: outcome.errorRecords,
    request: info,
    response: new BufferedResponseSink(),
  });
}

/** The placeholder record of an empty body (DESIGN.md §6): an empty LIST_MAP marked `emptyPayloadRecord`. */
const EMPTY_PAYLOAD_ATTRIBUTES = Object.freeze({ emptyPayloadRecord: 'true' });

/**
 * Bodies up to this size are gathered and parsed in one `parseAll` call when the parser has one (the whole-body
 * fast path of most requests); a larger body is pushed chunk by chunk, so memory stays bounded by this size plus
 * what the parser holds.
 */
const PARSE_WHOLE_MAX_BYTES = 1 << 20;

/**
 * The parse of one body: chunks are gathered for the parser's whole-body `parseAll` while the body stays under
 * {@link PARSE_WHOLE_MAX_BYTES}, else pushed as they come. One object per request rather than several closures
 * and arrays, most of which a small body never uses.
 *
 * The body's records and failures are counted as the parser yields them: one past `maxRecords` throws
 * `ORIGIN_HTTP_TOO_MANY_RECORDS` (413) from {@link BodyParse.onChunk}, which stops the read, so a body of tiny
 * values never gets to build all its records (decision 0040). A pushed chunk also asks the heap guard whether
 * reading may go on.
 */
class BodyParse {
  readonly #parser: Parser;
  readonly #maxRecords: number;
  readonly #heap: HeapGuard;
  /** Whether chunks are still being gathered for `parseAll` (the parser has one, and the body is small so far). */
  #gathering: boolean;
  /** The body's first chunk while gathering; most bodies arrive in one. */
  #first: Uint8Array | undefined;
  /** The chunks after the first while gathering. */
  #more: Uint8Array[] | undefined;
  #gatheredBytes = 0;
  #records: ParsedRecord[] | undefined;
  #failures: ParseFailure[] | undefined;
  /** Records and failures so far. */
  #yielded = 0;

  constructor(parser: Parser, maxRecords: number, heap: HeapGuard) {
    this.#parser = parser;
    this.#maxRecords = maxRecords;
    this.#heap = heap;
    this.#gathering = parser.parseAll !== undefined;
  }

  /** Takes one decoded chunk (passed to the body reader as is, hence an arrow function). */
  readonly onChunk = (chunk: Uint8Array): void => {
    this.#gatheredBytes += chunk.length;
    if (this.#gathering && this.#gatheredBytes <= PARSE_WHOLE_MAX_BYTES) {
      if (this.#first === undefined) this.#first = chunk;
      else (this.#more ??= []).push(chunk);
      return;
    }
    // Only bodies past the whole-body size get here: small requests never pay for reading the heap.
    this.#heap.keepReading(performance.now());
    if (this.#gathering) {
      this.#gathering = false;
      for (const early of this.#gathered()) this.#collect(this.#parser.push(early));
      this.#first = undefined;
      this.#more = undefined;
    }
    this.#collect(this.#parser.push(chunk));
  };

  /** The body's records and failures, once all its `bytes` were taken. */
  finish(bytes: number): ParseResult {
    if (bytes === 0) return { records: [emptyPayloadRecord()], failures: [] };
    // Nothing was pushed yet: the whole body goes to parseAll, and its result is the body's result.
    if (this.#gathering && this.#parser.parseAll) {
      const more = this.#more;
      const result = this.#parser.parseAll(
        more === undefined ? this.#first! : Buffer.concat(this.#gathered()),
      );
      this.#count(result);
      return result;
    }
    this.#collect(this.#parser.end());
    return { records: this.#records ?? [], failures: this.#failures ?? [] };
  }

  #gathered(): Uint8Array[] {
    if (this.#first === undefined) return [];
    return this.#more === undefined ? [this.#first] : [this.#first, ...this.#more];
  }

  #count(result: ParseResult): void {
    this.#yielded += result.records.length + result.failures.length;
    if (this.#yielded > this.#maxRecords) {
      // What was kept is garbage now; dropping it here frees it before the 413 is even written.
      this.#records = undefined;
      this.#failures = undefined;
      throw new OriginError('ORIGIN_HTTP_TOO_MANY_RECORDS', { limit: this.#maxRecords });
    }
  }

  #collect(result: ParseResult): void {
    this.#count(result);
    if (result.records.length > 0) {
      const records = (this.#records ??= []);
      for (const record of result.records) records.push(record);
    }
    if (result.failures.length > 0) {
      const failures = (this.#failures ??= []);
      for (const failure of result.failures) failures.push(failure);
    }
  }
}

const EMPTY_LIST_MAP = new ListMapShape([]);

function emptyPayloadRecord(): ParsedRecord {
  // A fresh list-map each time: a stage may add fields to it.
  return { value: EMPTY_LIST_MAP.create([]), attributes: EMPTY_PAYLOAD_ATTRIBUTES };
}

/**
 * Runs the batch on a runner, giving up after `responseTimeoutMs` or when the origin is destroyed. Returns
 * `undefined` when the batch is done already (a synchronous pipeline on the in-process pool): the request goes on
 * without a promise or a tick, and without a deadline, which only a run still going when the pool returns
 * needs (no timer can fire during a synchronous run). A batch the pipeline finished is answered with its
 * response even when the pipeline destroyed the origin meanwhile: it was processed (decision 0045). Throws
 * (rather than rejects) what the run failed with when it failed at once.
 */
function runBatch(ctx: RequestContext, batch: Batch): Promise<void> | undefined {
  const deadlines = ctx.runningBatches;
  // Destroyed before the batch started: it never reaches a runner.
  if (deadlines.abandonedWith) throw deadlines.abandonedWith;
  const controller = ctx.batchSignals.take();
  // A pool that does not report starts may have started any batch: each counts as started from the outset.
  const progress = new BatchProgress(ctx.runners.reportsStarts !== true);
  let running: Promise<void>;
  try {
    running = ctx.runners.run(batch, controller.signal, progress);
  } catch (error) {
    // A host's pool that throws instead of rejecting is a failed batch all the same.
    ctx.batchSignals.give(controller);
    throw pipelineError(error);
  }
  if (running === FINISHED_RUN) {
    ctx.batchSignals.give(controller);
    return undefined;
  }
  return awaitRun(ctx, controller, progress, running);
}

/**
 * What the runner pool tells the origin about one batch: whether it reached the pipeline. One small object per
 * batch, handed to `RunnerPool.run`.
 */
class BatchProgress implements RunProgress {
  #started: boolean;

  constructor(started: boolean) {
    this.#started = started;
  }

  get hasStarted(): boolean {
    return this.#started;
  }

  started(): void {
    this.#started = true;
  }
}

/**
 * Settles with the run, or rejects with the give-up (deadline, destroy) that comes first; settling twice is a
 * no-op. One promise rather than a race of two on every request.
 */
function awaitRun(
  ctx: RequestContext,
  controller: AbortController,
  progress: BatchProgress,
  running: Promise<void>,
): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const settle = (): void => {
      ctx.runningBatches.delete(clock);
      ctx.batchSignals.give(controller);
    };
    const clock = ctx.runningBatches.add((reason) => {
      // Decided before the abort: a pool never starts a batch whose signal aborted (RunProgress), and nothing
      // can start it between this line and the next.
      const answer = giveUpAnswer(reason, progress.hasStarted, ctx.config.http.responseTimeoutMs);
      controller.abort(answer);
      settle();
      reject(answer);
    });
    running.then(
      () => {
        settle();
        resolve();
      },
      (error: unknown) => {
        settle();
        reject(pipelineError(error));
      },
    );
  });
}

/**
 * The answer to a batch the origin gives up on (decision 0045). A batch no runner took was withdrawn unprocessed:
 * 503 with `Retry-After` (`ORIGIN_PIPELINE_NOT_STARTED` on timeout, `ORIGIN_HTTP_CLOSING` on destroy). A batch
 * in the pipeline may have been processed: 504 without `Retry-After` (`ORIGIN_PIPELINE_TIMEOUT`,
 * `ORIGIN_PIPELINE_ABANDONED`), so that a client does not resend it blindly.
 */
function giveUpAnswer(reason: OriginError, started: boolean, timeoutMs: number): OriginError {
  const timedOut = reason.code === 'ORIGIN_PIPELINE_TIMEOUT';
  if (started) return timedOut ? reason : new OriginError('ORIGIN_PIPELINE_ABANDONED');
  return timedOut ? new OriginError('ORIGIN_PIPELINE_NOT_STARTED', { timeoutMs }) : reason;
}

function pipelineError(error: unknown): OriginError {
  if (isOriginError(error)) return error;
  const detail = error instanceof Error ? error.message : String(error);
  return new OriginError('ORIGIN_PIPELINE_FAILED', { detail }, { cause: error });
}

function send(
  ctx: Pick<RequestContext, 'isClosing' | 'config'>,
  res: ServerResponse,
  rendered: RenderedResponse,
  extra: Record<string, string>,
): void {
  if (res.headersSent || res.destroyed) return;
  // The rendered headers are this response's own object: add to it rather than copy it.
  const headers: Record<string, string | number> = Object.assign(rendered.headers, extra);
  headers['Content-Length'] = renderedBodyLength(rendered.body);
  const http2 = isHttp2(res.req);
  // A closing HTTP/2 port has sent GOAWAY already, and HTTP/2 forbids the header.
  if (ctx.isClosing() && !http2) headers['Connection'] = 'close';
  res.writeHead(rendered.status, headers);
  res.end(rendered.body);
  // Not all of the answer fits in the socket's buffers: a client that stops reading would hold the rest in memory
  // for good. With no 'timeout' listener, Node destroys the socket when it passes (decision 0044); an HTTP/2
  // stream is cancelled instead, its session going on.
  const { clientReadTimeoutMs } = ctx.config.http;
  if (clientReadTimeoutMs <= 0) return;
  if (http2) cancelUnreadAnswer(res, clientReadTimeoutMs);
  else if (!res.writableFinished) res.setTimeout(clientReadTimeoutMs);
}

function failureError(failure: ParseFailure): OriginError {
  return new OriginError(failure.code, {}, { message: failure.message });
}

function asOriginError(thrown: unknown): OriginError {
  if (isOriginError(thrown)) return thrown;
  const detail = thrown instanceof Error ? thrown.message : String(thrown);
  return new OriginError('ORIGIN_INTERNAL_ERROR', { detail }, { cause: thrown });
}

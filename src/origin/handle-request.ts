// Imported rather than read from the global: Node 20's global `performance` is an accessor that runs a check on
// every read, and the request path reads the clock four times per request.
import { performance } from 'node:perf_hooks';

import type { AuthenticationOutcome, Authenticator } from '../auth/authenticator';
import { ERROR_TABLE, formatMessage, type ErrorCode } from '../errors/error-table';
import { OriginError, isOriginError } from '../errors/origin-error';
import type { ParseFailure, ParseResult, ParsedRecord, Parser } from '../formats/data-format';
import type { DataRecord, RequestRecordSource } from '../record/data-record';
import { bodyTooLargeError, declaredLengthTooLarge, readBody } from '../http/body-reader';
import type { CorsPolicy } from '../http/cors';
import {
  ACCEPTED_CONTENT_ENCODINGS,
  checkContentEncoding,
  type ContentCoding,
} from '../http/content-encoding';
import { isHttp2, stopUnreadBody, wasReset } from '../http/http2-stream';
import type { OriginRequest, OriginResponse } from '../http/origin-exchange';
import { lingerOnClose } from '../http/lingering-close';
import { noteRequestBegun } from '../http/turn-budget';
import {
  notePipelineRun,
  writeAnswersBeforeWork,
  writeAtPassEnd,
  type QueuedAnswer,
} from '../http/pass-end-answers';
import { createRequestBatch, type Batch, type TraceContext } from '../pipeline/batch';
import type { ResponseSink } from '../pipeline/response-sink';
import {
  applyRecordErrorPolicy,
  applyRecordErrorPolicyToRecords,
  requestRecordOf,
} from './record-error-policy';
import { FINISHED_RUN, type RunProgress, type RunnerPool } from '../pipeline/runner-pool';
import { ListMapShape } from '../record/list-map';
import { renderedBodyLength, type RenderedResponse } from '../response/json-response';
import type { ResponseRenderer } from '../response/response-renderer';
import { compressResponse } from '../response/response-compression';
import { BufferedResponseSink } from '../response/buffered-response-sink';
import type { ReleaseSlot, RequestAdmission, SlotWaiter } from './admission';
import { applicationIdOf, type ApplicationIdList } from './application-id';
import { ALLOWED_METHODS, REFUSED_METHODS } from './methods';
import type { OriginConfig } from './config';
import type { BatchDeadlines } from './batch-deadlines';
import type { BatchSignals } from './batch-signals';
import type { BodyPlan } from './body-plan';
import type { HeapGuard } from './heap-guard';
import type { IdempotencyAcquisition, StoredResponse } from '../idempotency/idempotency-store';
import {
  idempotentRequestOf,
  replayedResponse,
  type IdempotencyPlan,
  type IdempotentRequest,
} from './idempotent-request';
import type { MemoryRelease } from './memory-release';
import type { InFlight } from './in-flight';
import { channels } from './diagnostics-channels';
import type { OriginMetrics, ParseFailureAction, RequestOutcome } from './origin-metrics';
import { IncomingRequestInfo, type RequestAttributeSources } from './request-info';
import type { RateLimitKey } from './rate-limit-options';
import { tenantOf, withConcurrencyPolicy, type RateLimits, type RateLimitVerdict } from './rate-limits';
import { renderInTurns, rendersInTurns, type PiecedResponse } from './render-in-turns';

/**
 * Notifications the request path gives the origin (events and diagnostics). `listening` says which of them anyone
 * listens to right now; the request path builds a notification's object only then (most origins have no
 * listener, and those objects were a measurable share of a small request).
 */
export interface RequestObserver {
  readonly listening: { readonly request: boolean; readonly batch: boolean; readonly rejection: boolean };
  request(info: {
    requestId: string;
    method: string;
    path: string;
    remoteHost: string;
    traceContext: TraceContext | undefined;
  }): void;
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
  readonly admission: RequestAdmission;
  /** The per-tenant rate limits (`http.rateLimits`); `undefined` when there are none (decision 0105). */
  readonly rateLimits: RateLimits | undefined;
  /** The key of `http.maxConcurrentRequestsPerKey`, which names a request's tenant to admission (decision 0106). */
  readonly tenantKey: RateLimitKey | undefined;
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
  /** `http.idempotency` with its store; `undefined` when idempotency keys are off. */
  readonly idempotency: IdempotencyPlan | undefined;
  /** The CORS rules with `http.cors.enabled`; `undefined` when off (decision 0115). */
  readonly cors?: CorsPolicy | undefined;
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
export function handleRequest(ctx: RequestContext, req: OriginRequest, res: OriginResponse): Promise<void> {
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
  req: OriginRequest,
  res: OriginResponse,
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
class ServedRequest implements SlotWaiter, QueuedAnswer {
  readonly #ctx: RequestContext;
  readonly #req: OriginRequest;
  readonly #res: OriginResponse;
  readonly #answered: (() => void) | undefined;
  readonly #info: IncomingRequestInfo;
  readonly #startedAt: number;
  #release: ReleaseSlot | undefined;
  /** The request's Content-Encoding, read once by the early refusals. */
  #codings: readonly ContentCoding[] = NO_CODINGS;
  /** The parse of the body, from its read until the request is done (it leaves the memory release then). */
  #parse: BodyParse | undefined;
  /** Headers every answer to this request carries: the authenticator's challenge or mutual token. */
  #replyHeaders: Readonly<Record<string, string>> = NO_HEADERS;
  #bodyRead = false;
  /** The body has no declared length and a byte rate limit applies: charged once read. */
  #chargeAfterRead = false;
  /** `performance.now()` when the request began to wait for a slot; 0 while it has not waited. */
  #queuedAt = 0;
  /**
   * `performance.now()` when the batch was handed to the runner pool; 0 before. Once set, the pipeline may have
   * acted on the batch (decision 0045).
   */
  #runStartedAt = 0;
  /** How long the runner pool took on the batch (milliseconds), once it finished. */
  #runMs = 0;
  /** The request's idempotency key, when keys are on and it sent one (docs/idempotency.md). */
  #idempotent: IdempotentRequest | undefined;
  #finished = false;
  /** `fail` has begun answering: its answer may wait for the rest of a small body. */
  #refusing = false;
  /** The batch and answer queued for the end of the loop's pass (decision 0138); unset before. */
  #answerBatch: Batch | undefined;
  #answerRendered: RenderedResponse | undefined;

  constructor(
    ctx: RequestContext,
    req: OriginRequest,
    res: OriginResponse,
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
    // A large request's turns leave room for this one and the others begun meanwhile (decision 0137).
    noteRequestBegun();
    const info = this.#info;
    // A preflight is the browser asking about CORS, not a request for the pipeline: no `request` event.
    if (ctx.cors !== undefined && this.#preflighted(ctx.cors)) return;
    if (ctx.observer.listening.request) {
      ctx.observer.request({
        requestId: info.requestId,
        method: info.method,
        path: info.path,
        remoteHost: info.remoteHost,
        traceContext: info.traceContext,
      });
    }
    // The origin's span is echoed on every answer, rejections included (decision 0116).
    const trace = info.traceContext;
    if (trace !== undefined) this.#replyHeaders = { ...this.#replyHeaders, traceparent: trace.traceparent };
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

  /**
   * CORS first (decision 0115): a preflight is answered here, before authentication (a preflight never carries
   * credentials, Fetch standard) and the application ID check, and never reaches the pipeline: returns true.
   * Any other request gets the CORS headers on whatever answer it ends with, rejections included.
   */
  #preflighted(cors: CorsPolicy): boolean {
    const { headers } = this.#req;
    if (!cors.isPreflight(this.#info.method, headers)) {
      this.#replyHeaders = cors.answerHeaders(headers.origin);
      return false;
    }
    const answer = cors.preflight(headers);
    this.#replyHeaders = answer.headers;
    if (!answer.allowed) {
      this.fail(new OriginError('ORIGIN_CORS_PREFLIGHT_REFUSED', { detail: answer.reason }));
      return true;
    }
    const res = this.#res;
    if (!res.headersSent && !res.destroyed) {
      const written: Record<string, string> = { ...answer.headers };
      if (this.#ctx.isClosing() && !isHttp2(this.#req)) written['Connection'] = 'close';
      res.writeHead(204, written).end();
    }
    this.#answeredByOrigin(204, 0);
    this.finish();
    return true;
  }

  /** Passed authentication (or there is none): the remaining cheap refusals, then a request slot. */
  authorized(): void {
    const ctx = this.#ctx;
    try {
      this.#codings = refuseEarly(ctx, this.#req, this.#info, this.#startedAt);
      if (ctx.idempotency) this.#idempotent = idempotentRequestOf(ctx.idempotency, this.#req, this.#info);
    } catch (error) {
      return this.fail(error);
    }
    const { rateLimits } = ctx;
    if (rateLimits === undefined) return this.admit();
    rateLimits.check(this.#info, declaredBodyLength(this.#req)).then(
      (verdict) => this.rateLimited(verdict),
      (error: unknown) => this.fail(error),
    );
  }

  /**
   * Counted against the per-tenant rate limits: 429 when over one, else on to admission. After the application ID
   * and before admission, so that the limits know the tenant and a refused request never holds a slot or a place
   * in the queue. Every answer to the request carries the verdict's RateLimit headers.
   */
  rateLimited(verdict: RateLimitVerdict): void {
    const ctx = this.#ctx;
    this.#replyHeaders = { ...this.#replyHeaders, ...verdict.headers };
    if (verdict.refusal !== undefined) {
      for (const key of verdict.refusedBy) ctx.metrics.countRateLimited(key);
      return this.fail(verdict.refusal);
    }
    this.#chargeAfterRead = verdict.chargeAfterRead;
    if (ctx.isClosing()) return this.fail(new OriginError('ORIGIN_HTTP_CLOSING'));
    this.admit();
  }

  /** A request slot at once when one is free, else a place in the queue. */
  admit(): void {
    const ctx = this.#ctx;
    const { tenantKey } = ctx;
    const tenant = tenantKey === undefined ? undefined : tenantOf(tenantKey, this.#info);
    const release = ctx.admission.tryAcquire(tenant);
    if (release) {
      ctx.metrics.countAdmission(0);
      return this.granted(release);
    }
    this.#queuedAt = performance.now();
    ctx.admission.wait(this, tenant);
  }

  /** What the authenticator decided, at once or later: a refusal with its challenge, or the caller's identity. */
  authenticated(outcome: AuthenticationOutcome): void {
    if (!outcome.ok) {
      this.#replyHeaders = { ...this.#replyHeaders, 'WWW-Authenticate': outcome.challenge };
      return this.fail(outcome.error);
    }
    this.#info.identity = outcome.identity;
    if (outcome.replyHeaders !== undefined) {
      this.#replyHeaders = { ...this.#replyHeaders, ...outcome.replyHeaders };
    }
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

  /**
   * Holds a request slot now (at once, or after waiting in the admission queue): reads the body, after asking the
   * idempotency store about the request's key when it has one.
   */
  granted(release: ReleaseSlot): void {
    this.#release = release;
    if (this.#queuedAt !== 0) this.#ctx.metrics.countAdmission(performance.now() - this.#queuedAt);
    const idempotent = this.#idempotent;
    if (idempotent === undefined) return this.read();
    idempotent.begin().then(
      (found) => this.keyed(found),
      (error: unknown) => this.fail(error),
    );
  }

  /** What the store holds for the request's key: nothing (go on, holding its lock), a lock (409), or an answer. */
  keyed(found: IdempotencyAcquisition): void {
    if (found.outcome === 'acquired') return this.read();
    if (found.outcome === 'inFlight') return this.fail(new OriginError('ORIGIN_IDEMPOTENCY_KEY_IN_FLIGHT'));
    this.#readForReplay(found.response);
  }

  /**
   * Reads the body of a repeat whose key has a kept answer, only to digest it (no decoding, no parsing), then
   * replays the answer, or refuses a different request under the same key (422).
   */
  #readForReplay(kept: StoredResponse): void {
    const idempotent = this.#idempotent!;
    const options = { ...this.#ctx.body.unencoded, onRawChunk: idempotent.onRawChunk };
    try {
      readBody(this.#req, options, ignore, (error) => {
        if (error !== undefined) return this.fail(error);
        this.#bodyRead = true;
        if (!idempotent.matches(kept)) return this.fail(new OriginError('ORIGIN_IDEMPOTENCY_KEY_REUSED'));
        this.replay(kept);
      });
    } catch (error) {
      this.fail(error);
    }
  }

  /** Answers with the kept answer of the request's key; the request never reaches the pipeline. */
  replay(kept: StoredResponse): void {
    const ctx = this.#ctx;
    const rendered = replayedResponse(kept);
    let sentBytes: number;
    try {
      sentBytes = send(ctx, this.#res, rendered, this.#replyHeaders);
    } catch (error) {
      return this.fail(error);
    }
    this.#answeredByOrigin(rendered.status, sentBytes);
    ctx.metrics.countReplay();
    this.finish();
  }

  /**
   * Counts an answer the origin gave without the pipeline (a CORS preflight, a replayed idempotent answer): an
   * `answered` request, its bytes, and its end on the diagnostics channel; no batch, so no batch or response size
   * observation.
   */
  #answeredByOrigin(status: number, sentBytes: number): void {
    const ctx = this.#ctx;
    const durationMs = performance.now() - this.#startedAt;
    ctx.metrics.countRequest('answered', status, durationMs);
    ctx.metrics.countSent(sentBytes);
    if (channels.requestEnd.hasSubscribers) {
      publishEnd(ctx, this.#info.requestId, status, 'answered', durationMs, undefined);
    }
  }

  /** Reads the body into records (the request holds its key's lock, if it has a key). */
  read(): void {
    const ctx = this.#ctx;
    const codings = this.#codings;
    const req = this.#req;
    try {
      const parse = (this.#parse = new BodyParse(
        ctx.body.createParser(this.#info.clientAddress),
        ctx.body.maxRecords,
        ctx.heap,
        this.#info,
        ctx.body.release,
        declaredBodyLength(req),
      ));
      // An unencoded body (nearly every request) reads with the plan's own options object.
      const { pace } = ctx.body;
      const plain =
        codings.length === 0
          ? ctx.body.unencoded
          : { ...ctx.body.limit, codings, ...(pace === undefined ? {} : { pace }) };
      const idempotent = this.#idempotent;
      const options = idempotent === undefined ? plain : { ...plain, onRawChunk: idempotent.onRawChunk };
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
    // The parse and the pipeline are this request's work: queued answers go first when it may be long (0138).
    writeAnswersBeforeWork(bytes);
    try {
      ctx.metrics.countBytes(bytes);
      if (this.#chargeAfterRead) ctx.rateLimits?.chargeBody(this.#info, bytes);
      const parse = this.#parse!;
      batch = batchOf(ctx, parse.finish(bytes), this.#info);
      this.#runStartedAt = performance.now();
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
    // The run ended: from here on the time is the origin's (rendering, writing), not the pipeline's.
    this.#runMs = performance.now() - this.#runStartedAt;
    notePipelineRun(this.#runMs);
    // The origin made the batch with a BufferedResponseSink: a stage may not replace it (Batch is read-only).
    const sink = batch.response as ResponseSink;
    const { renderer } = this.#ctx;
    // A huge response (a large body echoed) is rendered over several turns, so other clients are served meanwhile.
    if (rendersInTurns(renderer, sink)) {
      renderInTurns(renderer, sink, (error, pieced) => {
        if (pieced === undefined) this.fail(error);
        else this.answer(batch, pieced);
      });
      return;
    }
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

  /** Keeps the answer for the request's key first, if it holds one, so that a repeat after this answer replays it. */
  answer(batch: Batch, rendered: RenderedResponse | PiecedResponse): void {
    const idempotent = this.#idempotent;
    if (idempotent?.holdsLock) {
      idempotent
        .keep('pieces' in rendered ? joinedPieces(rendered) : rendered)
        .then(() => this.#queueAnswer(batch, rendered), ignore);
      return;
    }
    this.#queueAnswer(batch, rendered);
  }

  /**
   * Queues the answer to be written with the others of this pass of the loop (decision 0138). The slot goes now:
   * the pipeline is done with the batch. An answer in pieces (a large body echoed) took turns of its own already
   * and is written at once.
   */
  #queueAnswer(batch: Batch, rendered: RenderedResponse | PiecedResponse): void {
    if ('pieces' in rendered) return this.answerNow(batch, rendered);
    this.#releaseSlot();
    this.#answerBatch = batch;
    this.#answerRendered = rendered;
    writeAtPassEnd(this);
  }

  /** Writes the queued answer (called by the queue of src/http/pass-end-answers.ts). */
  writeAnswer(): void {
    this.answerNow(this.#answerBatch!, this.#answerRendered!);
  }

  answerNow(batch: Batch, rendered: RenderedResponse | PiecedResponse): void {
    const ctx = this.#ctx;
    let sentBytes: number;
    try {
      sentBytes = send(ctx, this.#res, rendered, this.#replyHeaders);
    } catch (error) {
      return this.fail(error);
    }
    const durationMs = performance.now() - this.#startedAt;
    const sink = batch.response as BufferedResponseSink;
    const { metrics } = ctx;
    metrics.countRequest('answered', rendered.status, durationMs);
    metrics.countAnswer(sentBytes, sink.dataRecords.length, sink.errorRecords.length, this.#runMs);
    if (channels.requestEnd.hasSubscribers) {
      publishEnd(ctx, this.#info.requestId, rendered.status, 'answered', durationMs, undefined);
    }
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
    const ctx = this.#ctx;
    const perKey = ctx.config.http.maxConcurrentRequestsPerKey;
    if (error.code === 'ORIGIN_HTTP_TENANT_BUSY' && perKey !== null) {
      ctx.metrics.countRateLimited(perKey.key);
      this.#replyHeaders = withConcurrencyPolicy(this.#replyHeaders, perKey);
    }
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
    const idempotent = this.#idempotent;
    if (idempotent?.holdsLock) {
      // A batch the pipeline may have acted on keeps its failure (500, 504) for the key; anything refused before
      // it, or withdrawn unstarted (503, decision 0045), frees the key so that a retry is processed.
      const settled =
        this.#runStartedAt !== 0 && error.httpStatus !== 503
          ? idempotent.keep(
              ctx.renderer.rejection(error.httpStatus, clientMessage(ctx, error, this.#info.requestId)),
            )
          : idempotent.release();
      settled.then(() => this.#refuse(error), ignore);
      return;
    }
    this.#refuse(error);
  }

  #refuse(error: OriginError): void {
    const ctx = this.#ctx;
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
    this.#parse?.close();
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
  req: OriginRequest,
  res: OriginResponse,
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
  const rendered = ctx.renderer.rejection(error.httpStatus, clientMessage(ctx, error, request.requestId));
  const headers: Record<string, string> = { ...request.headers };
  // A 409 (the key's first request is still in flight) also invites a retry, after the same pause.
  if (error.httpStatus === 503 || error.httpStatus === 409) {
    headers['Retry-After'] = String(ctx.config.http.retryAfterSeconds);
  }
  // A rate limit's refusal brings its own; another 429 (a tenant's slots busy) waits retryAfterSeconds, never 0.
  if (error.httpStatus === 429)
    headers['Retry-After'] ??= String(Math.max(1, ctx.config.http.retryAfterSeconds));
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
    ctx.metrics.countSent(send(ctx, res, rendered, headers));
    if (unread) stopUnreadBody(req);
    request.written?.();
  };
  if (request.bodyRead || req.complete || !drainSmallBody(req, answer)) answer();
  const outcome = error.category === 'pipeline' ? 'failed' : 'rejected';
  const durationMs = performance.now() - request.startedAt;
  ctx.metrics.countRequest(outcome, error.httpStatus, durationMs, error.code);
  if (channels.requestEnd.hasSubscribers) {
    publishEnd(ctx, request.requestId, error.httpStatus, outcome, durationMs, error.code);
  }
  if (ctx.observer.listening.rejection) {
    ctx.observer.rejection({
      requestId: request.requestId,
      code: error.code,
      status: error.httpStatus,
      message: error.message,
    });
  }
}

/** Publishes a request's end on its diagnostics channel (only called while the channel has a subscriber). */
function publishEnd(
  ctx: Pick<RequestContext, 'config'>,
  requestId: string,
  status: number,
  outcome: RequestOutcome,
  durationMs: number,
  code: ErrorCode | undefined,
): void {
  const origin = ctx.config.general.name;
  channels.requestEnd.publish(
    code === undefined
      ? { origin, requestId, status, outcome, durationMs }
      : { origin, requestId, status, outcome, durationMs, code },
  );
}

/**
 * Answers a request that no origin of a shared port claims by its application ID (403), after the authentication
 * of the origin that answers it: an unauthenticated client gets that origin's 401 and challenge instead, so that
 * it cannot learn which application IDs exist. Origins share a port only with identical TLS settings, basic users
 * included, so the answering origin's basic authentication is every sharer's.
 */
export function refuseUnrouted(
  ctx: RequestContext,
  req: OriginRequest,
  res: OriginResponse,
  error: OriginError,
): void {
  // The answering origin's CORS headers, so that a page of an origin it allows can read the refusal (0115).
  const cors = ctx.cors?.answerHeaders(req.headers.origin) ?? NO_HEADERS;
  const request = {
    requestId: ctx.nextRequestId(),
    bodyRead: false,
    startedAt: performance.now(),
    headers: cors,
  };
  const { authenticator } = ctx;
  if (authenticator === undefined) return refuse(ctx, req, res, error, request);
  const settled = (outcome: AuthenticationOutcome): void => {
    if (outcome.ok)
      refuse(ctx, req, res, error, { ...request, headers: { ...cors, ...outcome.replyHeaders } });
    else
      refuse(ctx, req, res, outcome.error, {
        ...request,
        headers: { ...cors, 'WWW-Authenticate': outcome.challenge },
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
  req: OriginRequest,
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

/** The `errorMessage` a client gets for `error`: withheld details replaced unless `sendErrorDetails` (0046). */
function clientMessage(ctx: Pick<RequestContext, 'config'>, error: OriginError, requestId: string): string {
  return ctx.config.httpResponse.sendErrorDetails ? error.describe() : describeToClient(error, requestId);
}

/** Drops what it is given: a chunk whose bytes were digested already, or a settled promise's value. */
function ignore(): void {}

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
function drainSmallBody(req: OriginRequest, answer: () => void): boolean {
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
  req: OriginRequest,
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

/**
 * The body length a rate limit charges before the read: Content-Length, 0 for a request with neither it nor
 * Transfer-Encoding (it has no body), `undefined` for a chunked body.
 */
function declaredBodyLength(req: OriginRequest): number | undefined {
  const declared = req.headers['content-length'];
  if (declared !== undefined) return Number(declared);
  return req.headers['transfer-encoding'] === undefined ? 0 : undefined;
}

function checkApplicationId(ctx: RequestContext, req: OriginRequest, info: IncomingRequestInfo): void {
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
function batchOf(ctx: RequestContext, body: BodyRecords, info: IncomingRequestInfo): Batch {
  const { config } = ctx;
  const { onRecordError, name } = config.general;
  const failures = body.made === undefined ? body.parsed.failures : body.failures;
  const outcome =
    body.made === undefined
      ? applyRecordErrorPolicy(body.parsed.records, failures, onRecordError, info, name)
      : applyRecordErrorPolicyToRecords(body.made, failures, onRecordError, info, name);
  if (failures.length > 0) countParseFailures(ctx, failures, outcome.stageFailure !== undefined, info);
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

/**
 * Counts each parse failure of a body by its code and what became of it (the onRecordError policy, or `refused`
 * when a failure of the whole body refused it), and publishes it on its diagnostics channel.
 */
function countParseFailures(
  ctx: RequestContext,
  failures: readonly ParseFailure[],
  refused: boolean,
  info: IncomingRequestInfo,
): void {
  const action: ParseFailureAction = refused ? 'refused' : ctx.config.general.onRecordError;
  const publish = channels.recordFailure.hasSubscribers;
  for (const failure of failures) {
    ctx.metrics.countParseFailure(failure.code, action);
    if (!publish) continue;
    channels.recordFailure.publish({
      origin: ctx.config.general.name,
      requestId: info.requestId,
      code: failure.code,
      message: failure.message,
      recordIndex: failure.recordIndex,
      byteOffset: failure.byteOffset,
      action,
    });
  }
}

/** The placeholder record of an empty body (DESIGN.md §6): an empty LIST_MAP marked `emptyPayloadRecord`. */
const EMPTY_PAYLOAD_ATTRIBUTES = Object.freeze({ emptyPayloadRecord: 'true' });

/**
 * Bodies up to this size are gathered and parsed in one `parseAll` call when the parser has one (the whole-body
 * fast path of most requests); a larger body is pushed chunk by chunk, so memory stays bounded by this size plus
 * what the parser holds.
 */
const PARSE_WHOLE_MAX_BYTES = 1 << 20;

/** A large body is handed to its parser at most this many bytes at a time, the heap read before each. */
const PUSH_SLICE_BYTES = 16 * 1024;

/**
 * What the parse of a body gave: the parser's own result (a body parsed whole), or, for a body pushed chunk by
 * chunk, the request's records already made from each chunk's records as they came (decision 0090).
 */
type BodyRecords =
  | { readonly parsed: ParseResult; readonly made?: undefined }
  | { readonly made: DataRecord[]; readonly failures: ParseFailure[] };

/**
 * The parse of one body: chunks are gathered for the parser's whole-body `parseAll` while the body stays under
 * {@link PARSE_WHOLE_MAX_BYTES}, else pushed as they come. One object per request rather than several closures
 * and arrays, most of which a small body never uses.
 *
 * A pushed chunk's records become the request's records at once, so that a large body's records are made a chunk
 * at a time, in the turns its read is spread over (decision 0090), rather than all in the step after its last
 * chunk; the parser's short-lived record objects are not kept either.
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
  readonly #source: RequestRecordSource;
  readonly #release: MemoryRelease;
  /** Whether the body passed the release's threshold, which it then entered until {@link BodyParse.close}. */
  #large = false;
  /** Whether chunks are still being gathered for `parseAll` (the parser has one, and the body is small so far). */
  #gathering: boolean;
  /** The body's first chunk while gathering; most bodies arrive in one. */
  #first: Uint8Array | undefined;
  /** The chunks after the first while gathering. */
  #more: Uint8Array[] | undefined;
  #gatheredBytes = 0;
  #records: DataRecord[] | undefined;
  #failures: ParseFailure[] | undefined;
  /** Records and failures so far. */
  #yielded = 0;

  constructor(
    parser: Parser,
    maxRecords: number,
    heap: HeapGuard,
    source: RequestRecordSource,
    release: MemoryRelease,
    declaredBytes: number | undefined,
  ) {
    this.#release = release;
    this.#parser = parser;
    this.#maxRecords = maxRecords;
    this.#heap = heap;
    this.#source = source;
    // A body declared larger than the whole-body size is pushed from its first chunk: gathered, its first MB
    // would be parsed in one step when the size is passed (decision 0126).
    const declaredLarge = declaredBytes !== undefined && declaredBytes > PARSE_WHOLE_MAX_BYTES;
    this.#gathering = parser.parseAll !== undefined && !declaredLarge;
    if (declaredLarge) parser.deferValues?.();
  }

  /** Takes one decoded chunk (passed to the body reader as is, hence an arrow function). */
  readonly onChunk = (chunk: Uint8Array): void => {
    this.#gatheredBytes += chunk.length;
    if (!this.#large && this.#gatheredBytes >= this.#release.thresholdBytes) {
      this.#large = true;
      this.#release.enter();
    }
    if (this.#gathering && this.#gatheredBytes <= PARSE_WHOLE_MAX_BYTES) {
      if (this.#first === undefined) this.#first = chunk;
      else (this.#more ??= []).push(chunk);
      return;
    }
    // Only bodies past the whole-body size get here: small requests never pay for reading the heap.
    if (this.#gathering) {
      this.#gathering = false;
      // A large body's records keep their values as text until read (decision 0125).
      this.#parser.deferValues?.();
      for (const early of this.#gathered()) this.#push(early);
      this.#first = undefined;
      this.#more = undefined;
    }
    this.#push(chunk);
  };

  /**
   * Parses `chunk` a slice at a time, asking the heap guard before each slice: one chunk can be megabytes (socket
   * reads pile up while a large body waits for its turn), and a megabyte of tiny values makes tens of megabytes of
   * records, more than the room the guard keeps between stopping reads and a full heap (decision 0040).
   */
  #push(chunk: Uint8Array): void {
    for (let at = 0; at < chunk.length; at += PUSH_SLICE_BYTES) {
      this.#heap.keepReading(performance.now());
      const slice = chunk.length <= PUSH_SLICE_BYTES ? chunk : chunk.subarray(at, at + PUSH_SLICE_BYTES);
      this.#collect(this.#parser.push(slice));
    }
  }

  /** The body's records and failures, once all its `bytes` were taken. */
  finish(bytes: number): BodyRecords {
    if (bytes === 0) return { parsed: { records: [emptyPayloadRecord()], failures: [] } };
    // Nothing was pushed yet: the whole body goes to parseAll, and its result is the body's result.
    if (this.#gathering && this.#parser.parseAll) {
      const more = this.#more;
      const result = this.#parser.parseAll(
        more === undefined ? this.#first! : Buffer.concat(this.#gathered()),
      );
      // The request keeps this parse until it is answered: its bytes are not to be kept that long.
      this.#first = undefined;
      this.#more = undefined;
      this.#count(result);
      return { parsed: result };
    }
    this.#collect(this.#parser.end());
    const made = { made: this.#records ?? [], failures: this.#failures ?? [] };
    this.#records = undefined;
    this.#failures = undefined;
    return made;
  }

  /**
   * Leaves the memory release if this body entered it (decision 0091), so that the release's collection can follow
   * the last large body's answer; called once the request is done, whatever became of it.
   */
  close(): void {
    if (!this.#large) return;
    this.#large = false;
    this.#release.leave();
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
      const source = this.#source;
      for (const record of result.records) records.push(requestRecordOf(record, source, records.length));
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

/**
 * Writes a rendered answer, compressed first when `httpResponse.compress` is on and the client accepts a coding.
 * Returns the rendered body's length in bytes before any Content-Encoding (what the metrics count as sent), 0 when
 * the response was gone already.
 */
function send(
  ctx: Pick<RequestContext, 'isClosing' | 'config'>,
  res: OriginResponse,
  rendered: RenderedResponse | PiecedResponse,
  extra: Record<string, string>,
): number {
  if (res.headersSent || res.destroyed) return 0;
  const { httpResponse } = ctx.config;
  if (!httpResponse.compress) return write(ctx, res, rendered, extra);
  // An answer rendered in pieces is joined to be compressed: one copy, and the compression runs off the loop.
  const whole = 'pieces' in rendered ? joinedPieces(rendered) : rendered;
  compressResponse(whole, res.req.headers['accept-encoding'], httpResponse, (response) => {
    write(ctx, res, response, extra);
  });
  return renderedBodyLength(whole.body);
}

/** Writes `rendered` as it is; returns its body's length in bytes (0 when the response was gone already). */
function write(
  ctx: Pick<RequestContext, 'isClosing' | 'config'>,
  res: OriginResponse,
  rendered: RenderedResponse | PiecedResponse,
  extra: Record<string, string>,
): number {
  // Compression may have taken a moment: the client may be gone meanwhile.
  if (res.headersSent || res.destroyed) return 0;
  // The rendered headers are this response's own object: add to it rather than copy it.
  const headers: Record<string, string | number> = Object.assign(rendered.headers, extra);
  const length = 'pieces' in rendered ? piecesLength(rendered.pieces) : renderedBodyLength(rendered.body);
  headers['Content-Length'] = length;
  // A closing HTTP/2 port has sent GOAWAY already, and HTTP/2 forbids the header.
  if (ctx.isClosing() && !isHttp2(res.req)) headers['Connection'] = 'close';
  res.writeHead(rendered.status, headers);
  if ('pieces' in rendered) {
    // Buffers go to the socket as they are (one writev), with no copy into one body first.
    res.cork();
    for (const piece of rendered.pieces) res.write(piece);
    res.end();
    res.uncork();
  } else {
    res.end(rendered.body);
  }
  // Not all of the answer fits in the socket's buffers: a client that stops reading would hold the rest in memory
  // for good. With no 'timeout' listener, Node destroys the socket when it passes (decision 0044); an HTTP/2
  // stream is cancelled instead, its session going on. An answer the kernel took whole (`writableLength` 0 right
  // after `end`: nearly every answer) needs no timer; arming one per request was a measurable share of a small one.
  const { clientReadTimeoutMs } = ctx.config.http;
  if (clientReadTimeoutMs > 0 && res.writableLength > 0) res.setTimeout(clientReadTimeoutMs);
  return length;
}

/** `pieced` as one body, for the steps that need it whole (compression, an idempotency key's kept answer). */
export function joinedPieces(pieced: PiecedResponse): RenderedResponse {
  return { status: pieced.status, headers: pieced.headers, body: Buffer.concat(pieced.pieces) };
}

function piecesLength(pieces: readonly Buffer[]): number {
  let length = 0;
  for (const piece of pieces) length += piece.length;
  return length;
}

function failureError(failure: ParseFailure): OriginError {
  return new OriginError(failure.code, {}, { message: failure.message });
}

function asOriginError(thrown: unknown): OriginError {
  if (isOriginError(thrown)) return thrown;
  const detail = thrown instanceof Error ? thrown.message : String(thrown);
  return new OriginError('ORIGIN_INTERNAL_ERROR', { detail }, { cause: thrown });
}

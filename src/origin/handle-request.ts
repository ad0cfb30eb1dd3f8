import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { ErrorCode } from '../errors/error-table';
import { OriginError, isOriginError } from '../errors/origin-error';
import type { ParseFailure, ParseResult, ParseSource, ParsedRecord, Parser } from '../formats/data-format';
import { bodyTooLargeError, consumeDecodedBody, declaredLengthTooLarge } from '../http/body-reader';
import {
  ACCEPTED_CONTENT_ENCODINGS,
  checkContentEncoding,
  type ContentCoding,
} from '../http/content-encoding';
import { requestAttributes } from '../http/request-attributes';
import { createRequestBatch, type Batch } from '../pipeline/batch';
import type { ResponseSink } from '../pipeline/response-sink';
import { applyRecordErrorPolicy } from './record-error-policy';
import { FINISHED_RUN, type RunnerPool } from '../pipeline/runner-pool';
import { ListMapShape } from '../record/list-map';
import { renderedBodyLength, type RenderedResponse } from '../response/json-response';
import type { ResponseRenderer } from '../response/response-renderer';
import { BufferedResponseSink } from '../response/buffered-response-sink';
import type { Admission } from './admission';
import { applicationIdOf, type ApplicationIdList } from './application-id';
import { ALLOWED_METHODS, REFUSED_METHODS } from './methods';
import type { OriginConfig } from './config';
import type { BatchDeadlines, GiveUp } from './batch-deadlines';
import type { BatchSignals } from './batch-signals';
import type { BodyPlan } from './body-plan';
import type { InFlight } from './in-flight';
import type { OriginMetrics } from './origin-metrics';

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
  readonly applicationIds: ApplicationIdList;
  readonly admission: Admission;
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
  /** Under mutual TLS: the verified client certificate's record header attributes (src/tls). */
  readonly clientCertificateAttributes?: (socket: Socket) => Readonly<Record<string, string>> | undefined;
  isClosing(): boolean;
  nextRequestId(): string;
  /** Called when a record failed under onRecordError `stopPipeline`, after the client has its 500 answer. */
  stopPipeline(error: OriginError): void;
}

/**
 * The request path of DESIGN.md §2, top to bottom: cheap refusals (method, closing, application ID,
 * encoding, declared size), admission, body → records, On Record Error, batch → runners, response. Every step
 * that refuses throws an {@link OriginError}, which becomes the answer. Never throws itself.
 */
export async function handleRequest(
  ctx: RequestContext,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  ctx.inFlight.enter();
  const startedAt = performance.now();
  const requestId = ctx.nextRequestId();
  const [path = '/', queryString = ''] = splitUrl(req.url ?? '/');
  if (ctx.observer.listening.request) {
    ctx.observer.request({
      requestId,
      method: req.method ?? '',
      path,
      remoteHost: req.socket.remoteAddress ?? '',
    });
  }
  let bodyRead = false;
  try {
    const codings = refuseEarly(ctx, req, queryString);
    const release = ctx.admission.tryAcquire() ?? (await ctx.admission.acquire());
    try {
      const batch = await readBatch(ctx, req, requestId, codings);
      bodyRead = true;
      const running = runBatch(ctx, batch);
      if (running !== undefined) await running;
      const sink = batch.response as ResponseSink;
      const { renderer } = ctx;
      const rendered = renderer.validated ? await renderer.validated(sink) : renderer.response(sink);
      send(ctx, res, rendered, {});
      const durationMs = performance.now() - startedAt;
      ctx.metrics.countRequest('answered', rendered.status, durationMs);
      if (ctx.observer.listening.batch) {
        ctx.observer.batch({
          requestId,
          records: batch.records.length,
          errorRecords: batch.errorRecords.length,
          status: rendered.status,
          durationMs,
        });
      }
    } finally {
      release();
    }
  } catch (thrown) {
    const error = asOriginError(thrown);
    refuse(ctx, req, res, error, { requestId, bodyRead, startedAt });
    if (error.code === 'ORIGIN_PIPELINE_STOPPED') ctx.stopPipeline(error);
  } finally {
    ctx.inFlight.leave();
  }
}

/** Answers a request with the envelope of `error` (also used for requests a shared port cannot route). */
export function refuse(
  ctx: Pick<RequestContext, 'config' | 'metrics' | 'observer' | 'isClosing' | 'renderer'>,
  req: IncomingMessage,
  res: ServerResponse,
  error: OriginError,
  request: { requestId: string; bodyRead: boolean; startedAt: number },
): void {
  const rendered = ctx.renderer.rejection(error.httpStatus, error.describe());
  const headers: Record<string, string> = {};
  if (error.httpStatus === 503) headers['Retry-After'] = String(ctx.config.http.retryAfterSeconds);
  if (error.httpStatus === 405) headers['Allow'] = ALLOWED_METHODS;
  if (error.httpStatus === 415) headers['Accept-Encoding'] = ACCEPTED_CONTENT_ENCODINGS;
  // A body left unread would be drained by Node to keep the connection alive; closing is cheaper and safer.
  if (!request.bodyRead && !req.complete) headers['Connection'] = 'close';
  send(ctx, res, rendered, headers);
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

/** The refusals that need no body byte; returns the request's Content-Encoding, read once here. */
function refuseEarly(ctx: RequestContext, req: IncomingMessage, queryString: string): ContentCoding[] {
  const method = req.method ?? '';
  if (REFUSED_METHODS.has(method)) throw new OriginError('ORIGIN_HTTP_METHOD_NOT_ALLOWED', { method });
  if (ctx.isClosing()) throw new OriginError('ORIGIN_HTTP_CLOSING');
  checkApplicationId(ctx, req, queryString);
  const codings = checkContentEncoding(req.headers['content-encoding']);
  const { limit } = ctx.body;
  if (declaredLengthTooLarge(req.headers, limit.maxRequestBytes)) throw bodyTooLargeError('raw', limit);
  return codings;
}

function checkApplicationId(ctx: RequestContext, req: IncomingMessage, queryString: string): void {
  if (ctx.applicationIds.size === 0) return;
  const inUrl = ctx.config.http.applicationIdInUrl;
  const id = applicationIdOf(req.headers['x-engine-application-id'], queryString, inUrl);
  if (id === undefined) {
    throw new OriginError('ORIGIN_APP_ID_MISSING', {
      urlHint: inUrl ? ' or query parameter engineApplicationId' : '',
    });
  }
  if (!ctx.applicationIds.includes(id)) throw new OriginError('ORIGIN_APP_ID_INVALID');
}

/**
 * Reads and parses the body, applies On Record Error, and makes the batch. A plain function returning the parse's
 * own promise chain rather than an async one: one promise and one tick fewer on every request.
 */
function readBatch(
  ctx: RequestContext,
  req: IncomingMessage,
  requestId: string,
  codings: readonly ContentCoding[],
): Promise<Batch> {
  const baseAttributes = requestAttributes(req, {
    copyAuthorizationHeaders: ctx.config.http.copyAuthorizationHeaders,
    verified: ctx.clientCertificateAttributes?.(req.socket),
  });
  // One promise for the body: parsing the end and making the batch run in the body reader's own reaction.
  return parseBody(ctx, req, codings, (parsed) => batchOf(ctx, parsed, requestId, baseAttributes));
}

function batchOf(
  ctx: RequestContext,
  { records, failures }: ParseResult,
  requestId: string,
  baseAttributes: Readonly<Record<string, string>>,
): Batch {
  const { config } = ctx;
  const outcome = applyRecordErrorPolicy(records, failures, config.general.onRecordError, {
    requestId,
    baseAttributes,
    stageName: config.general.name,
  });
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
    request: {
      requestId,
      method: baseAttributes['method'] ?? '',
      path: baseAttributes['path'] ?? '/',
      queryString: baseAttributes['queryString'] ?? '',
      remoteHost: baseAttributes['remoteHost'] ?? '',
      headers: baseAttributes,
      receivedAt: Date.now(),
    },
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

function parseBody<T>(
  ctx: RequestContext,
  req: IncomingMessage,
  codings: readonly ContentCoding[],
  then: (parsed: ParseResult) => T,
): Promise<T> {
  // Per request: formats that keep state per exporter (NetFlow v9 templates) key it by the client's address.
  const source: ParseSource = { remoteAddress: req.socket.remoteAddress, originState: ctx.body.originState };
  const parse = new BodyParse(ctx.body.createParser(source));
  // An unencoded body (nearly every request) reads with the plan's own options object.
  const options = codings.length === 0 ? ctx.body.unencoded : { ...ctx.body.limit, codings };
  return consumeDecodedBody(req, options, parse.onChunk).then((bytes) => {
    ctx.metrics.countBytes(bytes);
    return then(parse.finish(bytes));
  });
}

/**
 * The parse of one body: chunks are gathered for the parser's whole-body `parseAll` while the body stays under
 * {@link PARSE_WHOLE_MAX_BYTES}, else pushed as they come. One object per request rather than several closures
 * and arrays, most of which a small body never uses.
 */
class BodyParse {
  readonly #parser: Parser;
  #gathered: Uint8Array[] | undefined;
  #gatheredBytes = 0;
  #records: ParsedRecord[] | undefined;
  #failures: ParseFailure[] | undefined;

  constructor(parser: Parser) {
    this.#parser = parser;
    this.#gathered = parser.parseAll ? [] : undefined;
  }

  /** Takes one decoded chunk (passed to the body reader as is, hence an arrow function). */
  readonly onChunk = (chunk: Uint8Array): void => {
    this.#gatheredBytes += chunk.length;
    const gathered = this.#gathered;
    if (gathered && this.#gatheredBytes <= PARSE_WHOLE_MAX_BYTES) {
      gathered.push(chunk);
      return;
    }
    if (gathered) {
      for (const early of gathered) this.#collect(this.#parser.push(early));
      this.#gathered = undefined;
    }
    this.#collect(this.#parser.push(chunk));
  };

  /** The body's records and failures, once all its `bytes` were taken. */
  finish(bytes: number): ParseResult {
    if (bytes === 0) return { records: [emptyPayloadRecord()], failures: [] };
    const gathered = this.#gathered;
    // Nothing was pushed yet: the whole body goes to parseAll, and its result is the body's result.
    if (gathered && this.#parser.parseAll)
      return this.#parser.parseAll(gathered.length === 1 ? gathered[0]! : Buffer.concat(gathered));
    this.#collect(this.#parser.end());
    return { records: this.#records ?? [], failures: this.#failures ?? [] };
  }

  #collect(result: ParseResult): void {
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
 * without a promise or a tick. Throws (rather than rejects) what the run failed with when it failed at once.
 */
function runBatch(ctx: RequestContext, batch: Batch): Promise<void> | undefined {
  const controller = ctx.batchSignals.take();
  // A give-up (deadline, destroy) may come before there is a promise to reject: during a synchronous run.
  let gaveUp: { reason: unknown } | undefined;
  let rejectLater: ((reason: unknown) => void) | undefined;
  const settle = (): void => {
    ctx.runningBatches.delete(clock);
    ctx.batchSignals.give(controller);
  };
  const giveUp: GiveUp = (reason) => {
    controller.abort(reason);
    settle();
    if (rejectLater) rejectLater(reason);
    else gaveUp = { reason };
  };
  const clock = ctx.runningBatches.add(giveUp);
  let running: Promise<void>;
  try {
    running = ctx.runners.run(batch, controller.signal);
  } catch (error) {
    // A host's pool that throws instead of rejecting is a failed batch all the same.
    if (gaveUp) throw gaveUp.reason;
    settle();
    throw pipelineError(error);
  }
  if (gaveUp) throw gaveUp.reason;
  if (running === FINISHED_RUN) {
    settle();
    return undefined;
  }
  // One promise settles the batch: the runner finishing, or a give-up, whichever comes first; settling twice is
  // a no-op. Cheaper than racing two promises on every request.
  return new Promise<void>((resolve, reject) => {
    rejectLater = reject;
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

function pipelineError(error: unknown): OriginError {
  if (isOriginError(error)) return error;
  const detail = error instanceof Error ? error.message : String(error);
  return new OriginError('ORIGIN_PIPELINE_FAILED', { detail }, { cause: error });
}

function send(
  ctx: Pick<RequestContext, 'isClosing'>,
  res: ServerResponse,
  rendered: RenderedResponse,
  extra: Record<string, string>,
): void {
  if (res.headersSent || res.destroyed) return;
  // The rendered headers are this response's own object: add to it rather than copy it.
  const headers: Record<string, string | number> = Object.assign(rendered.headers, extra);
  headers['Content-Length'] = renderedBodyLength(rendered.body);
  if (ctx.isClosing()) headers['Connection'] = 'close';
  res.writeHead(rendered.status, headers);
  res.end(rendered.body);
}

function failureError(failure: ParseFailure): OriginError {
  return new OriginError(failure.code, {}, { message: failure.message });
}

function asOriginError(thrown: unknown): OriginError {
  if (isOriginError(thrown)) return thrown;
  const detail = thrown instanceof Error ? thrown.message : String(thrown);
  return new OriginError('ORIGIN_INTERNAL_ERROR', { detail }, { cause: thrown });
}

function splitUrl(url: string): [string, string] {
  const mark = url.indexOf('?');
  return mark < 0 ? [url, ''] : [url.slice(0, mark), url.slice(mark + 1)];
}

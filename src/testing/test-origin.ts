import {
  request as httpRequest,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type ServerResponse,
} from 'node:http';
import type { Duplex } from 'node:stream';
import { defaultRegistry } from '../formats/built-in';
import type { FormatRegistry } from '../formats/format-registry';
import { resolveConfig } from '../origin/config';
import { createRequestServer } from '../origin/listener-registry';
import { Origin } from '../origin/origin';
import type { Batch } from '../pipeline/batch';
import { InProcessRunnerPool } from '../pipeline/in-process-runner-pool';
import type { Pipeline } from '../pipeline/runner-pool';
import { memoryConnection } from './memory-connection';

/** One request for {@link TestOrigin.inject}. */
export interface InjectRequest {
  /** Default `POST`. */
  readonly method?: string;
  /** Path and query, e.g. `/orders?region=eu`. Default `/`. */
  readonly path?: string;
  /** Request headers as a client sends them (names keep their spelling). `Host` defaults to `localhost`. */
  readonly headers?: Readonly<Record<string, string | readonly string[]>>;
  /** The body; none by default. A string is sent as UTF-8. */
  readonly body?: string | Uint8Array;
  /** The client address the origin sees (`remoteHost`, the formats' per-client state). Default `127.0.0.1`. */
  readonly remoteAddress?: string;
}

/** The answer to one injected request, and what the pipeline saw of it. */
export interface InjectedResponse {
  readonly status: number;
  /** Response headers, names lower-cased as Node's client gives them. */
  readonly headers: IncomingHttpHeaders;
  /** The body's bytes. */
  readonly bodyBytes: Buffer;
  /** The body decoded as UTF-8. */
  readonly body: string;
  /** The body parsed as JSON. @throws SyntaxError when it is not JSON. */
  json<T = unknown>(): T;
  /** The batches the pipeline received for this request (none when the request was refused before its batch). */
  readonly batches: readonly Batch[];
}

/** An origin that serves requests handed to it in memory: see {@link createTestOrigin}. */
export interface TestOrigin {
  /** The origin under test; it never listens on a port. Its events and `metrics()` work as usual. */
  readonly origin: Origin;
  /** Every request batch the pipeline received so far, in order. */
  readonly batches: readonly Batch[];
  /** Sends one request through the whole request path and resolves with the answer once it is complete. */
  inject(request?: InjectRequest): Promise<InjectedResponse>;
  /** Closes the origin as `origin.close()` does (admitted requests finish), then its runners. */
  close(): Promise<void>;
}

/** What {@link createTestOrigin} takes besides the config and the pipeline. */
export interface TestOriginOptions {
  /** Formats to choose `dataFormat.format` from; `defaultRegistry` by default. */
  readonly formats?: FormatRegistry;
}

/**
 * Makes an origin for tests that opens no port: {@link TestOrigin.inject} hands each request to the origin over an
 * in-memory connection, through Node's own HTTP parser and the origin's whole request path (authentication,
 * application IDs, limits, Content-Encoding, parsing, On Record Error, the runners, the response), so that an
 * answer is the one a socket would get. The pipeline runs on an in-process runner pool with one runner per
 * request slot (`http.maxConcurrentRequests`) and no idle batches.
 *
 * Not covered without a socket: TLS itself (a config with `tls.useTls` is served, but over plain in-memory
 * connections, so mutual TLS attributes are absent) and the port sharing of several origins.
 *
 * @throws ConfigError when `config` is not valid, as `new Origin` does.
 *
 * @example
 * ```ts
 * const test = createTestOrigin({ dataFormat: { format: 'json' } }, echoPipeline);
 * const answer = await test.inject({ path: '/orders', body: '{"id":1}' });
 * expect(answer.status).toBe(200);
 * expect(answer.batches[0].records).toHaveLength(1);
 * await test.close();
 * ```
 */
export function createTestOrigin(
  config: unknown,
  pipeline: Pipeline,
  options: TestOriginOptions = {},
): TestOrigin {
  return new InMemoryTestOrigin(config, pipeline, options);
}

/** What is known of one injected request while the origin serves it. */
interface Exchange {
  requestId: string | undefined;
}

class InMemoryTestOrigin implements TestOrigin {
  readonly origin: Origin;
  readonly batches: Batch[] = [];
  readonly #runners: InProcessRunnerPool;
  readonly #server: ReturnType<typeof createRequestServer>;
  /** The exchange of each connection's server end, found again from `req.socket`. */
  readonly #exchanges = new WeakMap<Duplex, Exchange>();
  /** The exchange whose request the origin is being handed right now (its `request` event fires synchronously). */
  #handing: Exchange | undefined;

  constructor(config: unknown, pipeline: Pipeline, options: TestOriginOptions) {
    const recording: Pipeline = (batch, context) => {
      if (!batch.idle) this.batches.push(batch);
      return pipeline(batch, context);
    };
    // The pool has one runner per request slot, so the config is resolved (and checked) first.
    const resolved = resolveConfig(config, options.formats ?? defaultRegistry);
    const { http } = resolved;
    this.#runners = new InProcessRunnerPool(http.maxConcurrentRequests, recording, { runnerIdleTimeMs: 0 });
    this.origin = new Origin(resolved, {
      runners: this.#runners,
      ...(options.formats ? { formats: options.formats } : {}),
    });
    this.origin.on('request', ({ requestId }) => {
      if (this.#handing) this.#handing.requestId = requestId;
    });
    this.#server = createRequestServer((req, res) => this.#hand(req, res), {
      requestTimeoutMs: http.requestTimeoutMs,
      headersTimeoutMs: http.headersTimeoutMs,
      keepAliveTimeoutMs: http.keepAliveTimeoutMs,
    });
  }

  inject(request: InjectRequest = {}): Promise<InjectedResponse> {
    const { client, server } = memoryConnection(request.remoteAddress ?? '127.0.0.1');
    const exchange: Exchange = { requestId: undefined };
    this.#exchanges.set(server, exchange);
    this.#server.emit('connection', server);
    return new Promise<InjectedResponse>((resolve, reject) => {
      const outgoing = httpRequest({
        createConnection: () => client,
        method: request.method ?? 'POST',
        path: request.path ?? '/',
        headers: { Host: 'localhost', ...request.headers },
      });
      outgoing.on('error', reject);
      outgoing.on('response', (answer: IncomingMessage) => {
        const chunks: Buffer[] = [];
        answer.on('data', (chunk: Buffer) => chunks.push(chunk));
        answer.on('error', reject);
        answer.on('end', () => {
          client.destroy();
          resolve(this.#response(answer, Buffer.concat(chunks), exchange));
        });
      });
      outgoing.end(request.body === undefined ? undefined : Buffer.from(request.body));
    });
  }

  async close(): Promise<void> {
    await this.origin.close();
    await this.#runners.close();
    this.#server.close();
  }

  #hand(req: IncomingMessage, res: ServerResponse): void {
    this.#handing = this.#exchanges.get(req.socket);
    try {
      void this.origin.handleRequest(req, res);
    } finally {
      this.#handing = undefined;
    }
  }

  #response(answer: IncomingMessage, bodyBytes: Buffer, exchange: Exchange): InjectedResponse {
    const body = bodyBytes.toString('utf8');
    const { requestId } = exchange;
    return {
      status: answer.statusCode ?? 0,
      headers: answer.headers,
      bodyBytes,
      body,
      json: <T>() => JSON.parse(body) as T,
      batches:
        requestId === undefined ? [] : this.batches.filter((batch) => batch.request?.requestId === requestId),
    };
  }
}

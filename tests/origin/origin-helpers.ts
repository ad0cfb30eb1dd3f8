import { request } from 'undici';
import {
  InProcessRunnerPool,
  Origin,
  echoPipeline,
  type OriginConfigInput,
  type Pipeline,
} from 'rest-service-origin';
import { createTestOrigin } from 'rest-service-origin/testing';

export { freePort } from '../support/free-port';

/** What a test sends ({@link TestOrigin.send}); `POST /` by default. */
export interface SendOptions {
  method?: string;
  path?: string;
  body?: string | Buffer;
  headers?: Record<string, string>;
}

/** A whole answer as the tests read it. */
export interface SentAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  /** The body as JSON; `undefined` when it is not JSON. */
  json: unknown;
}

/**
 * An origin under test, over a socket ({@link startOrigin}) or in memory ({@link injectOrigin}); `send` works the
 * same either way, so a test moves between the two by its factory alone.
 */
export interface ServedOrigin {
  origin: Origin;
  send(options?: SendOptions): Promise<SentAnswer>;
  stop(): Promise<void>;
}

/** An origin on 127.0.0.1 with an in-process pool, and a way to stop both. */
export interface TestOrigin extends ServedOrigin {
  url: string;
  pool: InProcessRunnerPool;
}

export type TestConfig = Omit<OriginConfigInput, 'dataFormat' | 'http'> & {
  http?: OriginConfigInput['http'];
  dataFormat?: OriginConfigInput['dataFormat'];
};

/** Starts an origin on an ephemeral loopback port; JSON and the echo pipeline unless told otherwise. */
export async function startOrigin(
  config: TestConfig = {},
  pipeline: Pipeline = echoPipeline,
): Promise<TestOrigin> {
  const http = { host: '127.0.0.1', port: 0, ...config.http };
  const pool = new InProcessRunnerPool(http.maxConcurrentRequests ?? 10, pipeline, { runnerIdleTimeMs: 0 });
  const origin = new Origin(
    { ...config, http, dataFormat: config.dataFormat ?? { format: 'json' } },
    { runners: pool },
  );
  const url = await origin.start();
  return {
    origin,
    url,
    pool,
    send: (options) => send(url, options),
    stop: async () => {
      await origin.destroy();
      await pool.close();
    },
  };
}

/**
 * The same origin as {@link startOrigin} (JSON and the echo pipeline unless told otherwise) without a port: each
 * request goes through Node's HTTP parser and the whole request path in memory (`rest-service-origin/testing`).
 * For tests where a socket adds nothing: what they check is the answer, not the connection.
 */
export function injectOrigin(config: TestConfig = {}, pipeline: Pipeline = echoPipeline): ServedOrigin {
  const test = createTestOrigin(
    { ...config, http: { ...config.http }, dataFormat: config.dataFormat ?? { format: 'json' } },
    pipeline,
  );
  return {
    origin: test.origin,
    send: async (options = {}) => {
      const answer = await test.inject({
        method: options.method ?? 'POST',
        path: options.path ?? '/',
        ...(options.headers === undefined ? {} : { headers: options.headers }),
        ...(options.body === undefined ? {} : { body: options.body }),
      });
      return { status: answer.status, headers: answer.headers, text: answer.body, json: parsed(answer.body) };
    },
    stop: () => test.close(),
  };
}

function parsed(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Sends a request and reads the whole answer. */
export async function send(url: string, options: SendOptions = {}): Promise<SentAnswer> {
  const target = new URL(options.path ?? '/', url);
  const answer = await request(target, {
    method: (options.method ?? 'POST') as 'POST',
    body: options.body,
    headers: options.headers,
  });
  const text = await answer.body.text();
  return { status: answer.statusCode, headers: answer.headers, text, json: parsed(text) };
}

/** A promise with its resolver, to hold a pipeline until the test lets it go. */
export function gate(): { promise: Promise<void>; open: () => void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

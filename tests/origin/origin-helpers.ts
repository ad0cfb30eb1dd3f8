import { createServer } from 'node:net';
import { request } from 'undici';
import {
  InProcessRunnerPool,
  Origin,
  echoPipeline,
  type OriginConfigInput,
  type Pipeline,
} from 'rest-service-origin';

/** An origin on 127.0.0.1 with an in-process pool, and a way to stop both. */
export interface TestOrigin {
  origin: Origin;
  url: string;
  pool: InProcessRunnerPool;
  stop(): Promise<void>;
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
    stop: async () => {
      await origin.destroy();
      await pool.close();
    },
  };
}

/** Sends a request and reads the whole answer. */
export async function send(
  url: string,
  options: { method?: string; path?: string; body?: string | Buffer; headers?: Record<string, string> } = {},
): Promise<{
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  json: unknown;
}> {
  const target = new URL(options.path ?? '/', url);
  const answer = await request(target, {
    method: (options.method ?? 'POST') as 'POST',
    body: options.body,
    headers: options.headers,
  });
  const text = await answer.body.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: answer.statusCode, headers: answer.headers, text, json };
}

/** A port that was free a moment ago on 127.0.0.1. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

/** A promise with its resolver, to hold a pipeline until the test lets it go. */
export function gate(): { promise: Promise<void>; open: () => void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import { isOriginError } from '../../src/errors/origin-error';
import { consumeDecodedBody, readDecodedBody, type BodyReadOptions } from '../../src/http/body-reader';

/** Which reading function the server's handler uses. */
export type BodyReader = 'readDecodedBody' | 'consumeDecodedBody';

/** What the server's handler saw for one request. */
export interface HandlerOutcome {
  /** The decoded bytes the handler consumed before the body ended or failed. */
  readonly consumed: number;
  readonly error?: unknown;
  /** Highest `process.memoryUsage().rss` sampled while consuming. */
  readonly peakRss: number;
}

/**
 * A real HTTP server on 127.0.0.1:0 whose handler reads the body with `readDecodedBody` (or, when asked,
 * `consumeDecodedBody`) and echoes the decoded
 * bytes (200), or answers an OriginError with its status and `{ code, params }` as JSON.
 */
export interface BodyTestServer {
  readonly url: string;
  readonly http: Server;
  /** Resolves with the outcome of the next request the handler finishes (in order). */
  nextOutcome(): Promise<HandlerOutcome>;
  /** Forgets the outcomes no test asked for. */
  clearOutcomes(): void;
  close(): Promise<void>;
}

export async function startBodyServer(
  options: BodyReadOptions,
  consumer: { echo: boolean; reader?: BodyReader } = { echo: true },
): Promise<BodyTestServer> {
  const outcomes: HandlerOutcome[] = [];
  const waiters: ((outcome: HandlerOutcome) => void)[] = [];
  const report = (outcome: HandlerOutcome): void => {
    const waiter = waiters.shift();
    if (waiter === undefined) outcomes.push(outcome);
    else waiter(outcome);
  };

  const server: Server = createServer((req, res) => {
    void (async () => {
      const chunks: Buffer[] = [];
      let consumed = 0;
      let peakRss = process.memoryUsage().rss;
      try {
        const take = (chunk: Uint8Array): void => {
          consumed += chunk.length;
          if (consumer.echo) chunks.push(Buffer.from(chunk));
          peakRss = Math.max(peakRss, process.memoryUsage().rss);
        };
        if (consumer.reader === 'consumeDecodedBody') await consumeDecodedBody(req, options, take);
        else for await (const chunk of readDecodedBody(req, options)) take(chunk);
        report({ consumed, peakRss });
        res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(Buffer.concat(chunks));
      } catch (error) {
        report({ consumed, peakRss, error });
        await drained(req);
        if (res.destroyed) return;
        const status = isOriginError(error) ? error.httpStatus : 500;
        const body = isOriginError(error)
          ? { code: error.code, params: error.params }
          : { code: 'UNEXPECTED', message: String(error) };
        res
          .writeHead(status, { 'content-type': 'application/json', connection: 'close' })
          .end(JSON.stringify(body));
      }
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    http: server,
    nextOutcome: () =>
      new Promise((resolve) => {
        const outcome = outcomes.shift();
        if (outcome === undefined) waiters.push(resolve);
        else resolve(outcome);
      }),
    clearOutcomes: () => {
      outcomes.length = 0;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Reads and discards the rest of a body the handler stopped reading, so the client sees the answer cleanly. */
function drained(req: IncomingMessage): Promise<void> {
  return new Promise((resolve) => {
    if (req.readableEnded || req.destroyed) return resolve();
    req.once('end', resolve);
    req.once('close', resolve);
    req.resume();
  });
}

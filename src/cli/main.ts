#!/usr/bin/env node
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { defaultRegistry } from '../formats/built-in';
import { resolveConfig } from '../origin/config';
import { Origin } from '../origin/origin';
import { echoPipeline } from './echo-pipeline';
import { InProcessRunnerPool } from '../pipeline/in-process-runner-pool';

const USAGE = `Usage: rest-origin serve --config <file.json> [--port <port>]

Serves an origin with the in-process runner pool and the built-in echo pipeline: every record goes back to the
caller through SendResponse, every error record through its error form.

The config file holds the origin config (docs/config.md), plus an optional "pipeline" object with
"runnerIdleTimeMs" (default 60000; <= 0 turns idle batches off). --port overrides http.port.`;

/** The `rest-origin` command. Resolves with the process exit code once the server has stopped. */
export async function main(argv: readonly string[]): Promise<number> {
  const { positionals, values } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    options: { config: { type: 'string' }, port: { type: 'string' }, help: { type: 'boolean' } },
  });
  if (values.help || positionals[0] !== 'serve' || values.config === undefined) {
    (values.help ? console.log : console.error)(USAGE);
    return values.help ? 0 : 2;
  }
  const { pipeline = {}, ...config } = JSON.parse(readFileSync(values.config, 'utf8')) as {
    pipeline?: { runnerIdleTimeMs?: number };
    http?: Record<string, unknown>;
  };
  if (values.port !== undefined) config.http = { ...config.http, port: Number(values.port) };
  const origin = await serve(config, pipeline.runnerIdleTimeMs);
  return new Promise<number>((resolve) => origin.once('stop', ({ reason }) => resolve(reason ? 1 : 0)));
}

async function serve(config: unknown, runnerIdleTimeMs: number | undefined): Promise<Origin> {
  // The pool size comes from the resolved config, so resolve (and validate) it first.
  const resolved = resolveConfig(config, defaultRegistry);
  const pool = new InProcessRunnerPool(resolved.http.maxConcurrentRequests, echoPipeline, {
    runnerIdleTimeMs,
  });
  const origin = new Origin(resolved, { runners: pool });
  origin.on('stop', ({ reason }) => {
    if (reason) console.error(`origin stopped: ${reason.describe()}`);
    void pool.close();
  });
  const url = await origin.start();
  console.log(`rest-origin: '${origin.config.general.name}' listening at ${url}`);
  console.log(`rest-origin: ${describeSecurity(origin)}`);
  const shutdown = (signal: string): void => {
    console.log(`rest-origin: ${signal} received, closing`);
    void origin.close({ timeoutMs: 10_000 });
  };
  process.once('SIGINT', shutdown);
  process.once('SIGTERM', shutdown);
  return origin;
}

/** The combination of TLS, authentication and application IDs in force, in one line without any secret. */
function describeSecurity(origin: Origin): string {
  const { tls, mutualTls, authentication, applicationIds, ignored } = origin.describe();
  const ids = { none: 'none', header: 'in the header', headerOrUrl: 'in the header or the URL' }[
    applicationIds
  ];
  const line = `TLS ${tls ? 'on' : 'off'}, mutual TLS ${mutualTls ? 'on' : 'off'}, authentication ${authentication}, application IDs ${ids}`;
  return ignored.length === 0 ? line : `${line} (${ignored.join('; ')})`;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    console.error(error instanceof Error ? `rest-origin: ${error.message}` : error);
    process.exitCode = 1;
  },
);

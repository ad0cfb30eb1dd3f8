#!/usr/bin/env node
import cluster from 'node:cluster';
import { parseArgs } from 'node:util';
import { ConfigError } from '../errors/config-error';
import { defaultRegistry } from '../formats/built-in';
import type { OriginConfig } from '../origin/config';
import { Origin } from '../origin/origin';
import { Gateway } from '../gateway/gateway';
import { resolveConfigFile } from './config-file';
import { readGatewayFile } from './gateway-file';
import { describeConfig, formatDescribedLines } from './describe-config';
import { echoPipeline } from './echo-pipeline';
import { openApiDocument } from './openapi-document';
import { HASH_PASSWORD_HELP, HASH_PASSWORD_SYNOPSIS, hashPasswordCommand } from './hash-password';
import { InProcessRunnerPool } from '../pipeline/in-process-runner-pool';
import { parseWorkers, runPrimary } from './cluster-primary';
import { clusterMetrics, joinCluster, leaveCluster, onShutdown, serving } from './cluster-worker';

const USAGE = `Usage:
  rest-origin serve --config <file> [--port <port>] [--workers <n>|auto]
  rest-origin serve --gateway <gateway-file> --config <file> [--config <file> …] [--port <port>] [--workers <n>|auto]
  rest-origin validate --config <file>
  rest-origin describe --config <file>
  rest-origin openapi --config <file> [--api-version <version>]
${HASH_PASSWORD_SYNOPSIS}

serve     Serves an origin with the in-process runner pool and the built-in echo pipeline: every record goes
          back to the caller through SendResponse, every error record through its error form.
validate  Checks a config file without serving it: prints every problem with its path and exits 1, or prints
          what the config resolves to and exits 0.
describe  Says in plain words how the config would serve: endpoint, TLS, the authentication in force, the
          application ID check, the limits, the data format and the response (exits 1 on problems, as validate).
openapi   Prints an OpenAPI 3.1 document (JSON) of what the config serves: server, paths and methods, the
          authentication as security schemes, request media types, the envelope and every rejection's status
          and codes. --api-version sets info.version (default 1.0.0). Exits 1 on problems, as validate.
${HASH_PASSWORD_HELP}

The config file (JSON, or YAML when it ends in .yaml or .yml) holds the origin config (docs/config.md), plus an
optional "pipeline" object with "runnerIdleTimeMs" (default 60000; <= 0 turns idle batches off), and an optional
"$schema" for editors (config.schema.json in the package). --port overrides http.port.

With --gateway, the command runs an API gateway (port, host, TLS, authenticator, roles and readers from the
gateway file, JSON or YAML; docs/gateway.md) and serves each --config file's origin through it (each with
http.useApiGateway and its own gatewayServiceName); --port then overrides the gateway's port.

--workers N (default 1; auto = the cores Node may use) serves with N processes sharing the port (node:cluster),
each with its own runner pool. A worker that dies is replaced (with a growing delay when it keeps dying young);
SIGTERM or SIGINT drains every worker and exits once all are done; SIGUSR2 prints every worker's metrics and
the cluster's, merged; http.metricsPath on any worker answers for the whole cluster (docs/deployment.md).`;

const COMMANDS = new Set(['serve', 'validate', 'describe', 'openapi']);
/** How long a signal's close waits for admitted requests before it gives up on them. */
const CLOSE_TIMEOUT_MS = 10_000;

/** The `rest-origin` command. Resolves with the process exit code once it is done (for serve: once stopped). */
export async function main(argv: readonly string[]): Promise<number> {
  // hash-password has options of its own and no config file.
  if (argv[0] === 'hash-password') return hashPasswordCommand(argv.slice(1));
  const { positionals, values } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    options: {
      config: { type: 'string', multiple: true },
      gateway: { type: 'string' },
      port: { type: 'string' },
      workers: { type: 'string' },
      'api-version': { type: 'string' },
      help: { type: 'boolean' },
    },
  });
  const command = positionals[0];
  const configs = values.config ?? [];
  const usable =
    command !== undefined &&
    COMMANDS.has(command) &&
    configs.length > 0 &&
    (configs.length === 1 || (command === 'serve' && values.gateway !== undefined));
  if (values.help || !usable) {
    (values.help ? console.log : console.error)(USAGE);
    return values.help ? 0 : 2;
  }
  const [first = ''] = configs;
  if (command === 'validate') return validate(first);
  if (command === 'describe') return describe(first);
  if (command === 'openapi') return openapi(first, values['api-version'] ?? '1.0.0');
  const { port } = values;
  const workers = parseWorkers(values.workers);
  if (workers === undefined) {
    console.error(
      `rest-origin: --workers must be a whole number from 1, or auto (got '${values.workers}')\n`,
    );
    console.error(USAGE);
    return 2;
  }
  if (workers > 1 && cluster.isPrimary) {
    // Every file is resolved here first, so that a bad one stops the command before any worker is forked.
    if (values.gateway !== undefined) readGatewayFile(values.gateway);
    for (const file of configs) resolveConfigFile(file, defaultRegistry);
    return runPrimary({ workers, closeTimeoutMs: CLOSE_TIMEOUT_MS });
  }
  joinCluster();
  if (values.gateway !== undefined) return serveGateway(values.gateway, configs, port);
  const { origin: config, pipeline } = resolveConfigFile(first, defaultRegistry, (origin) => {
    if (port !== undefined) origin['http'] = { ...(origin['http'] as object), port: Number(port) };
  });
  const origin = await serve(config, pipeline.runnerIdleTimeMs);
  return new Promise<number>((resolve) => origin.once('stop', ({ reason }) => resolve(reason ? 1 : 0)));
}

/**
 * `rest-origin serve --gateway`: starts the gateway, then one origin per config file (all files are resolved
 * first, so a bad one stops the command before anything listens). Resolves with 0 once a signal closed them all
 * (origins first, then the gateway), 1 when an origin stopped itself.
 */
async function serveGateway(
  gatewayFile: string,
  configFiles: readonly string[],
  port: string | undefined,
): Promise<number> {
  const gatewayOptions = readGatewayFile(gatewayFile, port === undefined ? undefined : Number(port));
  const resolved = configFiles.map((file) => resolveConfigFile(file, defaultRegistry));
  const gateway = new Gateway(gatewayOptions);
  const url = await gateway.start();
  console.log(`rest-origin: gateway listening at ${url}`);
  const origins: Origin[] = [];
  try {
    for (const { origin: config, pipeline } of resolved) {
      const origin = await serveOrigin(config, pipeline.runnerIdleTimeMs, gateway);
      origins.push(origin);
    }
  } catch (error) {
    await Promise.all(origins.map((origin) => origin.close({ timeoutMs: 10_000 })));
    await gateway.close();
    throw error;
  }
  const stopped = origins.map(
    (origin) =>
      new Promise<boolean>((resolve) => origin.once('stop', ({ reason }) => resolve(reason !== undefined))),
  );
  onShutdown(() => {
    for (const origin of origins) void origin.close({ timeoutMs: CLOSE_TIMEOUT_MS });
  });
  serving(origins, url);
  const failed = (await Promise.all(stopped)).some(Boolean);
  await gateway.close();
  return failed ? 1 : 0;
}

/** `rest-origin validate`: 0 and a one-line summary when the file resolves, 1 and every problem when not. */
function validate(path: string): number {
  const resolved = checkedConfigFile(path);
  if (resolved === undefined) return 1;
  const { general, http, dataFormat } = resolved;
  console.log(
    `${path}: valid ('${general.name}', ${dataFormat.format} on ${http.host || 'every address'}:${http.port})`,
  );
  return 0;
}

/** `rest-origin describe`: the config's serving in plain words, or its problems as `validate` prints them. */
async function describe(path: string): Promise<number> {
  const resolved = checkedConfigFile(path);
  if (resolved === undefined) return 1;
  // An origin made (never started) from the config says which authentication is in force and what it ignores.
  const pool = new InProcessRunnerPool(resolved.http.maxConcurrentRequests, echoPipeline, {
    runnerIdleTimeMs: 0,
  });
  const origin = new Origin(resolved, { runners: pool });
  console.log(`${path}:\n${formatDescribedLines(describeConfig(resolved, origin.describe()))}`);
  await pool.close();
  return 0;
}

/** `rest-origin openapi`: the OpenAPI 3.1 document of the config on stdout, or its problems as `validate` prints them. */
function openapi(path: string, version: string): number {
  const resolved = checkedConfigFile(path);
  if (resolved === undefined) return 1;
  console.log(JSON.stringify(openApiDocument(resolved, version), null, 2));
  return 0;
}

/** The origin config of the file at `path`; `undefined` once its problems are printed. */
function checkedConfigFile(path: string): OriginConfig | undefined {
  try {
    return resolveConfigFile(path, defaultRegistry).origin;
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    printProblems(path, error);
    return undefined;
  }
}

/** `<subject> has N problems:` then one line per problem, its JSON Pointer first. */
function printProblems(subject: string, error: ConfigError): void {
  const count = error.problems.length;
  console.error(`${subject} has ${count} problem${count === 1 ? '' : 's'}:`);
  for (const problem of error.problems) console.error(`  ${problem.path || '/'} ${problem.message}`);
}

async function serve(resolved: OriginConfig, runnerIdleTimeMs: number | undefined): Promise<Origin> {
  const origin = await serveOrigin(resolved, runnerIdleTimeMs, undefined);
  onShutdown(() => void origin.close({ timeoutMs: CLOSE_TIMEOUT_MS }));
  serving([origin], origin.url ?? '');
  return origin;
}

/** Starts one origin with its own in-process pool and the echo pipeline, on its port or through `gateway`. */
async function serveOrigin(
  resolved: OriginConfig,
  runnerIdleTimeMs: number | undefined,
  gateway: Gateway | undefined,
): Promise<Origin> {
  const pool = new InProcessRunnerPool(resolved.http.maxConcurrentRequests, echoPipeline, {
    runnerIdleTimeMs,
  });
  const origin = new Origin(resolved, {
    runners: pool,
    ...(gateway ? { gateway } : {}),
    // A worker's metrics path answers for the whole cluster: the primary merges every worker's snapshot.
    ...(cluster.isWorker ? { metricsSource: async () => (await clusterMetrics()).total } : {}),
  });
  origin.on('stop', ({ reason }) => {
    if (reason) console.error(`origin stopped: ${reason.describe()}`);
    void pool.close();
  });
  try {
    const url = await origin.start();
    console.log(`rest-origin: '${origin.config.general.name}' listening at ${url}`);
    console.log(`rest-origin: ${describeSecurity(origin)}`);
  } catch (error) {
    await pool.close();
    throw error;
  }
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

main(process.argv.slice(2))
  .then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      if (error instanceof ConfigError) printProblems('rest-origin: the config', error);
      else console.error(error instanceof Error ? `rest-origin: ${error.message}` : error);
      process.exitCode = 1;
    },
  )
  // A worker of `serve --workers` leaves the cluster's IPC channel, which would keep it alive.
  .then(leaveCluster);

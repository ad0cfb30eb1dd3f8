// The three servers `npm run bench` compares, each run in its own process by bench/echo.ts:
//   origin   — the echo origin (in-process runners, echo pipeline), JSON arrayOfObjects
//   https    — the same origin serving HTTPS (tls.useTls, PEM keystore from BENCH_TLS_DIR, TLS 1.3)
//   gateway  — the same origin behind an in-process API gateway (public API, /public-rest/v1/gateway/bench/…)
//   h2       — the same origin with http.http2 on: HTTP/1.1 and h2c on one port (bench/http2.ts)
//   node     — a minimal node:http server doing the same work: read the body, JSON.parse, echo an envelope
//   nodehttps — the same minimal server on node:https (PEM keystore from BENCH_TLS_DIR): TLS's cost to Node itself
//   nodebatched — the minimal node:http server writing its answers at the end of the loop's pass, as the origin
//              does (decision 0138): what that way of writing is worth to Node itself
//   fastify  — a Fastify server doing the same work with its default JSON body parser and serializer
// Prints the port on stdout once listening. Runs the built package (dist/), as a user would: `npm run bench`
// builds it first, so no TypeScript loader sits in the measured process.
//
// When started with an IPC channel, answers every message 'cpu' with this process's own CPU time
// (`process.cpuUsage()`, user + system, in µs): bench/echo.ts reads it before and after each measured load.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { fastifyEcho, nodeEcho, nodeEchoAtPassEnd } from './echo-handlers.mjs';

const kind = process.argv[2];

async function startOrigin(tls = {}, gatewayMode = false, extraHttp = {}) {
  // BENCH_DIST runs another build of the package (bench/echo.ts sets it for BENCH_BEFORE_DIST).
  const dist = process.env.BENCH_DIST
    ? pathToFileURL(`${process.env.BENCH_DIST}/index.js`).href
    : new URL('../dist/index.js', import.meta.url).href;
  const { Gateway, InProcessRunnerPool, Origin, echoPipeline } = await import(dist);
  // BENCH_ORIGIN_SLOTS: request slots and runners (10 by default, fewer than the bench's connections, so that
  // requests also wait in the admission queue as they do on a busy origin).
  const slots = Number(process.env.BENCH_ORIGIN_SLOTS ?? 10);
  const runners = new InProcessRunnerPool(slots, echoPipeline, { runnerIdleTimeMs: 0 });
  // In gateway mode the origin opens no port: the gateway's port is the one the load goes to.
  const gateway = gatewayMode ? new Gateway({ port: 0, host: '127.0.0.1' }) : undefined;
  const gatewayUrl = gateway ? await gateway.start() : undefined;
  const gatewayHttp = gatewayMode
    ? { useApiGateway: true, gatewayServiceName: 'bench', requireGatewayAuthentication: false }
    : {};
  const origin = new Origin(
    {
      general: { resourcesDirectory: process.env.BENCH_TLS_DIR ?? '' },
      // BENCH_ORIGIN_HTTP: more http options as JSON (bench/rate-limits.ts runs the origin with rate limits).
      http: {
        host: '127.0.0.1',
        port: 0,
        maxConcurrentRequests: slots,
        ...gatewayHttp,
        ...extraHttp,
        ...JSON.parse(process.env.BENCH_ORIGIN_HTTP ?? '{}'),
      },
      tls,
      dataFormat: {
        format: 'json',
        json: { jsonContent: 'arrayOfObjects', maxObjectLengthChars: 1_000_000 },
      },
    },
    { runners, ...(gateway ? { gateway } : {}) },
  );
  const url = await origin.start();
  return Number(new URL(gatewayUrl ?? url).port);
}

/** The minimal server; over TLS with `tls` (key and certificate); with `handler` instead of the plain echo. */
async function startNode(tls, handler = nodeEcho) {
  const server = tls === undefined ? createServer(handler) : createHttpsServer(tls, handler);
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server.address().port;
}

async function startFastify() {
  const app = await fastifyEcho();
  await app.listen({ host: '127.0.0.1', port: 0 });
  return app.server.address().port;
}

// bench/echo.ts made the key and certificate in BENCH_TLS_DIR with openssl.
const startHttps = () => startOrigin({ useTls: true, keystoreType: 'pem', keystoreFile: 'keystore.pem' });

const starters = {
  origin: () => startOrigin(),
  https: startHttps,
  gateway: () => startOrigin({}, true),
  h2: () => startOrigin({}, false, { http2: true }),
  before: () => startOrigin(),
  node: () => startNode(),
  nodebatched: () => startNode(undefined, nodeEchoAtPassEnd),
  nodehttps: () => {
    // bench/echo.ts made keystore.pem (key then certificate) in BENCH_TLS_DIR with openssl.
    const pem = readFileSync(join(process.env.BENCH_TLS_DIR ?? '', 'keystore.pem'));
    return startNode({ key: pem, cert: pem });
  },
  fastify: startFastify,
};
const start = starters[kind];
if (start === undefined) {
  console.error('usage: echo-servers.mjs origin|https|gateway|h2|node|nodehttps|nodebatched|fastify|before');
  process.exit(2);
}
const port = await start();
if (process.send) {
  process.on('message', (message) => {
    if (message !== 'cpu') return;
    const { user, system } = process.cpuUsage();
    process.send({ cpuMicros: user + system });
  });
  // The bench going away closes the channel; do not outlive it.
  process.on('disconnect', () => process.exit(0));
}
console.log(port);
// Exit through process.exit so that --cpu-prof can write its profile when the bench stops the server.
process.once('SIGINT', () => process.exit(0));
process.once('SIGTERM', () => process.exit(0));

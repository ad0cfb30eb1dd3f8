// One server of `npm run bench -- --in-memory` (bench/in-memory.ts), in its own process: the echo of
// bench/echo-servers.mjs (origin, before, node or fastify) served over in-memory connections, with no socket and no
// load generator. Raw HTTP/1.1 requests are written into Node's own server through its 'connection' event, the
// answers read back, and this process's CPU time per request printed as JSON on one line.
//
// What it measures: the JavaScript of the request path (Node's HTTP code, the framework's and the origin's), with
// no kernel work and no waking of a load generator on the other core, which the socket bench charges to a slower
// server (docs/performance.md). The next request on a connection is written from a setImmediate after the answer,
// as a socket's round trip would, so that requests do not pile onto request slots still being released.
//
// usage: node bench/in-memory-echo.mjs <kind> <body JSON> <requests> [connections]
import { createServer, Server } from 'node:http';
import { Duplex } from 'node:stream';
import { pathToFileURL } from 'node:url';
import { fastifyEcho, nodeEcho } from './echo-handlers.mjs';

const [kind = 'origin', bodyText = '[{}]', requestCount = '50000', connectionCount = '10'] =
  process.argv.slice(2);
const REQUESTS = Number(requestCount);
const WARM_UP = Math.min(20_000, REQUESTS);

// The body bench/in-memory.ts made (bench/echo-body.ts), as the socket bench sends it.
const body = Buffer.from(bodyText);
const request = Buffer.concat([
  Buffer.from(
    `POST /bench HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`,
  ),
  body,
]);

async function fastifyServer() {
  const app = await fastifyEcho();
  await app.ready();
  return app.server;
}

/** The echo origin as bench/echo-servers.mjs makes it; its HTTP server is found among the process's handles. */
async function originServer(dist) {
  const { InProcessRunnerPool, Origin, echoPipeline } = await import(pathToFileURL(`${dist}/index.js`).href);
  const runners = new InProcessRunnerPool(10, echoPipeline, { runnerIdleTimeMs: 0 });
  const origin = new Origin(
    {
      http: { host: '127.0.0.1', port: 0, maxConcurrentRequests: 10 },
      dataFormat: {
        format: 'json',
        json: { jsonContent: 'arrayOfObjects', maxObjectLengthChars: 1_000_000 },
      },
    },
    { runners },
  );
  await origin.start();
  return process._getActiveHandles().find((handle) => handle instanceof Server);
}

/**
 * A baseline listens on a loopback port it never gets a connection on, as the origin does: a listening
 * `http.Server` tracks its connections for `requestTimeout` and `headersTimeout` (a set of parsers in C++, touched
 * on every request), which a server that never listened skips. Without this the baselines' requests cost ~1% less
 * than they do over sockets.
 */
async function listening(server) {
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}

const distOf = { origin: new URL('../dist', import.meta.url).pathname, before: process.env.BENCH_DIST };
const server =
  kind === 'node'
    ? await listening(createServer(nodeEcho))
    : kind === 'fastify'
      ? await listening(await fastifyServer())
      : await originServer(distOf[kind]);

/** Two in-memory ends: what one writes, the other reads. The server's end looks enough like a TCP socket. */
function connectionPair() {
  const ends = {};
  const end = (peer) =>
    new Duplex({
      read() {},
      write(chunk, _encoding, callback) {
        ends[peer].push(chunk);
        callback();
      },
    });
  ends.client = end('server');
  ends.server = end('client');
  Object.assign(ends.server, {
    remoteAddress: '127.0.0.1',
    remotePort: 1,
    setNoDelay: () => ends.server,
    setKeepAlive: () => ends.server,
    setTimeout: () => ends.server,
  });
  return ends;
}

let remaining = 0;
let allAnswered = () => {};

/** A client connection that sends the next request once the answer to the last one is complete. */
function openConnection() {
  const { client, server: serverEnd } = connectionPair();
  server.emit('connection', serverEnd);
  let pending = '';
  client.on('data', (chunk) => {
    pending += chunk.toString('latin1');
    for (;;) {
      const headEnd = pending.indexOf('\r\n\r\n');
      if (headEnd < 0) return;
      const length = Number(/content-length: (\d+)/i.exec(pending.slice(0, headEnd))?.[1]);
      if (pending.length < headEnd + 4 + length) return;
      if (!pending.startsWith('HTTP/1.1 200')) throw new Error(`unexpected answer: ${pending.slice(0, 200)}`);
      pending = pending.slice(headEnd + 4 + length);
      remaining--;
      if (remaining > 0) setImmediate(() => client.write(request));
      else if (remaining === 0) allAnswered();
    }
  });
  return client;
}

const clients = Array.from({ length: Number(connectionCount) }, openConnection);
function serve(count) {
  remaining = count;
  return new Promise((resolve) => {
    allAnswered = resolve;
    for (const client of clients) client.write(request);
  });
}

await serve(WARM_UP);
const before = process.cpuUsage();
await serve(REQUESTS);
const used = process.cpuUsage(before);
console.log(JSON.stringify({ kind, cpuMicrosPerRequest: (used.user + used.system) / REQUESTS }));
process.exit(0);

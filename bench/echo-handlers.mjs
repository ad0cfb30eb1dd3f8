// The echo the baselines of `npm run bench` do, shared by the servers that run it over sockets
// (bench/echo-servers.mjs) and in memory (bench/in-memory-echo.mjs): read the body, JSON.parse it, answer the
// envelope the origin answers.

/** The minimal node:http echo: a request listener for `createServer` (or `https.createServer`). */
export function nodeEcho(req, res) {
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', () => {
    const records = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    const body = JSON.stringify({ httpStatusCode: 200, data: records, error: [], errorMessage: null });
    res.writeHead(200, {
      'Content-Type': 'application/json; charset=utf-8',
      'Content-Length': Buffer.byteLength(body),
    });
    res.end(body);
  });
}

/**
 * {@link nodeEcho} with its answers written as the origin writes them (decision 0138): queued, and written together
 * in the check phase that follows the loop's poll phase. Not a baseline of a target: it shows what that way of
 * writing is worth to `node:http` itself.
 */
export function nodeEchoAtPassEnd(req, res) {
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', () => {
    const records = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    const body = JSON.stringify({ httpStatusCode: 200, data: records, error: [], errorMessage: null });
    queued.push(() => {
      res.writeHead(200, {
        'Content-Type': 'application/json; charset=utf-8',
        'Content-Length': Buffer.byteLength(body),
      });
      res.end(body);
    });
    if (queued.length === 1) setImmediate(writeQueued);
  });
}

let queued = [];

function writeQueued() {
  const writes = queued;
  queued = [];
  for (const write of writes) write();
}

/** A Fastify app doing the same work with its default JSON body parser and serializer (not yet listening). */
export async function fastifyEcho() {
  const { default: Fastify } = await import('fastify');
  const app = Fastify({ logger: false });
  app.post('/bench', async (request) => ({
    httpStatusCode: 200,
    data: request.body,
    error: [],
    errorMessage: null,
  }));
  return app;
}

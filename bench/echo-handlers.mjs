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

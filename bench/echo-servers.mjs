// The two servers `npm run bench` compares, each run in its own process by bench/echo.ts:
//   origin   — the echo origin (in-process runners, echo pipeline), JSON arrayOfObjects
//   baseline — a minimal node:http server doing the same work: read the body, JSON.parse, echo an envelope
// Prints the port on stdout once listening. Runs the built package (dist/), as a user would: `npm run bench`
// builds it first, so no TypeScript loader sits in the measured process.
import { createServer } from 'node:http';
import { InProcessRunnerPool, Origin, echoPipeline } from '../dist/index.js';

const kind = process.argv[2];

async function startOrigin() {
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
  return Number(new URL(await origin.start()).port);
}

async function startBaseline() {
  const server = createServer((req, res) => {
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
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server.address().port;
}

const port =
  kind === 'origin' ? await startOrigin() : kind === 'baseline' ? await startBaseline() : undefined;
if (port === undefined) {
  console.error('usage: echo-servers.ts origin|baseline');
  process.exit(2);
}
console.log(port);
// Exit through process.exit so that --cpu-prof can write its profile when the bench stops the server.
process.once('SIGINT', () => process.exit(0));

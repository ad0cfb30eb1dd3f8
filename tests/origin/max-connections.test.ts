import { connect, type Socket } from 'node:net';
import { InProcessRunnerPool, Origin, SendResponse, type Batch } from 'rest-service-origin';

/**
 * Issue 12, Found 12 (decision 0048): `http.maxConnections` caps the open connections of the port; a connection
 * beyond it is answered 503 ORIGIN_HTTP_TOO_MANY_CONNECTIONS with Retry-After and Connection: close at once, its
 * request never reaches the pipeline, and the origin serves again as soon as a connection closes.
 */

let origin: Origin | undefined;
let pool: InProcessRunnerPool | undefined;
const sockets: Socket[] = [];
afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  await origin?.destroy();
  await pool?.close();
});

async function start(maxConnections: number, seen: number[]): Promise<number> {
  pool = new InProcessRunnerPool(
    2,
    (batch: Batch) => {
      for (const record of batch.records) seen.push((record.value as { n: number }).n);
      new SendResponse().write(batch);
    },
    { runnerIdleTimeMs: 0 },
  );
  origin = new Origin(
    { http: { host: '127.0.0.1', port: 0, maxConnections }, dataFormat: { format: 'json' } },
    { runners: pool },
  );
  return Number(new URL(await origin.start()).port);
}

/** A connection that sends one request and collects what comes back; `answered` resolves on the first answer. */
function post(
  port: number,
  n: number,
): { socket: Socket; answered: Promise<string>; closed: Promise<string> } {
  const socket = connect(port, '127.0.0.1');
  sockets.push(socket);
  socket.setEncoding('latin1');
  let received = '';
  let onAnswer!: (text: string) => void;
  const answered = new Promise<string>((resolve) => (onAnswer = resolve));
  const closed = new Promise<string>((resolve) => socket.on('close', () => resolve(received)));
  socket.on('data', (chunk: string) => {
    received += chunk;
    if (received.includes('"errorMessage"')) onAnswer(received);
  });
  socket.on('error', () => undefined);
  const body = JSON.stringify({ n });
  socket.write(`POST / HTTP/1.1\r\nHost: x\r\nContent-Length: ${body.length}\r\n\r\n${body}`);
  return { socket, answered, closed };
}

describe('http.maxConnections', () => {
  it('answers a connection beyond the cap 503 with Retry-After and closes it; its request is not processed', async () => {
    const seen: number[] = [];
    const port = await start(3, seen);
    const kept = [post(port, 0), post(port, 1), post(port, 2)];
    for (const { answered } of kept) expect(await answered).toMatch(/^HTTP\/1\.1 200 /);
    const beyond = post(port, 3);
    const text = await beyond.closed;
    expect(text).toMatch(/^HTTP\/1\.1 503 /);
    expect(text).toMatch(/\r\nRetry-After: 1\r\n/);
    expect(text).toMatch(/\r\nConnection: close\r\n/);
    expect(text).toContain('ORIGIN_HTTP_TOO_MANY_CONNECTIONS - The origin already has maxConnections 3');
    expect(seen.sort()).toEqual([0, 1, 2]);
    expect(origin!.metrics().rejectedByReason['ORIGIN_HTTP_TOO_MANY_CONNECTIONS']).toBe(1);
    // The three kept connections are still served.
    expect(kept.every(({ socket }) => !socket.destroyed)).toBe(true);
  });

  it('serves a new connection again once one of the open ones has closed', async () => {
    const seen: number[] = [];
    const port = await start(1, seen);
    const first = post(port, 0);
    expect(await first.answered).toMatch(/^HTTP\/1\.1 200 /);
    first.socket.end();
    await first.closed;
    // The server learns of the close a moment after the client: until then a new connection may be refused.
    for (let n = 1; ; n++) {
      const next = post(port, n);
      const text = await Promise.race([next.answered, next.closed]);
      if (text.startsWith('HTTP/1.1 200 ')) break;
      expect(text).toMatch(/^HTTP\/1\.1 503 /);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(seen).toHaveLength(2);
  });
});

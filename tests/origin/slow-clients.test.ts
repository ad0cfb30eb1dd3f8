import { gzipSync } from 'node:zlib';
import { send, startOrigin, type TestOrigin } from './origin-helpers';
import { answerOf, rawConnection, requestHead } from './raw-client';

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Issue 12, Found 5 and scope 4: slow clients cannot hold request slots or connections for long. */
describe('slow clients', () => {
  let running: TestOrigin | undefined;
  afterEach(async () => {
    await running?.stop();
    running = undefined;
  });

  it('answers 408 to bodies trickling one byte at a time and frees their slots for normal requests', async () => {
    running = await startOrigin({
      http: {
        maxConcurrentRequests: 3,
        queueTimeoutMs: 20_000,
        bodyReadTimeoutMs: 300,
        minBodyBytesPerSecond: 500,
      },
    });
    const tricklers = await Promise.all(Array.from({ length: 3 }, () => rawConnection(running!.url)));
    const answers = tricklers.map((socket) => answerOf(socket));
    for (const socket of tricklers) {
      socket.write(requestHead({ 'Content-Type': 'application/json', 'Content-Length': 100_000 }));
    }
    let trickling = true;
    const trickle = (async () => {
      while (trickling) {
        for (const socket of tricklers) if (!socket.destroyed) socket.write(' ');
        await sleep(100);
      }
    })();
    while (running.origin.metrics().inFlight < 3) await sleep(5);
    // All slots are held by tricklers now; this request waits in the queue until one of them is cut off.
    const normal = await send(running.url, { body: '{"a":1}' });
    trickling = false;
    await trickle;
    expect(normal.status).toBe(200);
    for (const answer of await Promise.all(answers)) {
      expect(answer?.status).toBe(408);
      expect(answer?.headers['connection']).toBe('close');
      expect(answer?.body).toContain('ORIGIN_HTTP_BODY_TIMEOUT');
    }
    for (const socket of tricklers) socket.destroy();
    expect(running.origin.metrics().inFlight).toBe(0);
  });

  it('answers 408 to a gzip body that stops arriving', async () => {
    running = await startOrigin({ http: { bodyReadTimeoutMs: 200 } });
    const body = gzipSync(Buffer.from('{"a":1}'.repeat(1000)));
    const socket = await rawConnection(running.url);
    const answer = answerOf(socket);
    socket.write(requestHead({ 'Content-Encoding': 'gzip', 'Content-Length': body.length }));
    socket.write(body.subarray(0, 10));
    expect((await answer)?.status).toBe(408);
    socket.destroy();
  });

  it('lets a body that keeps up minBodyBytesPerSecond take longer than bodyReadTimeoutMs', async () => {
    running = await startOrigin({ http: { bodyReadTimeoutMs: 200, minBodyBytesPerSecond: 100 } });
    const socket = await rawConnection(running.url);
    const answer = answerOf(socket);
    const record = `{"pad":"${'x'.repeat(990)}"}\n`;
    socket.write(requestHead({ 'Content-Type': 'application/json', 'Content-Length': record.length * 6 }));
    // 1,000 bytes every 100 ms is a hundred times the minimum: each chunk earns 10 s more.
    for (let i = 0; i < 6; i++) {
      socket.write(record);
      await sleep(100);
    }
    expect((await answer)?.status).toBe(200);
    socket.destroy();
  });

  it('answers 408 to a client that sends its headers too slowly (slowloris) and closes the connection', async () => {
    running = await startOrigin({ http: { headersTimeoutMs: 200 } });
    const socket = await rawConnection(running.url);
    const answer = answerOf(socket);
    const closed = new Promise((resolve) => socket.once('close', resolve));
    socket.write('POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ');
    const timer = setInterval(() => socket.write('a'), 50);
    const got = await answer;
    clearInterval(timer);
    expect(got?.status).toBe(408);
    await closed;
    expect(running.origin.metrics().inFlight).toBe(0);
  });

  it('closes an idle keep-alive connection after keepAliveTimeoutMs', async () => {
    running = await startOrigin({ http: { keepAliveTimeoutMs: 100 } });
    const socket = await rawConnection(running.url);
    const closed = new Promise((resolve) => socket.once('close', resolve));
    const answer = answerOf(socket);
    socket.write(requestHead({ 'Content-Length': 2 }) + '{}');
    expect((await answer)?.status).toBe(200);
    await closed;
  });
});

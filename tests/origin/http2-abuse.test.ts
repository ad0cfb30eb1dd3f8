import { constants, type ClientHttp2Session } from 'node:http2';
import type { Socket } from 'node:net';
import { SendResponse, type Pipeline } from 'rest-service-origin';
import { collectGarbage } from './collect-garbage';
import {
  FLAG,
  FRAME,
  clientPreface,
  errorCodeOf,
  frame,
  h2Request,
  h2Session,
  hpackBomb,
  readFrames,
  requestHeaderBlock,
  tcpConnection,
} from './http2-client';
import { startOrigin, type TestConfig, type TestOrigin } from './origin-helpers';
import { drainedOrClosed } from './raw-client';

// The known HTTP/2 abuses, each from a raw client (hand-made frames over a socket, or node:http2 with settings no
// well-behaved client uses), each bounded, with a normal client answered during and after.

const started: TestOrigin[] = [];
const cleanups: Array<() => void> = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) cleanup();
  for (const origin of started.splice(0)) await origin.stop();
});

const batches: number[] = [];
const recording: Pipeline = (batch) => {
  batches.push(batch.records.length);
  new SendResponse().write(batch);
};

async function startH2(config: TestConfig = {}): Promise<TestOrigin> {
  batches.length = 0;
  const origin = await startOrigin({ ...config, http: { http2: true, ...config.http } }, recording);
  started.push(origin);
  return origin;
}

async function session(
  url: string,
  options: Parameters<typeof h2Session>[1] = {},
): Promise<ClientHttp2Session> {
  const opened = await h2Session(url, options);
  cleanups.push(() => opened.destroy());
  return opened;
}

async function raw(url: string): Promise<Socket> {
  const socket = await tcpConnection(url);
  cleanups.push(() => socket.destroy());
  return socket;
}

function loopback(url: string): string {
  return url.replace(/\/\/[^:/]+:/, '//127.0.0.1:');
}

async function waitFor(check: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Writes `count` copies of `unit` in chunks, waiting for the socket to drain; stops when the server closed it. */
async function flood(socket: Socket, unit: Buffer, count: number): Promise<number> {
  const perChunk = Math.max(1, Math.floor((64 * 1024) / unit.length));
  const chunk = Buffer.concat(Array.from({ length: perChunk }, () => unit));
  let sent = 0;
  while (sent < count && !socket.destroyed && socket.writable) {
    const ok = socket.write(chunk);
    sent += perChunk;
    if (!ok) await drainedOrClosed(socket);
  }
  return sent;
}

/** A normal client's request, answered 200 with its record echoed. */
async function normalRequest(h2: ClientHttp2Session, n: number): Promise<void> {
  const answer = await h2Request(h2, { body: `{"normal":${n}}` });
  expect(answer.status).toBe(200);
  expect(answer.json).toMatchObject({ data: [{ normal: n }] });
}

describe('HTTP/2 abuses are bounded', () => {
  it('rapid reset (CVE-2023-44487): thousands of HEADERS + RST_STREAM end the session and hold no slot or memory', async () => {
    const { origin, url } = await startH2();
    const normal = await session(loopback(url));
    await normalRequest(normal, 0);
    collectGarbage();
    const heapBefore = process.memoryUsage().heapUsed;

    const socket = await raw(url);
    const frames = readFrames(socket);
    socket.write(clientPreface());
    const authority = new URL(url).host;
    const pairs: Buffer[] = [];
    for (let i = 0; i < 10_000; i++) {
      const id = 2 * i + 1;
      pairs.push(
        frame(FRAME.HEADERS, FLAG.END_HEADERS, id, requestHeaderBlock(authority)),
        frame(FRAME.RST_STREAM, 0, id, Buffer.from([0, 0, 0, constants.NGHTTP2_CANCEL])),
      );
    }
    const attack = (async () => {
      for (let at = 0; at < pairs.length && !socket.destroyed; at += 2000) {
        socket.write(Buffer.concat(pairs.slice(at, at + 2000)));
        await new Promise((resolve) => setImmediate(resolve));
      }
    })();
    // A normal client is answered while the attack goes on.
    await Promise.all([attack, normalRequest(normal, 1), normalRequest(normal, 2)]);
    const { frames: received, closed } = await frames;
    expect(closed).toBe(true);
    // Node's limit on streams it cannot take yet (INTERNAL_ERROR) may come first; the origin's reset count ends
    // the session with ENHANCE_YOUR_CALM and closes the connection.
    const goAways = received.filter((f) => f.type === FRAME.GOAWAY).map(errorCodeOf);
    expect(goAways).toContain(constants.NGHTTP2_ENHANCE_YOUR_CALM);

    await waitFor(() => origin.metrics().inFlight === 0 && origin.metrics().queued === 0);
    await normalRequest(normal, 3);
    expect(batches.filter((records) => records === 1)).toHaveLength(4);
    // Only the normal client's requests reached the pipeline.
    expect(batches).toEqual([1, 1, 1, 1]);
    collectGarbage();
    expect(process.memoryUsage().heapUsed - heapBefore).toBeLessThan(8 * 1024 * 1024);
  });

  it.each([
    ['SETTINGS', () => frame(FRAME.SETTINGS, 0, 0), 4_000_000],
    ['PING', () => frame(FRAME.PING, 0, 0, Buffer.alloc(8)), 2_000_000],
  ])('a %s flood from a client that reads nothing ends its session', async (_, unit, count) => {
    const { url } = await startH2();
    const normal = await session(loopback(url));
    const socket = await raw(url);
    socket.pause();
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    socket.write(clientPreface());
    const during = normalRequest(normal, 1);
    await flood(socket, unit(), count);
    await during;
    await closed;
    await normalRequest(normal, 2);
  });

  it('an HPACK bomb (4 KB × 4000 references) has its stream refused before the origin sees it', async () => {
    const { origin, url } = await startH2();
    const normal = await session(loopback(url));
    const socket = await raw(url);
    const frames = readFrames(socket, (f) => f.type === FRAME.RST_STREAM || f.type === FRAME.GOAWAY);
    const block = requestHeaderBlock(new URL(url).host, hpackBomb(4000, 4000));
    socket.write(
      Buffer.concat([clientPreface(), frame(FRAME.HEADERS, FLAG.END_HEADERS | FLAG.END_STREAM, 1, block)]),
    );
    const { frames: received } = await frames;
    const refusal = received.find((f) => f.type === FRAME.RST_STREAM || f.type === FRAME.GOAWAY)!;
    expect([constants.NGHTTP2_ENHANCE_YOUR_CALM, constants.NGHTTP2_COMPRESSION_ERROR]).toContain(
      errorCodeOf(refusal),
    );
    await normalRequest(normal, 1);
    expect(origin.metrics().requests.total).toBe(1);
  });

  it('streams beyond http2MaxConcurrentStreams on one connection are refused (REFUSED_STREAM)', async () => {
    const { origin, url } = await startH2({ http: { http2MaxConcurrentStreams: 10 } });
    const socket = await raw(url);
    const frames = readFrames(
      socket,
      (_f, all) => all.filter((f) => f.type === FRAME.RST_STREAM).length >= 5,
    );
    const authority = new URL(url).host;
    const opened: Buffer[] = [clientPreface()];
    // HEADERS without END_STREAM: each stream stays open, waiting for a body that never comes.
    for (let i = 0; i < 15; i++)
      opened.push(frame(FRAME.HEADERS, FLAG.END_HEADERS, 2 * i + 1, requestHeaderBlock(authority)));
    socket.write(Buffer.concat(opened));
    const { frames: received } = await frames;
    const resets = received.filter((f) => f.type === FRAME.RST_STREAM);
    expect(resets.map(errorCodeOf)).toEqual(Array(5).fill(constants.NGHTTP2_REFUSED_STREAM));
    await waitFor(() => origin.metrics().inFlight === 10);
    socket.destroy();
    await waitFor(() => origin.metrics().inFlight === 0 && origin.metrics().queued === 0);
  });

  it('a stream window that never opens: the answer is cancelled after clientReadTimeoutMs, the slot long free', async () => {
    const { origin, url } = await startH2({ http: { clientReadTimeoutMs: 300 } });
    // initialWindowSize 0: the server may send headers, never a byte of the answer's body.
    const stuck = await session(loopback(url), { settings: { initialWindowSize: 0 } });
    const normal = await session(loopback(url));
    const reset = new Promise<number>((resolve) => {
      const stream = stuck.request({ ':method': 'POST', ':path': '/' });
      stream.on('error', () => undefined);
      stream.on('close', () => resolve(stream.rstCode));
      stream.end(JSON.stringify({ big: 'x'.repeat(200_000) }));
    });
    await waitFor(() => origin.metrics().requests.byOutcome.answered === 1);
    expect(origin.metrics()).toMatchObject({ inFlight: 0, queued: 0 });
    await normalRequest(normal, 1);
    expect(await reset).toBe(constants.NGHTTP2_CANCEL);
  });

  it('a plain connection that sends nothing is closed after headersTimeoutMs, as on an HTTP/1.1-only port', async () => {
    const { url } = await startH2({ http: { headersTimeoutMs: 300 } });
    const silent = await raw(url);
    const closed = await readFrames(silent);
    expect(closed).toEqual({ frames: [], closed: true });
    // A preface cut short is no protocol yet either.
    const cut = await raw(url);
    cut.write('PRI * HTTP/2.0\r\n');
    expect((await readFrames(cut)).closed).toBe(true);
  });

  it('destroy() and close() do not wait for a connection that has not told its protocol', async () => {
    // Timeouts far beyond the test's: only closing can end these connections.
    const patient: TestConfig = { http: { headersTimeoutMs: 600_000, requestTimeoutMs: 600_000 } };
    const first = await startH2(patient);
    const silent = await raw(first.url);
    const cut = readFrames(silent);
    await first.origin.destroy();
    expect((await cut).closed).toBe(true);
    const second = await startH2(patient);
    const quiet = await raw(second.url);
    const gone = readFrames(quiet);
    // After the 1 s linger of a gentle close.
    await second.origin.close({ timeoutMs: 5000 });
    expect((await gone).closed).toBe(true);
  });

  it('a stream that sends its headers and then nothing is cancelled after requestTimeoutMs', async () => {
    const { origin, url } = await startH2({ http: { requestTimeoutMs: 300, bodyReadTimeoutMs: 0 } });
    const h2 = await session(loopback(url));
    const reset = new Promise<number>((resolve) => {
      const stream = h2.request({ ':method': 'POST', ':path': '/' });
      stream.on('error', () => undefined);
      stream.on('close', () => resolve(stream.rstCode));
      stream.write('{"a":');
    });
    expect(await reset).toBe(constants.NGHTTP2_CANCEL);
    await waitFor(() => origin.metrics().inFlight === 0);
    expect(origin.metrics().rejectedByReason).toMatchObject({ ORIGIN_HTTP_BODY_ABORTED: 1 });
    await normalRequest(h2, 1);
  });

  it('a session with no stream open for keepAliveTimeoutMs gets GOAWAY, pings or not; a stream in progress keeps it', async () => {
    const keepAliveTimeoutMs = 300;
    const { url } = await startH2({ http: { keepAliveTimeoutMs, bodyReadTimeoutMs: 0 } });
    const goaways: string[] = [];
    // Pings and opens no stream: frames alone do not keep a session.
    const pinging = await session(loopback(url));
    pinging.on('goaway', () => goaways.push('pinging'));
    const pinger = setInterval(() => {
      if (!pinging.closed && !pinging.destroyed) pinging.ping(() => undefined);
    }, 50);
    cleanups.push(() => clearInterval(pinger));
    // A request whose body is still coming long after the others' GOAWAY.
    const busy = await session(loopback(url));
    busy.on('goaway', () => goaways.push('busy'));
    const stream = busy.request({ ':method': 'POST', ':path': '/' });
    const status = new Promise<number>((resolve) => {
      stream.on('response', (headers) => resolve(Number(headers[':status'])));
      stream.on('error', () => resolve(0));
    });
    stream.resume();
    stream.write('{"slow":');
    await waitFor(() => goaways.includes('pinging'));
    await waitFor(() => pinging.closed || pinging.destroyed);
    await new Promise((resolve) => setTimeout(resolve, 3 * keepAliveTimeoutMs));
    // (Node's graceful close sends GOAWAY twice: on close() and when the session ends.)
    expect(goaways).not.toContain('busy');
    stream.end('1}');
    expect(await status).toBe(200);
    // Its last stream closed, the busy session is idle in turn.
    await waitFor(() => goaways.includes('busy'));
  });
});

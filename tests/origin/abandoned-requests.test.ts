import { connect, type Socket } from 'node:net';
import { send, startOrigin, type TestOrigin } from './origin-helpers';

/** Opens a raw connection and sends the headers and the first part of a 10-byte JSON body. */
async function partialRequest(url: string): Promise<Socket> {
  const { port } = new URL(url);
  const socket = connect(Number(port), '127.0.0.1');
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  socket.write(
    'POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 10\r\n\r\n{"a":',
  );
  return socket;
}

/** The whole answer a raw connection receives until the server closes it or the head and body are in. */
function answerOf(socket: Socket): Promise<string> {
  return new Promise((resolve) => {
    let text = '';
    socket.on('data', (chunk: Buffer) => {
      text += chunk.toString('latin1');
      const head = text.indexOf('\r\n\r\n');
      const length = /content-length: (\d+)/i.exec(text)?.[1];
      if (head >= 0 && length !== undefined && text.length >= head + 4 + Number(length)) resolve(text);
    });
    socket.on('close', () => resolve(text));
  });
}

const until = async (check: () => boolean): Promise<void> => {
  while (!check()) await new Promise((resolve) => setTimeout(resolve, 5));
};

/** Issue 12, Found 1: a request slot is freed whatever the client does while it waits for one. */
describe('requests whose client leaves', () => {
  let running: TestOrigin | undefined;
  afterEach(async () => {
    await running?.stop();
    running = undefined;
  });

  it('frees the slot of a queued request whose client hung up before its turn', async () => {
    running = await startOrigin({ http: { maxConcurrentRequests: 1, queueTimeoutMs: 2_000 } });
    const holder = await partialRequest(running.url);
    await until(() => running!.origin.metrics().inFlight === 1);
    const leaver = await partialRequest(running.url);
    await until(() => running!.origin.metrics().queued === 1);
    leaver.destroy();
    // Let the server see the hang-up while the request still waits for the slot.
    await new Promise((resolve) => setTimeout(resolve, 50));
    const holderAnswer = answerOf(holder);
    holder.write('1}   ');
    expect(await holderAnswer).toMatch(/^HTTP\/1\.1 200/);
    holder.destroy();
    for (let i = 0; i < 3; i++) {
      const answer = await send(running.url, { body: '{"b":2}' });
      expect(answer.status).toBe(200);
    }
    await until(() => running!.origin.metrics().inFlight === 0);
  });

  it('frees every slot when many clients drop their partial bodies at once', async () => {
    running = await startOrigin({ http: { maxConcurrentRequests: 4, queueTimeoutMs: 5_000 } });
    const sockets = await Promise.all(Array.from({ length: 30 }, () => partialRequest(running!.url)));
    await until(() => running!.origin.metrics().inFlight === 4 && running!.origin.metrics().queued === 26);
    for (const socket of sockets) socket.destroy();
    await until(() => running!.origin.metrics().inFlight === 0 && running!.origin.metrics().queued === 0);
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, i) => send(running!.url, { body: `{"n":${i}}` })),
    );
    expect(answers.map((answer) => answer.status)).toEqual(Array(8).fill(200));
  });
});

import { connect, type Socket } from 'node:net';

/** Opens a raw TCP connection to the origin at `url`. */
export async function rawConnection(url: string): Promise<Socket> {
  const { port } = new URL(url);
  const socket = connect(Number(port), '127.0.0.1');
  socket.on('error', () => {});
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  return socket;
}

/**
 * Resolves once `socket` drains or closes, or `also` settles, leaving no listener on the socket: a writer that
 * waits for the server this way many times on one connection would otherwise pile up a `close` listener per wait.
 */
export function drainedOrClosed(socket: Socket, also?: Promise<unknown>): Promise<void> {
  return new Promise<void>((resolve) => {
    const done = (): void => {
      socket.off('drain', done);
      socket.off('close', done);
      resolve();
    };
    socket.once('drain', done);
    socket.once('close', done);
    void also?.then(done, done);
  });
}

/** An HTTP/1.1 request head with the given extra header lines. */
export function requestHead(headers: Record<string, string | number>, target = '/', method = 'POST'): string {
  const lines = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`);
  return `${method} ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\n${lines.join('')}\r\n`;
}

/** A raw answer: the status, the headers (lower-case names) and the body text. */
export interface RawAnswer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

/**
 * The first answer a raw connection receives, once its head and its Content-Length of body are in; `undefined`
 * when the server closes the connection without a whole answer.
 */
export function answerOf(socket: Socket): Promise<RawAnswer | undefined> {
  return new Promise((resolve) => {
    let text = '';
    const onData = (chunk: Buffer): void => {
      text += chunk.toString('latin1');
      const answer = parseAnswer(text);
      if (answer) {
        socket.off('data', onData);
        resolve(answer);
      }
    };
    socket.on('data', onData);
    socket.once('close', () => resolve(parseAnswer(text)));
  });
}

function parseAnswer(text: string): RawAnswer | undefined {
  const end = text.indexOf('\r\n\r\n');
  if (end < 0) return undefined;
  const [statusLine = '', ...lines] = text.slice(0, end).split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const length = Number(headers['content-length'] ?? 0);
  if (text.length < end + 4 + length) return undefined;
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(statusLine)?.[1]);
  return { status, headers, body: text.slice(end + 4, end + 4 + length) };
}

/**
 * Sends a request whose body is `prefix`, then `pattern` repeated up to `bodyBytes` in all, written as fast as the server reads it
 * (never held whole in memory), and stops writing as soon as an answer arrives or the connection closes.
 * Resolves with the answer and how many body bytes were written.
 */
export async function streamRequest(
  url: string,
  headers: Record<string, string | number>,
  bodyBytes: number,
  pattern: Buffer,
  prefix: Buffer = Buffer.alloc(0),
): Promise<{ answer: RawAnswer | undefined; sentBytes: number }> {
  const socket = await rawConnection(url);
  const answered = answerOf(socket);
  let stopped = false;
  void answered.then(() => (stopped = true));
  socket.once('close', () => (stopped = true));
  socket.write(requestHead({ ...headers, 'Content-Length': bodyBytes }));
  const chunk = Buffer.alloc(Math.max(pattern.length, Math.floor(65_536 / pattern.length) * pattern.length));
  for (let i = 0; i < chunk.length; i += pattern.length) pattern.copy(chunk, i);
  socket.write(prefix);
  let sentBytes = prefix.length;
  while (!stopped && sentBytes < bodyBytes) {
    const piece = chunk.subarray(0, Math.min(chunk.length, bodyBytes - sentBytes));
    sentBytes += piece.length;
    if (!socket.write(piece)) await drainedOrClosed(socket, answered);
  }
  const answer = await answered;
  socket.destroy();
  return { answer, sentBytes };
}

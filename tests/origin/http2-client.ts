import { execFile } from 'node:child_process';
import { connect, type ClientHttp2Session, type SecureClientSessionOptions } from 'node:http2';
import { connect as connectTcp, type Socket } from 'node:net';

/** An HTTP/2 session to `url` (h2c with prior knowledge for `http:`, ALPN `h2` for `https:`); close it in teardown. */
export async function h2Session(
  url: string,
  options: SecureClientSessionOptions = {},
): Promise<ClientHttp2Session> {
  const session = connect(url, options);
  session.on('error', () => undefined);
  await new Promise<void>((resolve, reject) => {
    session.once('connect', () => resolve());
    session.once('error', reject);
  });
  return session;
}

/** One request on an HTTP/2 session, its answer read whole. */
export function h2Request(
  session: ClientHttp2Session,
  options: { path?: string; method?: string; body?: string | Buffer; headers?: Record<string, string> } = {},
): Promise<{ status: number; headers: Record<string, unknown>; text: string; json: unknown }> {
  return new Promise((resolve, reject) => {
    const stream = session.request({
      ':method': options.method ?? 'POST',
      ':path': options.path ?? '/',
      ...options.headers,
    });
    let headers: Record<string, unknown> = {};
    let text = '';
    stream.setEncoding('utf8');
    stream.on('response', (received) => (headers = received));
    stream.on('data', (chunk: string) => (text += chunk));
    stream.on('end', () => {
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch {
        json = undefined;
      }
      resolve({ status: Number(headers[':status']), headers, text, json });
    });
    stream.on('error', reject);
    stream.end(options.body);
  });
}

/** Runs curl with `args`; resolves with its exit code and output, never rejects. */
export function curl(args: readonly string[]): Promise<{ exitCode: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile('curl', ['--silent', '--show-error', ...args], (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === 'number' ? error.code : 1;
      resolve({ exitCode: code, stdout, stderr });
    });
  });
}

// Hand-made HTTP/2 frames (RFC 9113 §4.1, §6), for clients that misbehave in ways node:http2 will not.

export const FRAME = { DATA: 0, HEADERS: 1, RST_STREAM: 3, SETTINGS: 4, PING: 6, GOAWAY: 7 } as const;
export const FLAG = { END_STREAM: 0x1, ACK: 0x1, END_HEADERS: 0x4 } as const;
const PREFACE = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', 'latin1');

/** One frame: 9-byte header (length, type, flags, stream id) and payload. */
export function frame(
  type: number,
  flags: number,
  streamId: number,
  payload: Buffer = Buffer.alloc(0),
): Buffer {
  const head = Buffer.alloc(9);
  head.writeUIntBE(payload.length, 0, 3);
  head.writeUInt8(type, 3);
  head.writeUInt8(flags, 4);
  head.writeUInt32BE(streamId & 0x7fffffff, 5);
  return Buffer.concat([head, payload]);
}

/** The connection preface and an empty SETTINGS frame: what a client sends first. */
export function clientPreface(): Buffer {
  return Buffer.concat([PREFACE, frame(FRAME.SETTINGS, 0, 0)]);
}

/** An HPACK string literal without Huffman coding (RFC 7541 §5.2), lengths below 127 or longer. */
function hpackString(text: string): Buffer {
  const bytes = Buffer.from(text, 'latin1');
  return Buffer.concat([hpackInteger(bytes.length, 7, 0), bytes]);
}

/** An HPACK integer with an `prefixBits`-bit prefix (RFC 7541 §5.1); `high` holds the bits above the prefix. */
function hpackInteger(value: number, prefixBits: number, high: number): Buffer {
  const max = (1 << prefixBits) - 1;
  if (value < max) return Buffer.from([high | value]);
  const bytes = [high | max];
  let rest = value - max;
  while (rest >= 128) {
    bytes.push((rest % 128) + 128);
    rest = Math.floor(rest / 128);
  }
  bytes.push(rest);
  return Buffer.from(bytes);
}

/**
 * The HPACK block of a `POST /` request to `authority` (static table entries for the pseudo-headers, a literal
 * without indexing for `:authority`), plus `extra` already encoded.
 */
export function requestHeaderBlock(authority: string, extra: Buffer = Buffer.alloc(0)): Buffer {
  return Buffer.concat([
    Buffer.from([0x83, 0x84, 0x86]), // :method POST, :path /, :scheme http
    Buffer.from([0x01]), // :authority, literal without indexing, name from static index 1
    hpackString(authority),
    extra,
  ]);
}

/**
 * An HPACK bomb (the shape of CVE-2016-6581): one header of `valueBytes` added to the dynamic table, then
 * referenced `repeats` times at one byte each: a few bytes on the wire expand to `valueBytes × repeats`.
 */
export function hpackBomb(valueBytes: number, repeats: number): Buffer {
  const literal = Buffer.concat([
    Buffer.from([0x40]),
    hpackString('x-bomb'),
    hpackString('b'.repeat(valueBytes)),
  ]);
  // Dynamic table index 62 (the entry just added), indexed header field representation.
  return Buffer.concat([literal, Buffer.alloc(repeats, 0x80 | 62)]);
}

/** A plain TCP connection to the host and port of `url`. */
export function tcpConnection(url: string): Promise<Socket> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connectTcp(Number(port), hostname, () => resolve(socket));
    socket.once('error', reject);
  });
}

/**
 * Resolves once the server has closed `socket` (or reset it), with the GOAWAY error code it sent when it sent
 * one and the bytes it sent; everything the server sends is read meanwhile unless `read` is false.
 */
export function serverClose(socket: Socket): Promise<{ goAwayCode: number | undefined; bytes: number }> {
  return new Promise((resolve) => {
    let received = Buffer.alloc(0);
    let bytes = 0;
    socket.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
      // Keep only what may still hold a GOAWAY: the frames are parsed at the end.
      received = Buffer.concat([received, chunk]);
      if (received.length > 1 << 20) received = received.subarray(received.length - (1 << 16));
    });
    socket.on('error', () => undefined);
    socket.once('close', () => resolve({ goAwayCode: goAwayCodeIn(received), bytes }));
  });
}

function goAwayCodeIn(bytes: Buffer): number | undefined {
  let code: number | undefined;
  for (let at = bytes.indexOf(Buffer.from([FRAME.GOAWAY, 0, 0, 0, 0, 0]), 3); at >= 3;) {
    const length = bytes.readUIntBE(at - 3, 3);
    if (length >= 8 && at + 6 + 8 <= bytes.length) code = bytes.readUInt32BE(at + 6 + 4);
    at = bytes.indexOf(Buffer.from([FRAME.GOAWAY, 0, 0, 0, 0, 0]), at + 1);
  }
  return code;
}

/** A frame the server sent. */
export interface ReceivedFrame {
  readonly type: number;
  readonly flags: number;
  readonly streamId: number;
  readonly payload: Buffer;
}

/**
 * Reads the frames the server sends on `socket` (after the client preface) until `stop` returns true for one of
 * them or the server closes the connection; resolves with the frames read and whether the server closed it.
 */
export function readFrames(
  socket: Socket,
  stop: (frame: ReceivedFrame, all: readonly ReceivedFrame[]) => boolean = () => false,
): Promise<{ frames: ReceivedFrame[]; closed: boolean }> {
  return new Promise((resolve) => {
    const frames: ReceivedFrame[] = [];
    let pending: Buffer = Buffer.alloc(0);
    let done = false;
    const finish = (closed: boolean): void => {
      if (done) return;
      done = true;
      socket.off('data', onData);
      resolve({ frames, closed });
    };
    const onData = (chunk: Buffer): void => {
      pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
      while (pending.length >= 9) {
        const length = pending.readUIntBE(0, 3);
        if (pending.length < 9 + length) break;
        const received: ReceivedFrame = {
          type: pending.readUInt8(3),
          flags: pending.readUInt8(4),
          streamId: pending.readUInt32BE(5) & 0x7fffffff,
          payload: pending.subarray(9, 9 + length),
        };
        pending = pending.subarray(9 + length);
        // DATA frames are counted, not kept: a flood test may read megabytes of them.
        frames.push(received.type === FRAME.DATA ? { ...received, payload: Buffer.alloc(0) } : received);
        if (stop(received, frames)) return finish(false);
      }
    };
    socket.on('data', onData);
    socket.on('error', () => undefined);
    socket.once('close', () => finish(true));
  });
}

/** The error code of a RST_STREAM or GOAWAY frame. */
export function errorCodeOf(received: ReceivedFrame): number {
  return received.type === FRAME.GOAWAY ? received.payload.readUInt32BE(4) : received.payload.readUInt32BE(0);
}

// What `npm run bench -- --fairness` and `npm run bench -- --memory` share: the large bodies they send, the small
// one-record requests, and a fresh origin process per case (bench/large-body-server.mjs, from dist/).
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { Agent, request } from 'node:http';
import { fileURLToPath } from 'node:url';
import { serverCommand } from './bench-process';

/** The body layouts both modes send: JSON `multipleObjects` (one object per line), and CSV with a header line. */
export type BodyKind = 'json' | 'csv';

const CSV_HEADER = 'id,name,email,active,score,city,zip\n';

function jsonLine(i: number): string {
  return `{"id":${i},"name":"customer ${i}","email":"c${i}@example.com","active":${i % 2 === 0},"score":${i * 1.5},"tags":["a","b"],"address":{"city":"Lyon","zip":"69001"}}\n`;
}

function csvLine(i: number): string {
  return `${i},customer ${i},c${i}@example.com,${i % 2 === 0},${i * 1.5},Lyon,69001\n`;
}

/** A body of `kind` of at least `bytes` bytes, and how many records it holds. */
export function largeBody(kind: BodyKind, bytes: number): { body: Buffer; records: number } {
  const parts: string[] = kind === 'csv' ? [CSV_HEADER] : [];
  let length = kind === 'csv' ? CSV_HEADER.length : 0;
  let records = 0;
  while (length < bytes) {
    const line = kind === 'csv' ? csvLine(records) : jsonLine(records);
    parts.push(line);
    length += line.length;
    records++;
  }
  return { body: Buffer.from(parts.join(''), 'latin1'), records };
}

/** The one-record body of `kind`. */
export function smallBody(kind: BodyKind): Buffer {
  return largeBody(kind, 1).body;
}

export interface LargeBodyServer {
  readonly child: ChildProcess;
  readonly port: number;
}

/**
 * Starts bench/large-body-server.mjs for `kind` with `pipeline` (`echo` or `count`), on core 0 when `pinned`, with
 * `nodeFlags` before the script and `env` added to this process's environment.
 */
export async function startLargeBodyServer(
  kind: BodyKind,
  pipeline: 'echo' | 'count',
  options: { pinned: boolean; nodeFlags?: readonly string[]; env?: Readonly<Record<string, string>> },
): Promise<LargeBodyServer> {
  const script = fileURLToPath(new URL('./large-body-server.mjs', import.meta.url));
  const nodeArgs = [...(options.nodeFlags ?? []), script, kind, pipeline];
  const [command, args] = serverCommand(nodeArgs, options.pinned);
  const child = spawn(command, args, {
    stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
    env: { ...process.env, ...options.env },
  });
  const exited = once(child, 'exit').then(([code]) => {
    throw new Error(`the ${kind} server exited with code ${String(code)} before listening`);
  });
  const [chunk] = (await Promise.race([once(child.stdout!, 'data'), exited])) as [Buffer];
  exited.catch(() => {});
  return { child, port: Number(chunk.toString().trim()) };
}

/** Sends `message` to the server and resolves with its answer. */
export async function ask<T>(server: LargeBodyServer, message: string): Promise<T> {
  const answer = once(server.child, 'message') as Promise<[T]>;
  server.child.send(message);
  return (await answer)[0];
}

export async function stopServer(server: LargeBodyServer): Promise<void> {
  const exited = once(server.child, 'exit');
  server.child.kill('SIGTERM');
  await exited;
}

/**
 * POSTs `body` on its own connection and reads the whole answer; resolves with its status and the answer's byte
 * count (the answer is counted, not kept).
 */
export function post(port: number, body: Buffer, agent?: Agent): Promise<{ status: number; bytes: number }> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path: '/',
        method: 'POST',
        agent: agent ?? false,
        headers: { 'content-length': body.length },
      },
      (res) => {
        let bytes = 0;
        res.on('data', (chunk: Buffer) => (bytes += chunk.length));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, bytes }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

export const MB = 1_000_000;

import { spawn, type ChildProcess } from 'node:child_process';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { freePort } from './origin-helpers';

/** Starts the cluster script; resolves once both workers listen. Kill it with SIGTERM and await `exited`. */
async function startCluster(
  port: number,
  http: object,
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ primary: ChildProcess; exited: Promise<void> }> {
  const primary = spawn(
    process.execPath,
    ['--import', 'tsx', join(__dirname, 'cluster-rate-limit-primary.ts'), String(port), JSON.stringify(http)],
    { stdio: ['ignore', 'pipe', 'inherit'], env },
  );
  const exited = new Promise<void>((resolve) => primary.once('exit', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    primary.stdout!.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('ready')) resolve();
    });
    primary.once('exit', (code) => reject(new Error(`the cluster primary exited with ${code}`)));
  });
  return { primary, exited };
}

/** One request on its own connection (the cluster hands connections to workers in turn). */
function post(
  port: number,
  tenant: string,
): Promise<{ status: number; worker: string; retryAfter?: string; code: string }> {
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        agent: false,
        headers: { 'X-ENGINE-APPLICATION-ID': tenant, Connection: 'close' },
      },
      (answer) => {
        const chunks: Buffer[] = [];
        answer.on('data', (chunk: Buffer) => chunks.push(chunk));
        answer.on('end', () =>
          resolve({
            code: String(
              (JSON.parse(Buffer.concat(chunks).toString()) as { errorMessage: unknown }).errorMessage,
            ),
            status: answer.statusCode ?? 0,
            worker: String(answer.headers['x-worker'] ?? ''),
            ...(answer.headers['retry-after'] ? { retryAfter: String(answer.headers['retry-after']) } : {}),
          }),
        );
      },
    );
    outgoing.on('error', reject);
    outgoing.end('{"a":1}');
  });
}

describe('http.rateLimits with node:cluster workers', () => {
  it('holds for the whole port: two workers share one limit through the primary', async () => {
    const port = await freePort();
    const http = {
      applicationIds: ['tenant-a', 'tenant-b'],
      rateLimits: [{ key: 'applicationId', requestsPerSecond: 0.1, burst: 6 }],
    };
    const primary = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        join(__dirname, 'cluster-rate-limit-primary.ts'),
        String(port),
        JSON.stringify(http),
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    const exited = new Promise<void>((resolve) => primary.once('exit', () => resolve()));
    try {
      await new Promise<void>((resolve, reject) => {
        primary.stdout.on('data', (chunk: Buffer) => {
          if (chunk.toString().includes('ready')) resolve();
        });
        primary.once('exit', (code) => reject(new Error(`the cluster primary exited with ${code}`)));
      });
      const a = [];
      for (let i = 0; i < 10; i++) a.push(await post(port, 'tenant-a'));
      const b = [];
      for (let i = 0; i < 4; i++) b.push(await post(port, 'tenant-b'));

      // Both workers answered tenant-a, so a limit per worker (6 each) would have let all 10 through.
      expect(new Set(a.filter((answer) => answer.status === 200).map((answer) => answer.worker)).size).toBe(
        2,
      );
      expect(a.map((answer) => answer.status)).toEqual([200, 200, 200, 200, 200, 200, 429, 429, 429, 429]);
      expect(a.slice(6).every((answer) => Number(answer.retryAfter) >= 1)).toBe(true);
      expect(b.map((answer) => answer.status)).toEqual([200, 200, 200, 200]);
    } finally {
      primary.kill('SIGTERM');
      await exited;
    }
  });

  it('answers 503 ORIGIN_HTTP_RATE_LIMITER_UNAVAILABLE with Retry-After when the primary keeps no limits', async () => {
    const port = await freePort();
    const http = {
      applicationIds: ['tenant-a'],
      retryAfterSeconds: 2,
      rateLimits: [{ key: 'applicationId', requestsPerSecond: 1, burst: 1 }],
    };
    const { primary, exited } = await startCluster(port, http, { ...process.env, NO_LIMITER_PRIMARY: '1' });
    try {
      const answer = await post(port, 'tenant-a');
      expect(answer.status).toBe(503);
      expect(answer.retryAfter).toBe('2');
      expect(answer.code).toMatch(/^ORIGIN_HTTP_RATE_LIMITER_UNAVAILABLE - The rate limiter did not answer/);
    } finally {
      primary.kill('SIGTERM');
      await exited;
    }
  });
});

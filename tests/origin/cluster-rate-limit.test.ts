import { spawn } from 'node:child_process';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { freePort } from './origin-helpers';

/** One request on its own connection (the cluster hands connections to workers in turn). */
function post(
  port: number,
  tenant: string,
): Promise<{ status: number; worker: string; retryAfter?: string }> {
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
        answer.resume();
        answer.on('end', () =>
          resolve({
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
});

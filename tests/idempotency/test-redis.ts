import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../origin/origin-helpers';
import { stopProcess, waitForPort } from '../support/server-process';

/** A throwaway `redis-server` on a loopback port. */
export interface TestRedis {
  /** `redis://127.0.0.1:<port>/0`. */
  readonly url: string;
  readonly port: number;
  /** Stops the server (SIGTERM) and removes its directory. */
  stop(): Promise<void>;
  /** Stops the server, keeping its directory and port, so that `start` can bring it back. */
  pause(): Promise<void>;
  /** Starts it again on the same port after `pause` (empty: nothing is saved). */
  resume(): Promise<void>;
}

/**
 * Starts `redis-server` (Debian redis-server) on a free 127.0.0.1 port in a temporary directory, with nothing
 * saved to disk (`--save ''`, `--appendonly no`). Rejects, so that the test fails, when the binary is missing or
 * the server does not listen within 10 s.
 */
export async function startRedis(): Promise<TestRedis> {
  const dir = mkdtempSync(join(tmpdir(), 'origin-redis-'));
  const port = await freePort();
  let server: ChildProcess | undefined;
  const launch = async (): Promise<ChildProcess> => {
    let output = '';
    const child = spawn(
      'redis-server',
      ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    // A missing binary is an 'error' event: remember it so that waitForPort sees the exit and reports it.
    child.on('error', (error) => (output += String(error)));
    await waitForPort('redis-server', port, child, () => output);
    return child;
  };
  try {
    server = await launch();
  } catch (error) {
    if (server) await stopProcess(server);
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  return {
    url: `redis://127.0.0.1:${port}/0`,
    port,
    stop: async () => {
      if (server) await stopProcess(server);
      rmSync(dir, { recursive: true, force: true });
    },
    pause: async () => {
      if (server) await stopProcess(server);
    },
    resume: async () => {
      server = await launch();
    },
  };
}

import type { ChildProcess } from 'node:child_process';
import { connect } from 'node:net';

/**
 * Resolves once `child` (a server the tests started: krb5kdc, slapd, …) accepts TCP connections on
 * 127.0.0.1:`port`; rejects, with what the server printed, when it exits first or does not listen within 10 s.
 */
export async function waitForPort(
  name: string,
  port: number,
  child: ChildProcess,
  output: () => string,
): Promise<void> {
  for (let attempt = 0; attempt < 100; attempt++) {
    if (child.exitCode !== null) throw new Error(`${name} exited with ${child.exitCode}: ${output()}`);
    if (await accepts(port)) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${name} did not listen on 127.0.0.1:${port}: ${output()}`);
}

/** Stops a server the tests started (SIGTERM) and resolves once it has exited. */
export function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

function accepts(port: number): Promise<boolean> {
  return new Promise<boolean>((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

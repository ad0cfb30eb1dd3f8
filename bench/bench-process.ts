// What the benches that load servers in processes of their own share: starting such a server (it prints its port
// on one line and answers `cpu` over IPC with its own CPU time), reading its CPU time, and the median of rounds.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';

/** A bench server in its own process, listening on 127.0.0.1:`port`. */
export interface BenchServer {
  readonly child: ChildProcess;
  readonly port: number;
}

/**
 * Starts `command args` (a script that prints its port, then serves) and waits for its port; rejects, naming
 * `name`, if it exits before that.
 */
export async function startBenchServer(
  name: string,
  command: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
): Promise<BenchServer> {
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'inherit', 'ipc'], env });
  const exited = once(child, 'exit').then(([code]) => {
    throw new Error(`the ${name} server exited with code ${String(code)} before listening`);
  });
  const [chunk] = (await Promise.race([once(child.stdout!, 'data'), exited])) as [Buffer];
  exited.catch(() => {});
  return { child, port: Number(chunk.toString().trim()) };
}

/** The server process's own CPU time so far, in µs (it answers the IPC message `cpu`). */
export async function serverCpuMicros(server: BenchServer): Promise<number> {
  const answer = once(server.child, 'message') as Promise<[{ cpuMicros: number }]>;
  server.child.send('cpu');
  return (await answer)[0].cpuMicros;
}

/** The median of `values` (the mean of the middle two for an even count). */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

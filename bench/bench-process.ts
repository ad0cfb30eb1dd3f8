// What the benches that load servers in processes of their own share: pinning the load generator and the server
// to cores of their own, starting such a server (it prints its port on one line and answers `cpu` over IPC with its
// own CPU time), reading its CPU time, and the median of rounds.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { availableParallelism } from 'node:os';

/**
 * Pins this process (all its threads: the load generator) to core 1 on a machine with two cores or more, so that
 * the servers, started through {@link serverCommand}, have core 0 to themselves. False when the machine or the OS
 * cannot; the bench then runs unpinned.
 */
export function pinLoadGenerator(): boolean {
  if (availableParallelism() < 2) return false;
  try {
    execFileSync('taskset', ['-a', '-p', '-c', '1', String(process.pid)], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** The command and arguments that run `node nodeArgs…`, on core 0 when `pinned`. */
export function serverCommand(nodeArgs: readonly string[], pinned: boolean): [string, string[]] {
  return pinned ? ['taskset', ['-c', '0', process.execPath, ...nodeArgs]] : [process.execPath, [...nodeArgs]];
}

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

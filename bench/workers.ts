// `npm run bench -- --workers`: `rest-origin serve` (the built CLI, the echo pipeline, JSON) with --workers 1 and
// --workers 2, loaded in turn by autocannon in this process: requests/s, p99, and the CPU the server's processes
// used (primary and workers, read from /proc) per request and in all (in cores: CPU time over wall time).
// Rounds alternate 1 and 2 workers so that machine noise hits both alike. On a machine of two cores the load
// generator competes with the workers for the same cores: 2 workers cannot double the throughput there.
//
// Environment: BENCH_ROUNDS (3), BENCH_SECONDS (5), BENCH_CONNECTIONS (50), BENCH_WORKERS (`1,2`).
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { freePort } from '../tests/support/free-port';
import { median } from './bench-process';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const WORKER_COUNTS = (process.env.BENCH_WORKERS ?? '1,2').split(',').map(Number);
/** Clock ticks per second of /proc/<pid>/stat's utime and stime (USER_HZ, 100 on Linux). */
const TICKS_PER_SECOND = 100;

interface Server {
  readonly child: ChildProcess;
  readonly pids: number[];
  readonly url: string;
}

const dir = mkdtempSync(join(tmpdir(), 'bench-workers-'));
const config = join(dir, 'config.json');
writeFileSync(
  config,
  JSON.stringify({
    http: { host: '127.0.0.1' },
    dataFormat: { format: 'json', json: { jsonContent: 'arrayOfObjects' } },
    pipeline: { runnerIdleTimeMs: 0 },
  }),
);

async function startServer(workers: number): Promise<Server> {
  const port = await freePort();
  const cli = join(process.cwd(), 'dist', 'cli.js');
  const child = spawn(
    process.execPath,
    [cli, 'serve', '--config', config, '--port', String(port), '--workers', String(workers)],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  let out = '';
  child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  // With one worker the command serves in its own process; with more, the primary says when all listen.
  const ready = workers === 1 ? /listening at (\S+)/ : /workers serving at (\S+)/;
  while (!ready.test(out)) {
    if (child.exitCode !== null) throw new Error(`rest-origin exited: ${out}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const pids = [child.pid!, ...[...out.matchAll(/\(pid (\d+)\) listening/g)].map((m) => Number(m[1]))];
  return { child, pids, url: ready.exec(out)![1]! };
}

/** CPU seconds used so far by the processes `pids` (user + system). */
function cpuSeconds(pids: readonly number[]): number {
  let ticks = 0;
  for (const pid of pids) {
    // The fields after the command name (which may hold spaces) start with the state; utime and stime are 14, 15.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    ticks += Number(fields[11]) + Number(fields[12]);
  }
  return ticks / TICKS_PER_SECOND;
}

interface Measured {
  rps: number;
  p99: number;
  cpuMicrosPerRequest: number;
  serverCores: number;
  loadCores: number;
  errors: number;
}

async function measure(server: Server, seconds: number): Promise<Measured> {
  const cpuBefore = cpuSeconds(server.pids);
  const loadBefore = process.cpuUsage();
  const startedAt = performance.now();
  const result = await autocannon({
    url: new URL('bench', server.url).href,
    method: 'POST',
    body: JSON.stringify([{ id: 1, name: 'customer 1', email: 'c1@example.com', active: true }]),
    headers: { 'content-type': 'application/json' },
    connections: CONNECTIONS,
    duration: seconds,
  });
  const wall = (performance.now() - startedAt) / 1000;
  const cpu = cpuSeconds(server.pids) - cpuBefore;
  const load = process.cpuUsage(loadBefore);
  return {
    rps: result.requests.average,
    p99: result.latency.p99,
    cpuMicrosPerRequest: (cpu * 1e6) / Math.max(1, result.requests.total),
    serverCores: cpu / wall,
    loadCores: (load.user + load.system) / 1e6 / wall,
    errors: result.errors + result.non2xx,
  };
}

const servers = new Map<number, Server>();
const rounds = new Map<number, Measured[]>(WORKER_COUNTS.map((n) => [n, []]));
try {
  for (const n of WORKER_COUNTS) servers.set(n, await startServer(n));
  for (const n of WORKER_COUNTS) await measure(servers.get(n)!, Math.min(2, SECONDS)); // warm-up
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 ? [...WORKER_COUNTS].reverse() : WORKER_COUNTS;
    for (const n of order) rounds.get(n)!.push(await measure(servers.get(n)!, SECONDS));
  }
} finally {
  // Wait for the servers to drain and exit: they print while they do, to a pipe this process holds.
  await Promise.all(
    [...servers.values()].map(({ child }) => {
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      return exited;
    }),
  );
  rmSync(dir, { recursive: true, force: true });
}

console.log(
  `\nrest-origin serve --workers N: 1-record JSON echo, ${ROUNDS} rounds of ${SECONDS}s, ${CONNECTIONS} connections, ` +
    `${availableParallelism()} cores (the load generator runs on the same cores)\n`,
);
console.log(
  '  workers |    req/s | p99 ms | server CPU µs/req | server cores | load generator cores | errors',
);
const fixed = (value: number, digits: number, width: number): string => value.toFixed(digits).padStart(width);
for (const n of WORKER_COUNTS) {
  const runs = rounds.get(n)!;
  const m = (pick: (r: Measured) => number): number => median(runs.map(pick));
  console.log(
    `  ${String(n).padStart(7)} | ${fixed(
      m((r) => r.rps),
      0,
      8,
    )} | ${fixed(
      m((r) => r.p99),
      1,
      6,
    )} | ` +
      `${fixed(
        m((r) => r.cpuMicrosPerRequest),
        1,
        17,
      )} | ${fixed(
        m((r) => r.serverCores),
        2,
        12,
      )} | ` +
      `${fixed(
        m((r) => r.loadCores),
        2,
        20,
      )} | ${runs.reduce((sum, r) => sum + r.errors, 0)}`,
  );
}
const [one, two] = WORKER_COUNTS.map((n) => rounds.get(n)!);
if (one && two) {
  const ratios = two.map((run, i) => run.rps / one[i]!.rps);
  console.log(
    `\n  ${WORKER_COUNTS[1]} workers / ${WORKER_COUNTS[0]}: ${median(ratios).toFixed(2)}x requests/s ` +
      `(${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)}, paired by round)`,
  );
}

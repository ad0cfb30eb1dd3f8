// `npm run bench -- --idempotency`: what idempotency keys cost on the echo origin (1-record body). Three origin
// processes: without keys (`plain`), with the in-memory store (`memory`) and with the Redis store on a
// redis-server this bench starts on a free loopback port (`redis`). Each keyed run sends a new key per request
// (every request is a first request: lock, digest, keep); the `replay` rows send one key again and again (every
// request is a replay). The figure that counts is the server's own CPU per request (as in bench/echo.ts; Redis's
// own CPU is not included), with rounds interleaved and the order rotated. Loopback only, bounded in time.
//
// Environment: BENCH_ROUNDS (5), BENCH_SECONDS (3), BENCH_CONNECTIONS (50).
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { median, serverCpuMicros, startBenchServer, type BenchServer } from './bench-process';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const BODY = JSON.stringify([{ id: 1, name: 'Ada', orders: [1, 2, 3] }]);

type Kind = 'plain' | 'memory' | 'redis';
type Run = 'plain' | 'memory' | 'redis' | 'memory replay' | 'redis replay';
const RUNS: readonly { run: Run; kind: Kind; key: 'none' | 'new' | 'same' }[] = [
  { run: 'plain', kind: 'plain', key: 'none' },
  { run: 'memory', kind: 'memory', key: 'new' },
  { run: 'redis', kind: 'redis', key: 'new' },
  { run: 'memory replay', kind: 'memory', key: 'same' },
  { run: 'redis replay', kind: 'redis', key: 'same' },
];

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

async function startRedis(): Promise<{ url: string; child: ChildProcess; dir: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-redis-'));
  const port = await freePort();
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir],
    { stdio: 'ignore' },
  );
  for (let attempt = 0; attempt < 100; attempt++) {
    const up = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (up) return { url: `redis://127.0.0.1:${port}/0`, child, dir };
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  child.kill();
  throw new Error('redis-server did not start');
}

async function startServer(kind: Kind, redisUrl: string): Promise<BenchServer> {
  const script = fileURLToPath(new URL('./idempotency-server.mjs', import.meta.url));
  return startBenchServer(kind, process.execPath, [script, kind], {
    ...process.env,
    BENCH_REDIS_URL: redisUrl,
  });
}

interface Measured {
  rps: number;
  p99: number;
  cpu: number;
  errors: number;
  replayed: number;
}

async function load(server: BenchServer, key: 'none' | 'new' | 'same', seconds: number): Promise<Measured> {
  const same = randomUUID();
  let replayed = 0;
  const cpuBefore = await serverCpuMicros(server);
  const instance = autocannon({
    url: `http://127.0.0.1:${server.port}/bench`,
    connections: CONNECTIONS,
    duration: seconds,
    requests: [
      {
        method: 'POST',
        body: BODY,
        setupRequest: (request) => {
          if (key === 'none') return request;
          const value = key === 'new' ? randomUUID() : same;
          return { ...request, headers: { ...request.headers, 'idempotency-key': value } };
        },
        onResponse: (_status, _body, _context, headers) => {
          // autocannon passes the headers with the case the server sent.
          if (headers?.['Idempotent-Replayed'] === 'true') replayed++;
        },
      },
    ],
  });
  const result = await instance;
  const cpuAfter = await serverCpuMicros(server);
  return {
    rps: result.requests.average,
    p99: result.latency.p99,
    cpu: (cpuAfter - cpuBefore) / Math.max(1, result.requests.total),
    errors: result.errors + result.non2xx,
    replayed: replayed / Math.max(1, result.requests.total),
  };
}

const redis = await startRedis();
const servers = {} as Record<Kind, BenchServer>;
try {
  for (const kind of ['plain', 'memory', 'redis'] as const)
    servers[kind] = await startServer(kind, redis.url);
  for (const { kind, key } of RUNS) await load(servers[kind], key, Math.min(2, SECONDS)); // warm-up
  const rounds = new Map<Run, Measured[]>(RUNS.map(({ run }) => [run, []]));
  for (let round = 0; round < ROUNDS; round++) {
    const order = RUNS.map((_, i) => RUNS[(i + round) % RUNS.length]!);
    for (const { run, kind, key } of order) rounds.get(run)!.push(await load(servers[kind], key, SECONDS));
  }
  console.log(
    `idempotency keys, 1-record echo, ${CONNECTIONS} connections, ${ROUNDS} rounds of ${SECONDS} s (medians):`,
  );
  console.log('| run | req/s | p99 ms | server CPU µs/req | CPU vs plain | replayed | errors |');
  console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: |');
  const plainCpu = median(rounds.get('plain')!.map((m) => m.cpu));
  for (const { run } of RUNS) {
    const measured = rounds.get(run)!;
    const cpu = median(measured.map((m) => m.cpu));
    console.log(
      `| ${run} | ${median(measured.map((m) => m.rps)).toFixed(0)} | ${median(measured.map((m) => m.p99)).toFixed(1)} | ` +
        `${cpu.toFixed(1)} | ${(cpu / plainCpu).toFixed(2)}x | ${(100 * median(measured.map((m) => m.replayed))).toFixed(0)} % | ` +
        `${measured.reduce((sum, m) => sum + m.errors, 0)} |`,
    );
  }
} finally {
  for (const server of Object.values(servers)) server.child.kill('SIGTERM');
  redis.child.kill('SIGTERM');
  await once(redis.child, 'exit');
  rmSync(redis.dir, { recursive: true, force: true });
}

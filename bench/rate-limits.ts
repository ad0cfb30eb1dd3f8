// `npm run bench -- --rate-limits`: what per-tenant limits cost. The echo origin (bench/echo-servers.mjs, the
// built package) runs three times, each in its own process: `plain` (no limit), `limited` (http.rateLimits by
// client address, limits so high that nothing is refused: the cost of counting) and `fair`
// (http.maxConcurrentRequestsPerKey by client address: FairAdmission instead of Admission). Rounds are
// interleaved with the order rotated; the figure is each server's own CPU time per request, as in bench/echo.ts,
// and the ratio to `plain` paired by round. 1-record JSON bodies, keep-alive, loopback.
//
// Environment: BENCH_ROUNDS (5), BENCH_SECONDS (3), BENCH_CONNECTIONS (16: the fair server's tenant may have 8
// slots and 8 queued, so one client address is never refused).
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { median, serverCpuMicros, startBenchServer, type BenchServer } from './bench-process';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 16);

const SERVERS = {
  plain: {},
  limited: { rateLimits: [{ key: 'clientAddress', requestsPerSecond: 1_000_000, burst: 10_000_000 }] },
  fair: { maxConcurrentRequestsPerKey: { key: 'clientAddress', limit: 8 } },
} as const;
type Name = keyof typeof SERVERS;
const NAMES = Object.keys(SERVERS) as Name[];

const BODY = JSON.stringify([{ id: 1, name: 'customer 1', email: 'c1@example.com', tags: ['a', 'b'] }]);

async function startServer(name: Name): Promise<BenchServer> {
  const script = fileURLToPath(new URL('./echo-servers.mjs', import.meta.url));
  const env = { ...process.env, BENCH_ORIGIN_HTTP: JSON.stringify(SERVERS[name]) };
  return startBenchServer(name, process.execPath, [script, 'origin'], env);
}

async function load(
  server: BenchServer,
  seconds: number,
): Promise<{ rps: number; cpu: number; errors: number }> {
  const before = await serverCpuMicros(server);
  const result = await autocannon({
    url: `http://127.0.0.1:${server.port}/bench`,
    method: 'POST',
    body: BODY,
    headers: { 'content-type': 'application/json' },
    connections: CONNECTIONS,
    duration: seconds,
  });
  const after = await serverCpuMicros(server);
  return {
    rps: result.requests.average,
    cpu: (after - before) / Math.max(1, result.requests.total),
    errors: result.errors + result.non2xx,
  };
}

const servers = {} as Record<Name, BenchServer>;
for (const name of NAMES) servers[name] = await startServer(name);
const runs = { plain: [], limited: [], fair: [] } as Record<Name, Array<Awaited<ReturnType<typeof load>>>>;
try {
  for (const name of NAMES) await load(servers[name], Math.min(2, SECONDS)); // warm-up
  for (let round = 0; round < ROUNDS; round++) {
    for (let i = 0; i < NAMES.length; i++) {
      const name = NAMES[(i + round) % NAMES.length]!;
      runs[name].push(await load(servers[name], SECONDS));
    }
  }
} finally {
  for (const name of NAMES) servers[name].child.kill('SIGTERM');
}

console.log(
  `\nrate limits: echo origin, 1 record, ${ROUNDS} rounds of ${SECONDS}s rotated, ${CONNECTIONS} connections\n`,
);
console.log('  server   |    req/s | CPU µs/req | vs plain (paired median) | non-2xx');
for (const name of NAMES) {
  const ratios = runs[name].map((run, i) => run.cpu / runs.plain[i]!.cpu);
  const errors = runs[name].reduce((sum, run) => sum + run.errors, 0);
  console.log(
    `  ${name.padEnd(8)} | ${median(runs[name].map((run) => run.rps))
      .toFixed(0)
      .padStart(8)} | ` +
      `${median(runs[name].map((run) => run.cpu))
        .toFixed(1)
        .padStart(10)} | ` +
      `${median(ratios).toFixed(2).padStart(5)}x (${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)})`.padEnd(
        25,
      ) +
      ` | ${errors}`,
  );
}

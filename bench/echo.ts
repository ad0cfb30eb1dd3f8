// `npm run bench`: requests/s and p99 latency of the echo origin beside a minimal node:http server doing the
// same work (parse a JSON body, echo an envelope), for 1-record and 100-record bodies. Servers run in their own
// processes; rounds are interleaved A/B so that machine noise hits both alike. Loopback only, bounded in time.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
const CONNECTIONS = 32;
const TARGET_RATIO = 0.7;

function record(i: number): Record<string, unknown> {
  return {
    id: i,
    name: `customer ${i}`,
    email: `c${i}@example.com`,
    active: i % 2 === 0,
    score: i * 1.5,
    tags: ['a', 'b'],
    address: { city: 'Lyon', zip: '69001' },
  };
}
const BODIES = {
  '1 record': JSON.stringify([record(1)]),
  '100 records': JSON.stringify(Array.from({ length: 100 }, (_, i) => record(i))),
};

async function startServer(kind: 'origin' | 'baseline'): Promise<{ child: ChildProcess; port: number }> {
  const script = fileURLToPath(new URL('./echo-servers.mjs', import.meta.url));
  const child = spawn(process.execPath, [script, kind], { stdio: ['ignore', 'pipe', 'inherit'] });
  const [chunk] = (await once(child.stdout!, 'data')) as [Buffer];
  return { child, port: Number(chunk.toString().trim()) };
}

async function load(port: number, body: string): Promise<{ rps: number; p99: number; errors: number }> {
  const result = await autocannon({
    url: `http://127.0.0.1:${port}/bench`,
    method: 'POST',
    body,
    headers: { 'content-type': 'application/json' },
    connections: CONNECTIONS,
    duration: SECONDS,
  });
  return { rps: result.requests.average, p99: result.latency.p99, errors: result.errors + result.non2xx };
}

const servers = { origin: await startServer('origin'), baseline: await startServer('baseline') };
const results: Record<
  string,
  Record<'origin' | 'baseline', { rps: number[]; p99: number[]; errors: number }>
> = {};
try {
  for (const name of Object.keys(BODIES) as (keyof typeof BODIES)[]) {
    results[name] = { origin: { rps: [], p99: [], errors: 0 }, baseline: { rps: [], p99: [], errors: 0 } };
    // Warm both up before measuring.
    await load(servers.origin.port, BODIES[name]);
    await load(servers.baseline.port, BODIES[name]);
    for (let round = 0; round < ROUNDS; round++) {
      const order: ('origin' | 'baseline')[] =
        round % 2 === 0 ? ['origin', 'baseline'] : ['baseline', 'origin'];
      for (const kind of order) {
        const measured = await load(servers[kind].port, BODIES[name]);
        const slot = results[name]![kind];
        slot.rps.push(measured.rps);
        slot.p99.push(measured.p99);
        slot.errors += measured.errors;
      }
    }
  }
} finally {
  servers.origin.child.kill();
  servers.baseline.child.kill();
}

const median = (values: number[]): number =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
console.log(
  `\necho origin vs node:http baseline — ${ROUNDS} interleaved rounds of ${SECONDS}s, ${CONNECTIONS} connections\n`,
);
console.log(
  'body         | origin req/s | origin p99 ms | baseline req/s | baseline p99 ms | ratio (median of rounds) | target',
);
let pass = true;
for (const [name, r] of Object.entries(results)) {
  // Each round measures both servers back to back, so the ratio of one round is little touched by the slow drift
  // of a shared machine; the median of those ratios is the figure that counts.
  const ratio = median(r.origin.rps.map((rps, round) => rps / (r.baseline.rps[round] ?? Infinity)));
  pass &&= ratio >= TARGET_RATIO && r.origin.errors === 0;
  console.log(
    `${name.padEnd(12)} | ${median(r.origin.rps).toFixed(0).padStart(12)} | ${median(r.origin.p99).toFixed(1).padStart(13)} | ` +
      `${median(r.baseline.rps).toFixed(0).padStart(14)} | ${median(r.baseline.p99).toFixed(1).padStart(15)} | ` +
      `${ratio.toFixed(2).padStart(24)} | ≥ ${TARGET_RATIO}${r.origin.errors ? ` (${r.origin.errors} errors!)` : ''}`,
  );
}
console.log(pass ? '\ntarget met' : '\ntarget NOT met');

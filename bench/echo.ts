// `npm run bench`: the echo origin beside a minimal node:http server and a Fastify server doing the same work
// (read the body, parse JSON, echo an envelope), for 1-record and 100-record bodies. Each server runs in its own
// process; rounds are interleaved A/B/C with the order rotated every round, so that machine noise hits all alike.
// On a machine with two or more cores the servers are pinned to core 0 and this process (autocannon) to core 1.
// The figure that counts is the server's own CPU time per request (process.cpuUsage() in the server, read over
// IPC before and after each measured load, divided by the requests completed): it does not depend on how fast
// the load generator is. Loopback only, bounded in time.
//
// The `https` server is the same origin serving HTTPS (TLS 1.3, a 2048-bit RSA certificate made with openssl at
// start) to the same keep-alive connections; its CPU per request is compared with the plain origin's. `nodehttps`
// is the minimal node:http server's work on node:https with the same certificate: what TLS costs Node itself per
// request, printed beside the origin's figure (no target of its own). `nodebatched` is the minimal node:http server
// writing its answers at the end of the loop's pass, as the origin does (decision 0138): what that way of writing is
// worth to Node itself, printed for context (no target of its own).
//
// Environment: BENCH_ROUNDS (7), BENCH_SECONDS (3), BENCH_CONNECTIONS (50), BENCH_ORIGIN_FLAGS (extra node flags
// for the origin's process, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`), BENCH_BODIES (`1,100`), BENCH_BEFORE_DIST
// (a directory holding another build's index.js, e.g. a copy of dist/ made before a change, inside the project
// so that it finds node_modules: it runs as a fourth server, `before`, and the origin's ratios to it are printed;
// for the before/after figure of one change), BENCH_SERVERS (which of https,gateway,node,nodehttps,nodebatched,fastify,before to run
// beside the origin; all by default, before only with BENCH_BEFORE_DIST), BENCH_OFFERED_RPS (requests/s offered to
// each server instead of saturating it; see below).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { runFairness } from './fairness';
import { runMemory } from './memory';
import {
  median,
  pinLoadGenerator,
  serverCommand,
  serverCpuMicros,
  startBenchServer,
  type BenchServer,
} from './bench-process';
import { echoBodyOf } from './echo-body';

// Modes with a bench file of their own: `npm run bench -- --<mode>` runs that file instead of the echo comparison
// (and exits with the code it sets).
const BENCH_MODES: Readonly<Record<string, string>> = {
  workers: './workers',
  'scale-out': './scale-out',
  idempotency: './idempotency',
  'rate-limits': './rate-limits',
  'metrics-cost': './metrics-cost',
  encodings: './content-encodings',
  http2: './http2',
  'in-memory': './in-memory',
};
const benchMode = Object.keys(BENCH_MODES).find((mode) => process.argv.includes(`--${mode}`));
if (benchMode) await import(BENCH_MODES[benchMode]!).then(() => process.exit());

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const ORIGIN_FLAGS = (process.env.BENCH_ORIGIN_FLAGS ?? '').split(/\s+/).filter(Boolean);
const RECORD_COUNTS = (process.env.BENCH_BODIES ?? '1,100').split(',').map(Number);

const BEFORE_DIST = process.env.BENCH_BEFORE_DIST;
/**
 * BENCH_OFFERED_RPS: offer every server this many requests per second (autocannon's overallRate) instead of as many
 * as it takes. Saturated, a slower server leaves the load generator idle more often, and the kernel work of waking
 * it on each answer is charged to the server's own CPU time (docs/performance.md); at one offered load below every
 * server's capacity, all pay alike and the ratio shows the work each does per request.
 */
const OFFERED_RPS = Number(process.env.BENCH_OFFERED_RPS ?? 0);

type Kind = 'origin' | 'https' | 'gateway' | 'node' | 'nodehttps' | 'nodebatched' | 'fastify' | 'before';
/** The servers that are not a plain baseline of the origin: each has a ratio line of its own. */
type OwnLine = 'origin' | 'https' | 'gateway' | 'nodehttps' | 'nodebatched';
const OWN_LINE: ReadonlySet<Kind> = new Set<OwnLine>([
  'origin',
  'https',
  'gateway',
  'nodehttps',
  'nodebatched',
]);
/** The servers the load reaches over TLS. */
const TLS_KINDS: ReadonlySet<Kind> = new Set<Kind>(['https', 'nodehttps']);
const SERVERS = process.env.BENCH_SERVERS?.split(',');
const KINDS: readonly Kind[] = (
  BEFORE_DIST
    ? (['origin', 'https', 'gateway', 'node', 'nodehttps', 'nodebatched', 'fastify', 'before'] as const)
    : (['origin', 'https', 'gateway', 'node', 'nodehttps', 'nodebatched', 'fastify'] as const)
).filter((kind) => kind === 'origin' || SERVERS === undefined || SERVERS.includes(kind));
/** HTTPS costs at most this many times plain HTTP's CPU per request on keep-alive connections (issue 13). */
const HTTPS_CPU_MAX = 1.3;
/** The in-process gateway path costs at most this many times the direct path's CPU per request (issue 14). */
const GATEWAY_CPU_MAX = 1.1;

/** Targets, each a ratio of the origin's median-of-paired-rounds figure to a baseline's. */
const TARGETS: readonly {
  metric: Metric;
  against: Exclude<Kind, OwnLine>;
  max: number;
}[] = [
  { metric: 'cpu', against: 'node', max: 1.15 },
  { metric: 'cpu', against: 'fastify', max: 1.0 },
  { metric: 'p99', against: 'node', max: 1.25 },
];
type Metric = 'rps' | 'p99' | 'cpu';

const pinned = pinLoadGenerator();
// Other modes, each in its own file: `npm run bench -- --fairness`, `npm run bench -- --memory`.
if (process.argv.includes('--fairness')) process.exit((await runFairness(pinned)) ? 0 : 1);
if (process.argv.includes('--memory')) process.exit((await runMemory(pinned)) ? 0 : 1);

/** A key and a certificate for 127.0.0.1 in one PEM file, `keystore.pem`, for the https server. */
function makeTlsDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'bench-tls-'));
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      'key.pem',
      '-out',
      'cert.pem',
      '-days',
      '1',
    ].concat(['-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1']),
    { cwd: dir, stdio: 'ignore' },
  );
  const read = (name: string): string => readFileSync(join(dir, name), 'utf8');
  writeFileSync(join(dir, 'keystore.pem'), read('key.pem') + read('cert.pem'));
  return dir;
}
const tlsDir = KINDS.some((kind) => TLS_KINDS.has(kind)) ? makeTlsDir() : undefined;
const tlsCa = tlsDir === undefined ? undefined : readFileSync(join(tlsDir, 'cert.pem'), 'utf8');

async function startServer(kind: Kind): Promise<BenchServer> {
  const script = fileURLToPath(new URL('./echo-servers.mjs', import.meta.url));
  const nodeArgs = [...(kind === 'origin' ? ORIGIN_FLAGS : []), script, kind];
  const [command, args] = serverCommand(nodeArgs, pinned);
  const env =
    kind === 'before'
      ? { ...process.env, BENCH_DIST: BEFORE_DIST }
      : TLS_KINDS.has(kind)
        ? { ...process.env, BENCH_TLS_DIR: tlsDir }
        : process.env;
  return startBenchServer(kind, command, args, env);
}

interface Measured {
  rps: number;
  p99: number;
  cpu: number;
  errors: number;
}

/** The bench service on the gateway's public API, with the same `/bench` path after the service name. */
const GATEWAY_PATH = '/public-rest/v1/gateway/bench/bench';

async function load(kind: Kind, body: string, seconds = SECONDS): Promise<Measured> {
  const server = servers[kind];
  const cpuBefore = await serverCpuMicros(server);
  const options: autocannon.Options = {
    url: `${TLS_KINDS.has(kind) ? 'https' : 'http'}://127.0.0.1:${server.port}${kind === 'gateway' ? GATEWAY_PATH : '/bench'}`,
    ...(TLS_KINDS.has(kind) ? { tlsOptions: { ca: tlsCa } } : {}),
    method: 'POST',
    body,
    // Gateway mode requires X-Requested-By on POST (decision 0066); the direct path gets it too, so that both
    // carry the same headers into their records.
    headers: { 'content-type': 'application/json', 'x-requested-by': 'bench' },
    connections: CONNECTIONS,
    duration: seconds,
    ...(OFFERED_RPS > 0 ? { overallRate: OFFERED_RPS } : {}),
  };
  const answerMs: number[] | undefined = OFFERED_RPS > 0 ? undefined : [];
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const run = autocannon(options, (error, done) => (error ? reject(error as Error) : resolve(done)));
    if (answerMs !== undefined) recordAnswerTimes(run, answerMs);
  });
  const cpuAfter = await serverCpuMicros(server);
  return {
    rps: result.requests.average,
    p99: answerMs === undefined ? result.latency.p99 : percentile(answerMs, 0.99),
    cpu: (cpuAfter - cpuBefore) / Math.max(1, result.requests.total),
    errors: result.errors + result.non2xx,
  };
}

/**
 * Pushes onto `times` the time of every 2xx answer of `run`, in milliseconds, as the load generator measured it.
 * autocannon's own percentiles come from a histogram of whole milliseconds: at the 3–6 ms of a saturated run one
 * step is 17–33%, coarser than the 1.25x the p99 target allows, so a saturated run's p99 is read from these. A
 * run at an offered rate keeps autocannon's p99, which corrects for coordinated omission.
 */
function recordAnswerTimes(run: autocannon.Instance, times: number[]): void {
  run.on('response', (_client, statusCode, _bytes, responseTimeMs) => {
    if (statusCode >= 200 && statusCode < 300) times.push(responseTimeMs);
  });
}

/** The `p` quantile of `values` (nearest rank; sorts `values` in place), or NaN when there are none. */
function percentile(values: number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  values.sort((a, b) => a - b);
  return values[Math.min(values.length - 1, Math.ceil(values.length * p) - 1)]!;
}

const servers = {} as Record<Kind, BenchServer>;
for (const kind of KINDS) servers[kind] = await startServer(kind);
const results = new Map<number, Record<Kind, Measured[]>>();
try {
  for (const count of RECORD_COUNTS) {
    const body = echoBodyOf(count);
    const rounds: Record<Kind, Measured[]> = {
      origin: [],
      https: [],
      gateway: [],
      node: [],
      nodehttps: [],
      nodebatched: [],
      fastify: [],
      before: [],
    };
    results.set(count, rounds);
    for (const kind of KINDS) await load(kind, body, Math.min(2, SECONDS)); // warm-up
    for (let round = 0; round < ROUNDS; round++) {
      // Rotate the order every round, so that no server always runs first or right after another.
      const order = KINDS.map((_, i) => KINDS[(i + round) % KINDS.length]!);
      for (const kind of order) rounds[kind].push(await load(kind, body));
    }
  }
} finally {
  for (const kind of KINDS) servers[kind].child.kill('SIGTERM');
  if (tlsDir !== undefined) rmSync(tlsDir, { recursive: true, force: true });
}

const fixed = (value: number, digits: number, width: number): string => value.toFixed(digits).padStart(width);
/** The per-round ratios of `of`'s `metric` to `to`'s (each round measured both back to back). */
const paired = (of: Measured[], to: Measured[], metric: Metric = 'cpu'): number[] =>
  of.map((run, i) => run[metric] / to[i]![metric]);
/** A paired ratio as printed: the median, then the spread over the rounds. */
const ratioText = (ratios: number[]): string =>
  `${median(ratios).toFixed(2)}x (${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)})`;
console.log(
  `\necho origin vs node:http vs Fastify — ${ROUNDS} rounds of ${SECONDS}s, A/B/C rotated, ` +
    `${CONNECTIONS} connections, ${pinned ? 'servers on core 0, load generator on core 1' : 'not pinned'}` +
    `${OFFERED_RPS > 0 ? `, ${OFFERED_RPS} requests/s offered to each` : ''}\n`,
);
let allMet = true;
const cpuMedians = new Map<number, Record<Kind, number>>();
for (const [count, rounds] of results) {
  const label = `${count} record${count === 1 ? '' : 's'} (${(Buffer.byteLength(echoBodyOf(count)) / 1024).toFixed(1)} KB)`;
  console.log(label);
  console.log('  server   |    req/s | p99 ms | CPU µs/req | errors');
  const medians = {} as Record<Kind, number>;
  for (const kind of KINDS) {
    const runs = rounds[kind];
    const errors = runs.reduce((sum, run) => sum + run.errors, 0);
    medians[kind] = median(runs.map((run) => run.cpu));
    if (kind === 'origin' && errors > 0) allMet = false;
    console.log(
      `  ${kind.padEnd(8)} | ${fixed(median(runs.map((r) => r.rps)), 0, 8)} | ${fixed(median(runs.map((r) => r.p99)), 2, 6)} | ` +
        `${fixed(medians[kind], 1, 10)} | ${errors}`,
    );
  }
  cpuMedians.set(count, medians);
  // Each round measures every server back to back, so the ratio of one round is little touched by the slow
  // drift of a shared machine; the median of those paired ratios is the figure that counts.
  for (const metric of ['cpu', 'p99', 'rps'] as const) {
    for (const against of KINDS.filter((kind): kind is Exclude<Kind, OwnLine> => !OWN_LINE.has(kind))) {
      const ratios = paired(rounds.origin, rounds[against], metric);
      const target = TARGETS.find((t) => t.metric === metric && t.against === against);
      const met = target === undefined || median(ratios) <= target.max;
      allMet &&= met;
      const verdict = target ? `target ≤ ${target.max.toFixed(2)}x ${met ? 'met' : 'NOT met'}` : '';
      console.log(`  origin/${against.padEnd(7)} ${metric.padEnd(3)} ${ratioText(ratios)}  ${verdict}`);
    }
  }
  if (KINDS.includes('https')) {
    // The cost of TLS on keep-alive connections: the HTTPS origin against the plain one, paired by round. The
    // target is for the 1-record body, where the fixed cost per request shows most.
    const ratios = paired(rounds.https, rounds.origin);
    const met = count !== 1 || median(ratios) <= HTTPS_CPU_MAX;
    allMet &&= met;
    const verdict = count === 1 ? `target ≤ ${HTTPS_CPU_MAX.toFixed(2)}x ${met ? 'met' : 'NOT met'}` : '';
    console.log(`  https/origin   cpu ${ratioText(ratios)}  ${verdict}`);
    if (rounds.https.some((run) => run.errors > 0)) allMet = false;
  }
  if (KINDS.includes('nodehttps') && KINDS.includes('node')) {
    // What TLS costs node:https itself on the same work: the floor under the origin's https/origin figure, since
    // TLS adds about the same microseconds to every server and a leaner server shows them as a larger ratio.
    const ratios = paired(rounds.nodehttps, rounds.node);
    console.log(`  nodehttps/node cpu ${ratioText(ratios)}  (context: TLS on node:https)`);
  }
  if (KINDS.includes('nodebatched') && KINDS.includes('node')) {
    // node:http writing as the origin writes (decision 0138): how much of the origin's figure is that way of writing.
    for (const [name, ratios] of [
      ['nodebatched/node', paired(rounds.nodebatched, rounds.node)],
      ['origin/nodebatched', paired(rounds.origin, rounds.nodebatched)],
    ] as const) {
      console.log(
        `  ${name.padEnd(18)} cpu ${ratioText(ratios)}  (context: answers written at the pass's end)`,
      );
    }
  }
  if (KINDS.includes('gateway')) {
    // The in-process gateway (routing, X-Requested-By, the URL rewrite) against the direct path, paired by round.
    const ratios = paired(rounds.gateway, rounds.origin);
    const met = median(ratios) <= GATEWAY_CPU_MAX;
    allMet &&= met;
    console.log(
      `  gateway/origin cpu ${ratioText(ratios)}  target ≤ ${GATEWAY_CPU_MAX.toFixed(2)}x ${met ? 'met' : 'NOT met'}`,
    );
    if (rounds.gateway.some((run) => run.errors > 0)) allMet = false;
  }
  console.log('');
}
const [small, large] = [...cpuMedians.entries()].sort(([a], [b]) => a - b);
if (small && large && large[0] > small[0] && KINDS.includes('node')) {
  // The origin's extra CPU over node:http split into a fixed part per request and a part per record.
  const extra = (m: Record<Kind, number>): number => m.origin - m.node;
  const perRecord = (extra(large[1]) - extra(small[1])) / (large[0] - small[0]);
  const fixedPart = extra(small[1]) - perRecord * small[0];
  console.log(
    `origin over node:http: ~${fixedPart.toFixed(1)} µs per request + ~${perRecord.toFixed(2)} µs per record\n`,
  );
}
const checked = TARGETS.some((target) => KINDS.includes(target.against));
console.log(
  allMet ? (checked ? 'all targets met' : 'no target checked (no baseline ran)') : 'targets NOT met',
);

/**
 * `npm run soak`: steady mixed traffic against the built origin (dist/) on loopback, bounded in time, to show that
 * memory and handles stay flat under hours-like use.
 *
 *   npm run soak -- [--minutes 10]        (or SOAK_MINUTES; also SOAK_RATE, SOAK_CONCURRENCY, SOAK_INTERVAL_S)
 *
 * The origins run in a child process (scripts/soak-server.mjs: JSON with application IDs and a 1 MB limit,
 * Delimited, XML, Avro, and a zip archive of CSV files), so that the RSS and handles measured are theirs alone.
 * The traffic mixes formats, gzip and snappy content codings, malformed bodies (400), a wrong application ID (403),
 * an oversized body (413) and an unknown coding (415), on keep-alive connections with one request in ten on a
 * connection closed after it. Every request kind has the one status it must get; any other answer or a network
 * error counts as unexpected.
 *
 * Every SOAK_INTERVAL_S (30) seconds it prints the requests so far, the answers by status, and the server's RSS,
 * heap and active handles (after a full GC). The sample at the end of warm-up (a fifth of the run, at most one
 * minute) is the reference: the run ends with exit status 1 when the last sample's RSS or handle count is more than
 * 10% above it, or when any answer was unexpected. Both are taken with the traffic paused and every client
 * connection closed, so that they compare what the origin keeps rather than the connections open at that moment.
 */
import { fork } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { compressSync } from 'snappy';
import { Pool } from 'undici';

function option(name: string, env: string, fallback: number): number {
  const at = process.argv.indexOf(`--${name}`);
  const value = Number(at === -1 ? (process.env[env] ?? fallback) : process.argv[at + 1]);
  if (!(value > 0)) throw new Error(`--${name} (${env}) must be a positive number`);
  return value;
}

const MINUTES = option('minutes', 'SOAK_MINUTES', 10);
const RATE = option('rate', 'SOAK_RATE', 150);
const CONCURRENCY = option('concurrency', 'SOAK_CONCURRENCY', 4);
const INTERVAL_MS = option('interval', 'SOAK_INTERVAL_S', 30) * 1000;
const WARM_UP_MS = Math.min(60_000, (MINUTES * 60_000) / 5);
/** The most the last sample may exceed the warm-up sample by. */
const MAX_GROWTH = 0.1;

const fixture = (path: string): Buffer =>
  readFileSync(fileURLToPath(new URL(`../tests/fixtures/formats/${path}`, import.meta.url)));

type OriginName = 'json' | 'delimited' | 'xml' | 'avro' | 'archive';

interface RequestKind {
  readonly name: string;
  readonly weight: number;
  readonly origin: OriginName;
  readonly headers: Record<string, string>;
  readonly body: Buffer;
  readonly status: number;
}

const APP = { 'x-engine-application-id': 'soak' };
const jsonRecords = JSON.stringify(
  Array.from({ length: 10 }, (_, i) => ({ id: i, name: `customer ${i}`, tags: ['a', 'b'], score: i * 1.5 })),
);
const csv = `id,item,price\n${Array.from({ length: 50 }, (_, i) => `${i},item ${i},${i}.5`).join('\n')}\n`;
const xml = `<records>${Array.from({ length: 10 }, (_, i) => `<record><id>${i}</id><name>n${i}</name></record>`).join('')}</records>`;

const KINDS: readonly RequestKind[] = [
  { name: 'json', weight: 30, origin: 'json', headers: APP, body: Buffer.from(jsonRecords), status: 200 },
  {
    name: 'json snappy',
    weight: 5,
    origin: 'json',
    headers: { ...APP, 'content-encoding': 'snappy' },
    body: compressSync(Buffer.from(jsonRecords)),
    status: 200,
  },
  {
    name: 'json malformed',
    weight: 8,
    origin: 'json',
    headers: APP,
    body: Buffer.from('{"a":1,,}'),
    status: 400,
  },
  {
    name: 'json wrong app id',
    weight: 4,
    origin: 'json',
    headers: { 'x-engine-application-id': 'intruder' },
    body: Buffer.from(jsonRecords),
    status: 403,
  },
  {
    name: 'json over 1 MB',
    weight: 1,
    origin: 'json',
    headers: APP,
    body: Buffer.from(`[${'0,'.repeat(550_000)}0]`),
    status: 413,
  },
  {
    name: 'json unknown coding',
    weight: 3,
    origin: 'json',
    headers: { ...APP, 'content-encoding': 'br' },
    body: Buffer.from(jsonRecords),
    status: 415,
  },
  {
    name: 'csv gzip',
    weight: 15,
    origin: 'delimited',
    headers: { 'content-encoding': 'gzip' },
    body: gzipSync(csv),
    status: 200,
  },
  { name: 'xml', weight: 10, origin: 'xml', headers: {}, body: Buffer.from(xml), status: 200 },
  {
    name: 'avro',
    weight: 6,
    origin: 'avro',
    headers: {},
    body: fixture('avro/null-codec.input.bin'),
    status: 200,
  },
  {
    name: 'avro deflate',
    weight: 4,
    origin: 'avro',
    headers: {},
    body: fixture('avro/deflate-codec.input.bin'),
    status: 200,
  },
  {
    name: 'zip',
    weight: 5,
    origin: 'archive',
    headers: {},
    body: fixture('compression/mixed.zip'),
    status: 200,
  },
];
const TOTAL_WEIGHT = KINDS.reduce((n, k) => n + k.weight, 0);

/** A kind chosen by weight from a cheap deterministic sequence, so that every run sends the same mix. */
function kindAt(n: number): RequestKind {
  let pick = (n * 7919) % TOTAL_WEIGHT;
  for (const kind of KINDS) {
    if (pick < kind.weight) return kind;
    pick -= kind.weight;
  }
  return KINDS[0] as RequestKind;
}

interface Stats {
  readonly rss: number;
  readonly heapUsed: number;
  readonly external: number;
  readonly handles: number;
  readonly sockets: number;
}

const server = fork(fileURLToPath(new URL('./soak-server.mjs', import.meta.url)), [], {
  execArgv: ['--expose-gc'],
  stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
});
const [{ ports }] = (await once(server, 'message')) as [{ ports: Record<OriginName, number> }];

/**
 * The server's figures: memory after a GC, and the fewest handles of three reads a moment apart (a connection
 * that a request closed a moment ago is not a leak; a leaked handle shows in every read).
 */
async function stats(): Promise<Stats> {
  const reads: Stats[] = [];
  for (let i = 0; i < 3; i++) {
    server.send('stats');
    const [read] = (await once(server, 'message')) as [Stats];
    reads.push(read);
    await sleep(200);
  }
  const last = reads[reads.length - 1] as Stats;
  return { ...last, handles: Math.min(...reads.map((r) => r.handles)) };
}

/** Keep-alive connection pools to the origins; replaced while the traffic is paused (see quiesce). */
const openPools = (): Record<OriginName, Pool> =>
  Object.fromEntries(
    Object.entries(ports).map(([name, port]) => [
      name,
      new Pool(`http://127.0.0.1:${port}`, { connections: 2 }),
    ]),
  ) as Record<OriginName, Pool>;
let pools = openPools();
const answers = new Map<string, number>();
let sent = 0;
let unexpected = 0;
let stopping = false;
/** Set while the traffic is paused: workers wait on it before their next request. */
let paused: Promise<void> | undefined;
let inFlight = 0;

async function worker(index: number): Promise<void> {
  const gapMs = (1000 * CONCURRENCY) / RATE;
  let next = performance.now() + (gapMs * index) / CONCURRENCY;
  while (!stopping) {
    if (paused) {
      await paused;
      next = performance.now();
      continue;
    }
    const n = sent++;
    inFlight++;
    const kind = kindAt(n);
    let outcome: string;
    try {
      const answer = await pools[kind.origin].request({
        method: 'POST',
        path: '/',
        headers: kind.headers,
        body: kind.body,
        // One request in ten on a connection closed after it: connections come and go as well.
        reset: n % 10 === 0,
      });
      await answer.body.dump();
      outcome = String(answer.statusCode);
      if (answer.statusCode !== kind.status) {
        unexpected++;
        outcome = `${answer.statusCode} (unexpected for ${kind.name})`;
      }
    } catch (error) {
      unexpected++;
      outcome = `network error ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`;
    }
    inFlight--;
    answers.set(outcome, (answers.get(outcome) ?? 0) + 1);
    next += gapMs;
    const wait = next - performance.now();
    if (wait > 0) await sleep(wait);
    else next = performance.now();
  }
}

/**
 * The server's figures with no traffic and no client connection open: the traffic pauses, the client pools close
 * their connections, and the server is given a moment to see them closed. The warm-up and final samples are taken
 * so, so that they compare what the origin keeps, not how many keep-alive connections happened to be open.
 */
async function quiesce(): Promise<Stats> {
  let resume!: () => void;
  paused = new Promise((resolve) => (resume = resolve));
  while (inFlight > 0) await sleep(10);
  await Promise.all(Object.values(pools).map((p) => p.close()));
  await sleep(1000);
  const quiet = await stats();
  pools = openPools();
  paused = undefined;
  resume();
  return quiet;
}

const mb = (bytes: number): string => (bytes / 1e6).toFixed(1);
function line(elapsedMs: number, s: Stats): string {
  const byStatus = [...answers]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([k, v]) => `${k}:${v}`)
    .join(' ');
  return (
    `t=${(elapsedMs / 1000).toFixed(0)}s requests=${sent} [${byStatus}] ` +
    `rss=${mb(s.rss)}MB heap=${mb(s.heapUsed)}MB external=${mb(s.external)}MB handles=${s.handles} sockets=${s.sockets}`
  );
}

console.log(
  `soak: ${MINUTES} min at ${RATE} req/s over ${CONCURRENCY} clients, samples every ${INTERVAL_MS / 1000} s, warm-up ${WARM_UP_MS / 1000} s; origins on ports ${JSON.stringify(ports)}`,
);
const start = performance.now();
const end = start + MINUTES * 60_000;
const workers = Array.from({ length: CONCURRENCY }, (_, i) => worker(i));
let reference: Stats | undefined;
let last: Stats | undefined;
let nextSample = start + INTERVAL_MS;
let warmedUp = false;
while (performance.now() < end) {
  const now = performance.now();
  const wake = Math.min(end, nextSample, warmedUp ? Infinity : start + WARM_UP_MS);
  await sleep(Math.max(0, wake - now));
  const at = performance.now();
  if (!warmedUp && at >= start + WARM_UP_MS) {
    warmedUp = true;
    reference = await quiesce();
    console.log(`${line(at - start, reference)}  <- after warm-up, quiet (reference)`);
  }
  if (at >= nextSample && at < end) {
    nextSample += INTERVAL_MS;
    last = await stats();
    console.log(line(at - start, last));
  }
}
last = await quiesce();
console.log(`${line(performance.now() - start, last)}  <- end, quiet`);
stopping = true;
await Promise.all(workers);
await Promise.all(Object.values(pools).map((p) => p.close()));
server.send('stop');
await once(server, 'exit');

if (!reference) throw new Error('the run ended before warm-up did');
const rssGrowth = last.rss / reference.rss - 1;
const handleGrowth = last.handles / reference.handles - 1;
const pct = (x: number): string => `${(x * 100).toFixed(1)}%`;
console.log(
  `soak: ${sent} requests, ${unexpected} unexpected; RSS ${mb(reference.rss)} -> ${mb(last.rss)} MB (${pct(rssGrowth)}), ` +
    `handles ${reference.handles} -> ${last.handles} (${pct(handleGrowth)}); limit +${pct(MAX_GROWTH)}`,
);
const failed = unexpected > 0 || rssGrowth > MAX_GROWTH || handleGrowth > MAX_GROWTH;
console.log(failed ? 'soak: FAILED' : 'soak: ok');
process.exitCode = failed ? 1 : 0;

import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ClusterMetrics } from '../../src/cli/cluster-messages';
import { counted } from '../../src/cli/cluster-primary';
import { freePort } from '../origin/origin-helpers';

const root = join(__dirname, '..', '..');
const cli = join(root, 'src', 'cli', 'main.ts');
let dir: string;
beforeAll(() => (dir = mkdtempSync(join(tmpdir(), 'rest-origin-workers-'))));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** `rest-origin serve --workers 2` on a free loopback port, and what it prints. */
class Cluster {
  readonly child: ChildProcess;
  stdout = '';
  stderr = '';

  constructor(args: string[]) {
    this.child = spawn(process.execPath, ['--import', 'tsx', cli, ...args], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child.stdout!.on('data', (chunk: Buffer) => (this.stdout += chunk.toString()));
    this.child.stderr!.on('data', (chunk: Buffer) => (this.stderr += chunk.toString()));
  }

  /** Resolves with the match once the output (stdout and stderr), from `from` on, matches `pattern`. */
  async waitFor(pattern: RegExp, from = 0): Promise<RegExpExecArray> {
    for (;;) {
      const match = pattern.exec((this.stdout + '\n' + this.stderr).slice(from));
      if (match) return match;
      if (this.child.exitCode !== null) {
        throw new Error(`the CLI exited (${this.child.exitCode}): ${this.stdout}\n${this.stderr}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /** The cluster's metrics, as the primary prints them on SIGUSR2. */
  async metrics(): Promise<ClusterMetrics> {
    const from = this.stdout.length;
    this.child.kill('SIGUSR2');
    for (;;) {
      const match = /rest-origin: metrics (\{.*\})\n/.exec(this.stdout.slice(from));
      if (match) return JSON.parse(match[1]!) as ClusterMetrics;
      await once(this.child.stdout!, 'data');
    }
  }

  /** The pids of the workers the primary says are listening, in order. */
  pids(): number[] {
    return [...this.stdout.matchAll(/worker \d+ \(pid (\d+)\) listening/g)].map((m) => Number(m[1]));
  }
}

/** POSTs `body` on a new connection (so that the cluster hands it to the next worker); resolves with the answer. */
function post(
  port: number,
  body: string,
  slowTail?: Promise<void>,
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: '/orders',
        agent: false,
        headers: { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      },
    );
    req.on('error', reject);
    if (slowTail === undefined) return void req.end(body);
    // The body's first byte now, the rest once the test says so: the request is admitted and in flight.
    req.write(body.slice(0, 1));
    void slowTail.then(() => req.end(body.slice(1)));
  });
}

/** GETs `path` on a new connection; resolves with the answer's text (rejects unless 200). */
function get(port: number, path: string): Promise<string> {
  return new Promise((resolve, reject) => {
    httpRequest({ host: '127.0.0.1', port, path, agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () =>
        res.statusCode === 200 ? resolve(text) : reject(new Error(`${res.statusCode} ${text}`)),
      );
    })
      .on('error', reject)
      .end();
  });
}

const REQUESTS = 'rest_origin_requests_total';
const RECORDS = 'rest_origin_records_received_total';
const records = (n: number): string => JSON.stringify(Array.from({ length: n }, (_, i) => ({ n: i })));

describe('rest-origin serve --workers 2', () => {
  let cluster: Cluster;
  let port: number;
  /** Requests and records answered so far, to compare with the cluster's totals. */
  let sent = { requests: 0, records: 0 };
  /** The counters of the killed worker, which die with it. */
  let lost = { requests: 0, records: 0 };
  let lastMetrics: ClusterMetrics | undefined;

  beforeAll(async () => {
    const config = join(dir, 'config.json');
    writeFileSync(
      config,
      JSON.stringify({
        http: { host: '127.0.0.1', metricsPath: '/metrics' },
        dataFormat: { format: 'json', json: { jsonContent: 'arrayOfObjects' } },
        pipeline: { runnerIdleTimeMs: 0 },
      }),
    );
    port = await freePort();
    cluster = new Cluster(['serve', '--config', config, '--port', String(port), '--workers', '2']);
    await cluster.waitFor(/2 workers serving at http:\/\/127\.0\.0\.1:\d+\//);
  });

  afterAll(() => {
    if (cluster.child.exitCode === null) cluster.child.kill('SIGKILL');
  });

  it('spreads connections over both workers, whose summed metrics are what was sent', async () => {
    for (let i = 1; i <= 10; i++) {
      const answer = await post(port, records(i));
      expect(answer.status).toBe(200);
      expect((JSON.parse(answer.text) as { data: unknown[] }).data).toHaveLength(i);
      sent = { requests: sent.requests + 1, records: sent.records + i };
    }
    const metrics = (lastMetrics = await cluster.metrics());
    expect(metrics.missing).toBe(0);
    expect(metrics.workers.map((w) => w.pid).sort()).toEqual(cluster.pids().sort());
    // Round-robin over new connections: each worker served some of them.
    for (const worker of metrics.workers) expect(counted(worker.metrics, REQUESTS)).toBeGreaterThan(0);
    // Every counter of the total is the sum of the workers' counters.
    for (const family of ['rest_origin_requests_total', RECORDS, 'rest_origin_received_bytes_total']) {
      const sum = metrics.workers.reduce((total, w) => total + counted(w.metrics, family), 0);
      expect(counted(metrics.total, family)).toBe(sum);
    }
    expect(counted(metrics.total, REQUESTS)).toBe(sent.requests);
    expect(counted(metrics.total, RECORDS)).toBe(sent.records);
  });

  it("answers http.metricsPath on any worker with the whole cluster's metrics, asked of the primary", async () => {
    for (let i = 0; i < 4; i++) {
      const text = await get(port, '/metrics');
      // Each scrape reaches one worker (a new connection each), and shows both workers' requests.
      const samples = [...text.matchAll(/^rest_origin_requests_total\{[^}]*status="200"[^}]*\} (\d+)$/gm)];
      expect(samples.reduce((sum, m) => sum + Number(m[1]), 0)).toBe(sent.requests);
    }
  });

  it('replaces a worker that is killed, and goes on serving', async () => {
    const [victim, survivor] = cluster.pids();
    const dying = lastMetrics!.workers.find((w) => w.pid === victim)!.metrics;
    lost = { requests: counted(dying, REQUESTS), records: counted(dying, RECORDS) };
    const from = cluster.stdout.length + cluster.stderr.length;
    process.kill(victim!, 'SIGKILL');
    await cluster.waitFor(new RegExp(`\\(pid ${victim}\\) exited \\(SIGKILL\\); replacing it`));
    await cluster.waitFor(/worker 3 \(pid \d+\) listening/, Math.max(0, from - 200));
    const metrics = await cluster.metrics();
    const pids = metrics.workers.map((w) => w.pid);
    expect(pids).toHaveLength(2);
    expect(pids).toContain(survivor);
    expect(pids).not.toContain(victim);
    for (let i = 0; i < 4; i++) expect((await post(port, records(1))).status).toBe(200);
    sent = { requests: sent.requests + 4, records: sent.records + 4 };
  });

  it('drains every worker on SIGTERM: requests in flight are answered, then it exits 0 with the totals', async () => {
    let release!: () => void;
    const tail = new Promise<void>((resolve) => (release = resolve));
    // Six requests whose bodies are half sent, on six connections, so on both workers.
    const inFlight = Array.from({ length: 6 }, () => post(port, records(3), tail));
    // Both workers hold all six (admitted, reading their bodies) before the primary drains them.
    for (;;) {
      const metrics = await cluster.metrics();
      const holding = metrics.workers.map((w) => counted(w.metrics, 'rest_origin_requests_in_flight'));
      if (holding.length === 2 && holding.every((n) => n > 0) && holding[0]! + holding[1]! === 6) break;
    }
    const from = cluster.stdout.length;
    cluster.child.kill('SIGTERM');
    await cluster.waitFor(/drain from the primary, closing[\s\S]*drain from the primary, closing/, from);
    release();
    const answers = await Promise.all(inFlight);
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200, 200]);
    sent = { requests: sent.requests + 6, records: sent.records + 18 };
    const [code] = await once(cluster.child, 'exit');
    expect(code).toBe(0);
    // The totals are the final counters of the workers that closed; the killed worker's died with it.
    const totals = /served (\d+) requests, (\d+) records in all/.exec(cluster.stdout);
    expect(totals?.slice(1).map(Number)).toEqual([
      sent.requests - lost.requests,
      sent.records - lost.records,
    ]);
  });
});

it('refuses a --workers value that is no whole number from 1, or auto', async () => {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', cli, 'serve', '--config', 'x.json', '--workers', '0'],
    {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const [code] = await once(child, 'exit');
  expect(code).toBe(2);
  expect(stderr).toContain("--workers must be a whole number from 1, or auto (got '0')");
});

it('stops with 1, forking no replacement, when the workers cannot listen (the port is in use)', async () => {
  const { createServer } = await import('node:net');
  const holder = createServer();
  await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
  const { port } = holder.address() as { port: number };
  const config = join(dir, 'busy-port.json');
  writeFileSync(config, JSON.stringify({ http: { host: '127.0.0.1' }, dataFormat: { format: 'json' } }));
  try {
    const cluster = new Cluster(['serve', '--config', config, '--port', String(port), '--workers', '2']);
    const [code] = await once(cluster.child, 'exit');
    expect(code).toBe(1);
    expect(cluster.stderr).toMatch(/worker \d exited \(code 1\) before it listened; stopping/);
    expect(cluster.stderr).not.toMatch(/replacing it/);
  } finally {
    holder.close();
  }
});

it('keeps http.rateLimits for the whole port: the workers count in the primary', async () => {
  const config = join(dir, 'rate-limited.json');
  writeFileSync(
    config,
    JSON.stringify({
      http: {
        host: '127.0.0.1',
        rateLimits: [{ key: 'clientAddress', requestsPerSecond: 0.01, burst: 3 }],
      },
      dataFormat: { format: 'json' },
      pipeline: { runnerIdleTimeMs: 0 },
    }),
  );
  const port = await freePort();
  const cluster = new Cluster(['serve', '--config', config, '--port', String(port), '--workers', '2']);
  try {
    await cluster.waitFor(/2 workers serving at/);
    // Six new connections, three to each worker: counted per worker, all six would pass.
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await post(port, '[{"n":1}]')).status);
    expect(statuses.filter((status) => status === 200)).toHaveLength(3);
    expect(statuses.filter((status) => status === 429)).toHaveLength(3);
  } finally {
    cluster.child.kill('SIGTERM');
    await once(cluster.child, 'exit');
  }
});

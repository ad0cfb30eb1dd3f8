import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { Pool } from 'undici';
import { freePort } from './free-port';
import { startNginx } from './nginx';
import { stopProcess } from './server-process';

// Run from the project's root (jest's rootDir, and `npm run bench`), as CommonJS under jest and as ESM under tsx,
// where __dirname does not exist.
const root = process.cwd();
const script = join(root, 'tests', 'support', 'numbered-origin-process.ts');

/** Options of {@link runScaleOut}. */
export interface ScaleOutOptions {
  /** Numbered records sent, one per request (1..requests). */
  readonly requests: number;
  /** Requests in flight at once (the client's connections to nginx). */
  readonly concurrency: number;
  /** After this many answers, instance `a` is sent SIGTERM and nginx is reloaded without it. */
  readonly drainAfter: number;
  /** The loopback address the client sends from (nginx's `$remote_addr`, the client the origins should see). */
  readonly clientAddress: string;
}

/** Transport errors of a request whose connection nginx closed before answering it (see the client below). */
const CLOSED_BEFORE_ANSWER = new Set(['UND_ERR_SOCKET', 'ECONNRESET']);

/** What one run measured. */
export interface ScaleOutResult {
  readonly sent: number;
  /** Answers by HTTP status. */
  readonly statuses: Readonly<Record<string, number>>;
  /** Requests that got no answer at all (a transport error), even when sent again: the sum of the codes below. */
  readonly transportErrors: number;
  /** Those transport errors by their `code` (undici's, or the socket's errno; the message when there is none). */
  readonly transportErrorCodes: Readonly<Record<string, number>>;
  /**
   * Requests sent again because nginx closed their keep-alive connection before answering (its reload):
   * "other side closed" or ECONNRESET.
   */
  readonly clientRetries: number;
  /** 200 answers by the instance that served them (`X-Served-By`), before and after the drain began. */
  readonly servedBefore: Readonly<Record<string, number>>;
  readonly servedAfter: Readonly<Record<string, number>>;
  /** The `remoteHost` values the pipelines saw, with how many records each. */
  readonly remoteHosts: Readonly<Record<string, number>>;
  /** Records each instance's pipeline processed, from its own count. */
  readonly processed: Readonly<Record<string, number>>;
  /**
   * nginx's access log: how many requests it sent to one upstream (`"200"`) or, after a failed attempt, to
   * another (`"503, 200"`: the draining instance refused it; `"502, 200"`: its port refused the connection).
   */
  readonly upstreamStatuses: Readonly<Record<string, number>>;
  /** Numbers no pipeline processed, and numbers processed more than once. */
  readonly lost: number;
  readonly duplicated: number;
  /** From the first request to the last answer, and from SIGTERM to the drained instance's exit. */
  readonly durationMs: number;
  readonly drainMs: number;
}

/** One origin instance (numbered-origin-process.ts, on 127.0.0.1:`port`) and what it prints. */
export class OriginInstance {
  readonly child: ChildProcess;
  #stdout = '';
  #stderr = '';

  constructor(
    readonly name: string,
    readonly port: number,
  ) {
    this.child = spawn(process.execPath, ['--import', 'tsx', script, String(port), name], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child.stdout!.on('data', (chunk: Buffer) => (this.#stdout += chunk.toString()));
    this.child.stderr!.on('data', (chunk: Buffer) => (this.#stderr += chunk.toString()));
  }

  async listening(): Promise<void> {
    while (!this.#stdout.includes('listening\n')) {
      if (this.child.exitCode !== null) throw new Error(`${this.name} exited: ${this.#stderr}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /** Sends SIGTERM and resolves with the numbers its pipeline processed, once it has drained and exited. */
  async drain(): Promise<number[]> {
    const exited = once(this.child, 'exit');
    this.child.kill('SIGTERM');
    const [code] = (await exited) as [number | null];
    const line = /^seen (\[.*\])$/m.exec(this.#stdout);
    if (code !== 0 || !line) throw new Error(`${this.name} exited with ${code}: ${this.#stderr}`);
    return JSON.parse(line[1]!) as number[];
  }

  kill(): Promise<void> {
    return stopProcess(this.child);
  }
}

/**
 * Two origin processes (`a`, `b`, each with trustedProxies 127.0.0.1) behind a real nginx (round robin, the
 * config of docs/deployment.md), a bounded load of numbered records sent from `clientAddress`, and a drain and
 * removal of `a` in the middle of it: SIGTERM to `a` (its origin closes: new requests 503, which nginx passes to
 * `b`, admitted ones answered), nginx reloaded without `a`, then `a`'s exit awaited. At the end `b` is drained
 * too and the numbers both pipelines processed are compared with those sent. Everything is stopped in the end,
 * whatever happened.
 */
export async function runScaleOut(options: ScaleOutOptions): Promise<ScaleOutResult> {
  const [portA, portB, nginxPort] = [await freePort(), await freePort(), await freePort()];
  const a = new OriginInstance('a', portA);
  const b = new OriginInstance('b', portB);
  let nginx: Awaited<ReturnType<typeof startNginx>> | undefined;
  let pool: Pool | undefined;
  try {
    await Promise.all([a.listening(), b.listening()]);
    nginx = await startNginx({ port: nginxPort, upstreams: [portA, portB] });
    pool = new Pool(nginx.url, { connections: options.concurrency, localAddress: options.clientAddress });
    return await load(options, pool, nginx, a, b, portB, nginxPort);
  } finally {
    await pool?.close();
    await nginx?.stop();
    await Promise.all([a.kill(), b.kill()]);
  }
}

async function load(
  options: ScaleOutOptions,
  pool: Pool,
  nginx: Awaited<ReturnType<typeof startNginx>>,
  a: OriginInstance,
  b: OriginInstance,
  portB: number,
  nginxPort: number,
): Promise<ScaleOutResult> {
  const statuses: Record<string, number> = {};
  const servedBefore: Record<string, number> = {};
  const servedAfter: Record<string, number> = {};
  const remoteHosts: Record<string, number> = {};
  const transportErrorCodes: Record<string, number> = {};
  let clientRetries = 0;
  let answered = 0;
  let next = 1;
  let draining: Promise<{ seen: number[]; ms: number }> | undefined;
  const startedAt = performance.now();

  const drainA = async (): Promise<{ seen: number[]; ms: number }> => {
    const at = performance.now();
    const seen = a.drain();
    await nginx.reload({ port: nginxPort, upstreams: [portB] });
    return { seen: await seen, ms: performance.now() - at };
  };

  const client = async (): Promise<void> => {
    let n = 0;
    let retried = 0;
    for (;;) {
      if (retried === 0) {
        if (next > options.requests) break;
        n = next++;
      }
      try {
        const answer = await pool.request({
          path: '/numbered',
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ n }),
        });
        const text = await answer.body.text();
        statuses[answer.statusCode] = (statuses[answer.statusCode] ?? 0) + 1;
        if (answer.statusCode === 200) {
          const by = String(answer.headers['x-served-by']);
          const served = draining ? servedAfter : servedBefore;
          served[by] = (served[by] ?? 0) + 1;
          const record = (JSON.parse(text) as { data: { remoteHost: string }[] }).data[0];
          const host = record?.remoteHost ?? '(none)';
          remoteHosts[host] = (remoteHosts[host] ?? 0) + 1;
        }
      } catch (error) {
        const code = (error as { code?: string }).code;
        // nginx's reload closes idle keep-alive connections of its old workers; a request sent on one at that
        // moment never reached nginx. The client sees "other side closed" before any answer, or ECONNRESET when
        // the request's bytes were already in nginx's socket buffer as it closed it (the kernel then resets the
        // connection). The client sends it again, as a client with idempotency keys would: were it a request
        // processed once already, the duplicate count below would show it.
        if (code !== undefined && CLOSED_BEFORE_ANSWER.has(code) && retried < 2) {
          clientRetries++;
          retried++;
          continue;
        }
        const named = code ?? (error as Error).message;
        transportErrorCodes[named] = (transportErrorCodes[named] ?? 0) + 1;
      }
      retried = 0;
      if (++answered === options.drainAfter) draining = drainA();
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, client));
  const durationMs = performance.now() - startedAt;
  const drained = await (draining ?? drainA());
  const seenB = await b.drain();

  const counts = new Map<number, number>();
  for (const n of [...drained.seen, ...seenB]) counts.set(n, (counts.get(n) ?? 0) + 1);
  let lost = 0;
  let duplicated = 0;
  for (let n = 1; n <= options.requests; n++) {
    const count = counts.get(n) ?? 0;
    if (count === 0) lost++;
    if (count > 1) duplicated++;
  }
  return {
    sent: options.requests,
    statuses,
    transportErrors: Object.values(transportErrorCodes).reduce((sum, count) => sum + count, 0),
    transportErrorCodes,
    clientRetries,
    servedBefore,
    servedAfter,
    remoteHosts,
    processed: { a: drained.seen.length, b: seenB.length },
    upstreamStatuses: upstreamStatuses(nginx.accessLog()),
    lost,
    duplicated,
    durationMs,
    drainMs: drained.ms,
  };
}

/** Counts the `$upstream_status` values of the access log (format `upstreams` of tests/support/nginx.ts). */
function upstreamStatuses(log: string): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const line of log.split('\n')) {
    const status = /upstream_status="([^"]*)"/.exec(line)?.[1];
    if (status !== undefined) counts[status] = (counts[status] ?? 0) + 1;
  }
  return counts;
}

/** The result as the lines the test and the bench print. */
export function describeScaleOut(result: ScaleOutResult): string {
  const rps = (result.sent / result.durationMs) * 1000;
  return [
    `numbered records sent:        ${result.sent} in ${result.durationMs.toFixed(0)} ms (${rps.toFixed(0)} req/s through nginx)`,
    `answers by status:            ${JSON.stringify(result.statuses)}; transport errors: ${result.transportErrors} ${JSON.stringify(result.transportErrorCodes)}`,
    `sent again (nginx closed the keep-alive connection on reload): ${result.clientRetries}`,
    `served before the drain:      ${JSON.stringify(result.servedBefore)}`,
    `served after it began:        ${JSON.stringify(result.servedAfter)}`,
    `processed by each pipeline:   ${JSON.stringify(result.processed)}`,
    `nginx upstream attempts:      ${JSON.stringify(result.upstreamStatuses)}`,
    `remoteHost seen by pipelines: ${JSON.stringify(result.remoteHosts)}`,
    `drain of a (SIGTERM, nginx reload, exit): ${result.drainMs.toFixed(0)} ms`,
    `lost: ${result.lost}, duplicated: ${result.duplicated}`,
  ].join('\n');
}

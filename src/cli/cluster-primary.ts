import cluster, { type Worker } from 'node:cluster';
import { availableParallelism } from 'node:os';
import type { MetricsSnapshot } from '../metrics/metrics-snapshot';
import { isClusterMessage, type ClusterMessage, type ClusterMetrics } from './cluster-messages';
import { startPrimaryServices } from './primary-services';

/** A worker that lived at least this long before it died was stable: the next replacement starts at once. */
export const STABLE_WORKER_MS = 10_000;
/** The first delay before replacing a worker that died young; doubled for each further young death. */
export const FIRST_BACKOFF_MS = 500;
/** The longest delay before a replacement. */
export const MAX_BACKOFF_MS = 30_000;
/** Past the workers' own close timeout, how long the primary waits before it kills a worker still draining. */
const DRAIN_GRACE_MS = 5_000;

/**
 * The `--workers` value: a whole number from 1 up, or `auto` for the cores Node may use
 * (`os.availableParallelism()`); `undefined` for anything else.
 */
export function parseWorkers(value: string | undefined): number | undefined {
  if (value === undefined) return 1;
  if (value === 'auto') return availableParallelism();
  return /^[1-9]\d{0,3}$/.test(value) ? Number(value) : undefined;
}

/** The delay before replacing a worker, after `youngDeaths` deaths in a row of workers that were not stable. */
export function backoffMs(youngDeaths: number): number {
  return youngDeaths === 0 ? 0 : Math.min(MAX_BACKOFF_MS, FIRST_BACKOFF_MS * 2 ** (youngDeaths - 1));
}

/** Options of {@link runPrimary}. */
export interface PrimaryOptions {
  /** How many workers to keep running. */
  readonly workers: number;
  /** The workers' own close timeout (their `origin.close({ timeoutMs })`). */
  readonly closeTimeoutMs: number;
}

/**
 * The primary of `rest-origin serve --workers N`: starts the primary-side services, forks N workers (each runs
 * the same command line, and so serves the same config with a runner pool of its own; they share the port
 * through `node:cluster`, which hands each new connection to the next worker in turn), and then:
 *
 * - replaces a worker that exits while the cluster serves, at once when it had run for STABLE_WORKER_MS, else
 *   after a back-off doubling from FIRST_BACKOFF_MS to MAX_BACKOFF_MS, so a crash loop does not spin;
 * - on SIGTERM or SIGINT, tells every worker to drain (each closes its origins: no new requests, admitted ones
 *   answered), waits for all of them to exit, prints the cluster's totals and resolves;
 * - on SIGUSR2, prints the cluster's metrics (every worker's snapshot, summed).
 *
 * Resolves with 0 after a drain in which every worker exited with 0, else 1; also 1 when a worker exits before
 * it ever listened during the start (a port in use, say): the others are drained and nothing is replaced.
 */
export async function runPrimary(options: PrimaryOptions): Promise<number> {
  const services = startPrimaryServices();
  const primary = new Primary(options, (timeoutMs) => services.collectMetrics(timeoutMs));
  const code = await primary.run();
  const { total, missing } = await services.collectMetrics();
  console.log(
    `rest-origin: served ${counted(total, 'rest_origin_requests_total')} requests, ` +
      `${counted(total, 'rest_origin_records_received_total')} records in all` +
      `${missing > 0 ? ` (${missing} workers did not report)` : ''}`,
  );
  services.close();
  return code;
}

/** The sum of a counter family's samples in `snapshot` (0 when it has none). */
export function counted(snapshot: MetricsSnapshot, name: string): number {
  const family = snapshot.families.find((f) => f.name === name);
  return family === undefined || family.type === 'histogram'
    ? 0
    : family.samples.reduce((sum, sample) => sum + sample.value, 0);
}

class Primary {
  readonly #options: PrimaryOptions;
  readonly #collect: (timeoutMs?: number) => Promise<ClusterMetrics>;
  /** When each worker was forked, by worker id; a worker leaves it when it exits. */
  readonly #forkedAt = new Map<number, number>();
  readonly #listening = new Set<number>();
  readonly #replacements = new Set<NodeJS.Timeout>();
  #youngDeaths = 0;
  #started = false;
  #stopping = false;
  #failed = false;
  #finish: (() => void) | undefined;

  constructor(options: PrimaryOptions, collect: (timeoutMs?: number) => Promise<ClusterMetrics>) {
    this.#options = options;
    this.#collect = collect;
  }

  run(): Promise<number> {
    const finished = new Promise<void>((resolve) => (this.#finish = resolve));
    cluster.on('message', (worker, message: unknown) => this.#message(worker, message));
    cluster.on('exit', (worker, code, signal) => this.#exited(worker, code, signal));
    process.once('SIGINT', () => this.#drain('SIGINT received'));
    process.once('SIGTERM', () => this.#drain('SIGTERM received'));
    process.on('SIGUSR2', () => void this.#print());
    for (let i = 0; i < this.#options.workers; i++) this.#fork();
    return finished.then(() => (this.#failed ? 1 : 0));
  }

  #fork(): void {
    const worker = cluster.fork();
    this.#forkedAt.set(worker.id, Date.now());
  }

  #message(worker: Worker, message: unknown): void {
    if (!isClusterMessage(message) || message.type !== 'rest-origin:listening') return;
    this.#listening.add(worker.id);
    console.log(`rest-origin: worker ${worker.id} (pid ${worker.process.pid}) listening at ${message.url}`);
    if (!this.#started && this.#listening.size === this.#options.workers) {
      this.#started = true;
      console.log(
        `rest-origin: ${this.#options.workers} workers serving at ${message.url} ` +
          `(primary pid ${process.pid}: SIGUSR2 prints the metrics, SIGTERM drains)`,
      );
    }
  }

  #exited(worker: Worker, code: number | null, signal: string | null): void {
    const forkedAt = this.#forkedAt.get(worker.id) ?? Date.now();
    this.#forkedAt.delete(worker.id);
    const listened = this.#listening.delete(worker.id);
    const how = signal === null ? `code ${code}` : signal;
    if (this.#stopping) {
      if (code !== 0) this.#failed = true;
      console.log(`rest-origin: worker ${worker.id} (pid ${worker.process.pid}) closed (${how})`);
      if (this.#forkedAt.size === 0) this.#finish?.();
      return;
    }
    if (!this.#started && !listened) {
      console.error(`rest-origin: worker ${worker.id} exited (${how}) before it listened; stopping`);
      this.#failed = true;
      return this.#drain('a worker could not start');
    }
    this.#youngDeaths = Date.now() - forkedAt >= STABLE_WORKER_MS ? 0 : this.#youngDeaths + 1;
    const delay = backoffMs(this.#youngDeaths);
    console.error(
      `rest-origin: worker ${worker.id} (pid ${worker.process.pid}) exited (${how}); replacing it` +
        (delay === 0 ? '' : ` in ${delay} ms`),
    );
    const timer = setTimeout(() => {
      this.#replacements.delete(timer);
      if (!this.#stopping) this.#fork();
    }, delay);
    this.#replacements.add(timer);
  }

  #drain(why: string): void {
    if (this.#stopping) return;
    this.#stopping = true;
    console.log(`rest-origin: ${why}, draining ${this.#forkedAt.size} workers`);
    for (const timer of this.#replacements) clearTimeout(timer);
    this.#replacements.clear();
    if (this.#forkedAt.size === 0) return this.#finish?.();
    for (const worker of Object.values(cluster.workers ?? {})) {
      if (worker?.isConnected()) worker.send({ type: 'rest-origin:drain' } satisfies ClusterMessage);
    }
    // A worker stuck past its own close timeout is killed, so that the primary always ends.
    setTimeout(() => {
      for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill('SIGKILL');
    }, this.#options.closeTimeoutMs + DRAIN_GRACE_MS).unref();
  }

  async #print(): Promise<void> {
    const metrics = await this.#collect();
    console.log(`rest-origin: metrics ${JSON.stringify(metrics)}`);
  }
}

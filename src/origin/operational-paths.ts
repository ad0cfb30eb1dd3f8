import { ConfigError, type ConfigProblem } from '../errors/config-error';
import { mergeMetricsSnapshots, type MetricsSnapshot } from '../metrics/metrics-snapshot';
import {
  OPENMETRICS_CONTENT_TYPE,
  PROMETHEUS_CONTENT_TYPE,
  metricsTextFormatFor,
  renderPrometheusText,
} from '../metrics/prometheus-text';
import type { HttpConfig } from './config';
import { isHttp2 } from '../http/http2-stream';
import type { OriginRequest, OriginResponse } from '../http/origin-exchange';

/** The reason a closing origin gives for being neither healthy nor ready. */
export const CLOSING = 'closing';

/** What a path of the origin's port answers instead of going to the pipeline. */
export type OperationalKind = 'metrics' | 'health' | 'readiness';

const PATH_OPTIONS: readonly {
  readonly key: 'metricsPath' | 'healthPath' | 'readinessPath';
  readonly kind: OperationalKind;
}[] = [
  { key: 'metricsPath', kind: 'metrics' },
  { key: 'healthPath', kind: 'health' },
  { key: 'readinessPath', kind: 'readiness' },
];

/**
 * What an origin offers the operational paths of its port (decision 0080): its metrics and whether it is healthy
 * and ready. Made once per origin, and only when one of `http.metricsPath`, `http.healthPath`,
 * `http.readinessPath` is set.
 */
export interface OperationalProbe {
  /** Path → what it answers. */
  readonly routes: ReadonlyMap<string, OperationalKind>;
  /** The configured paths as one string: origins share a port only when theirs are equal. */
  readonly routesKey: string;
  /** The metrics the path serves now: the origin's own, or what `OriginOptions.metricsSource` gives. */
  snapshot(): MetricsSnapshot | Promise<MetricsSnapshot>;
  /** Why the origin is not healthy (it is closing), or `undefined` while it is. */
  unhealthy(): string | undefined;
  /** Why the origin would not take a request now, or `undefined` when it would. */
  unready(): string | undefined;
}

/** The routes of `http`'s operational paths; `undefined` when none is set (the common case: nothing to check). */
export function operationalRoutes(http: HttpConfig): Map<string, OperationalKind> | undefined {
  const routes = new Map<string, OperationalKind>();
  for (const { key, kind } of PATH_OPTIONS) if (http[key] !== '') routes.set(http[key], kind);
  return routes.size === 0 ? undefined : routes;
}

/**
 * Refuses a config whose operational paths are not distinct (the schema checks that each is `''` or a path
 * without a query).
 *
 * @throws ConfigError naming each path used twice.
 */
export function checkOperationalPaths(http: HttpConfig): void {
  const problems: ConfigProblem[] = [];
  const seen = new Map<string, string>();
  for (const { key } of PATH_OPTIONS) {
    const path = http[key];
    if (path === '') continue;
    const other = seen.get(path);
    if (other !== undefined) {
      problems.push({
        path: `/http/${key}`,
        message: `'${path}' is already http.${other}; each path answers one thing`,
      });
    }
    seen.set(path, key);
  }
  if (problems.length > 0) throw new ConfigError(problems);
}

/**
 * What `req` asks of `probe`'s operational paths (its path, the query string aside), or `undefined` for any
 * other path (nearly every request: a map lookup). `probe` absent: `undefined`.
 */
export function operationalKindOf(
  probe: OperationalProbe | undefined,
  req: OriginRequest,
): OperationalKind | undefined {
  if (probe === undefined) return undefined;
  const url = req.url ?? '/';
  const query = url.indexOf('?');
  return probe.routes.get(query < 0 ? url : url.slice(0, query));
}

/**
 * Answers `req`, which asks for `kind` ({@link operationalKindOf}), for `probes` (the origins of one port, whose
 * paths are equal). Such a request never enters the pipeline and is not counted in the metrics: it needs no application ID and no
 * authentication (decision 0080). `GET` and `HEAD` are answered; any other method gets 405.
 *
 * - metrics: 200 with every origin's metrics, merged, as Prometheus text, or OpenMetrics when `Accept` asks for it;
 * - health: 200 while every origin is open, 503 once one is closing;
 * - readiness: 200 while every origin would take a request, else 503 naming why (closing, admission queue full,
 *   runner pool not ready).
 */
export function serveOperational(
  kind: OperationalKind,
  probes: readonly OperationalProbe[],
  req: OriginRequest,
  res: OriginResponse,
): void {
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    return answer(req, res, 405, 'method not allowed\n', { Allow: 'GET, HEAD' });
  }
  if (kind === 'metrics') return serveMetrics(probes, req, res);
  const why = firstReason(probes, kind === 'health' ? (p) => p.unhealthy() : (p) => p.unready());
  if (why === undefined) answer(req, res, 200, kind === 'health' ? 'ok\n' : 'ready\n');
  else {
    // As every answer of a closing origin: the client should connect again (elsewhere) rather than reuse this.
    const close: Record<string, string> = why === CLOSING ? { Connection: 'close' } : {};
    answer(req, res, 503, `${kind === 'health' ? 'unhealthy' : 'not ready'}: ${why}\n`, close);
  }
}

/**
 * The metrics of `probes`, merged, in the format the scraper asks for. At once when every snapshot is at hand;
 * when one is a promise (a source that asks other processes), once all have settled, or 503 when one fails.
 */
function serveMetrics(probes: readonly OperationalProbe[], req: OriginRequest, res: OriginResponse): void {
  const format = metricsTextFormatFor(req.headers.accept);
  const contentType = format === 'openmetrics' ? OPENMETRICS_CONTENT_TYPE : PROMETHEUS_CONTENT_TYPE;
  const render = (snapshots: readonly MetricsSnapshot[]): void => {
    if (res.headersSent || res.destroyed) return;
    const text = renderPrometheusText(mergeMetricsSnapshots(snapshots), format);
    answer(req, res, 200, text, { 'Content-Type': contentType });
  };
  let snapshots: (MetricsSnapshot | Promise<MetricsSnapshot>)[];
  try {
    snapshots = probes.map((probe) => probe.snapshot());
  } catch (error) {
    return metricsUnavailable(req, res, error);
  }
  if (!snapshots.some((snapshot) => snapshot instanceof Promise))
    return render(snapshots as MetricsSnapshot[]);
  Promise.all(snapshots).then(render, (error: unknown) => metricsUnavailable(req, res, error));
}

/**
 * A metrics source failed: the scraper gets a bare 503 (the error is the host's, its words may not be for anyone
 * who can reach the port, decision 0046), the host a process warning (type `OriginWarning`, code
 * `REST_ORIGIN_METRICS_SOURCE_FAILED`) with the error's message.
 */
function metricsUnavailable(req: OriginRequest, res: OriginResponse, error: unknown): void {
  const why = error instanceof Error ? error.message : String(error);
  process.emitWarning(`The metrics source failed: ${why}`, {
    type: 'OriginWarning',
    code: 'REST_ORIGIN_METRICS_SOURCE_FAILED',
  });
  if (res.headersSent || res.destroyed) return;
  answer(req, res, 503, 'metrics unavailable\n');
}

function firstReason(
  probes: readonly OperationalProbe[],
  reason: (probe: OperationalProbe) => string | undefined,
): string | undefined {
  for (const probe of probes) {
    const why = reason(probe);
    if (why !== undefined) return why;
  }
  return undefined;
}

function answer(
  req: OriginRequest,
  res: OriginResponse,
  status: number,
  body: string,
  headers: Record<string, string> = {},
): void {
  const all: Record<string, string | number> = {
    'Content-Type': 'text/plain; charset=utf-8',
    'Cache-Control': 'no-store',
    ...headers,
    'Content-Length': Buffer.byteLength(body),
  };
  // A body nobody reads (a probe sends none; a wrong method might): close rather than read it all.
  if (req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0) {
    all['Connection'] = 'close';
  }
  // HTTP/2 has no Connection header: a closing HTTP/2 port has sent GOAWAY instead.
  if (isHttp2(req)) delete all['Connection'];
  res.writeHead(status, all);
  res.end(req.method === 'HEAD' ? undefined : body);
}

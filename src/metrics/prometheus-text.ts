import type { MetricFamily, MetricLabels, MetricsSnapshot } from './metrics-snapshot';

/** The content type of the Prometheus text exposition format (0.0.4), which every Prometheus scrapes. */
export const PROMETHEUS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

/** The content type of the OpenMetrics text format (1.0.0), sent when a scraper asks for it in `Accept`. */
export const OPENMETRICS_CONTENT_TYPE = 'application/openmetrics-text; version=1.0.0; charset=utf-8';

/** The two text formats a snapshot renders to. */
export type MetricsTextFormat = 'prometheus' | 'openmetrics';

/**
 * Renders a snapshot as Prometheus text exposition (`prometheus`, 0.0.4) or as OpenMetrics 1.0 text
 * (`openmetrics`: counter families are named without `_total`, which their samples carry, and the text ends with
 * `# EOF`). Pure; families and samples come out in snapshot order. A family with no sample yet still gets its
 * `# HELP` and `# TYPE` lines, so that a scraper knows it from the first scrape.
 */
export function renderPrometheusText(
  snapshot: MetricsSnapshot,
  format: MetricsTextFormat = 'prometheus',
): string {
  const openMetrics = format === 'openmetrics';
  let text = '';
  for (const family of snapshot.families) text += renderFamily(family, openMetrics);
  return openMetrics ? `${text}# EOF\n` : text;
}

/**
 * The format a scraper asks for in its `Accept` header: OpenMetrics when it names
 * `application/openmetrics-text` (as Prometheus does, preferring it), else the Prometheus text format.
 */
export function metricsTextFormatFor(accept: string | undefined): MetricsTextFormat {
  return accept !== undefined && accept.includes('application/openmetrics-text')
    ? 'openmetrics'
    : 'prometheus';
}

function renderFamily(family: MetricFamily, openMetrics: boolean): string {
  const { name, type } = family;
  const familyName = openMetrics && type === 'counter' ? name.replace(/_total$/, '') : name;
  let text = `# HELP ${familyName} ${escapeHelp(family.help, openMetrics)}\n# TYPE ${familyName} ${type}\n`;
  if (family.type !== 'histogram') {
    const sampleName = openMetrics && type === 'counter' ? `${familyName}_total` : name;
    for (const sample of family.samples) {
      text += `${sampleName}${labelText(sample.labels)} ${numberText(sample.value)}\n`;
    }
    return text;
  }
  for (const sample of family.samples) {
    family.buckets.forEach((bound, i) => {
      const le = labelText(sample.labels, numberText(bound));
      text += `${name}_bucket${le} ${numberText(sample.bucketCounts[i] ?? 0)}\n`;
    });
    text += `${name}_bucket${labelText(sample.labels, '+Inf')} ${numberText(sample.count)}\n`;
    text += `${name}_sum${labelText(sample.labels)} ${numberText(sample.sum)}\n`;
    text += `${name}_count${labelText(sample.labels)} ${numberText(sample.count)}\n`;
  }
  return text;
}

/** `{a="x",b="y"}` (with `le` last when given), or nothing for no labels. */
function labelText(labels: MetricLabels, le?: string): string {
  const parts = Object.keys(labels).map((label) => `${label}="${escapeLabelValue(labels[label] ?? '')}"`);
  if (le !== undefined) parts.push(`le="${le}"`);
  return parts.length === 0 ? '' : `{${parts.join(',')}}`;
}

function escapeLabelValue(value: string): string {
  return value.replace(/[\\"\n]/g, (c) => (c === '\n' ? '\\n' : `\\${c}`));
}

/** Backslash and line feed are escaped in both formats; OpenMetrics escapes the double quote too. */
function escapeHelp(help: string, openMetrics: boolean): string {
  const special = openMetrics ? /[\\"\n]/g : /[\\\n]/g;
  return help.replace(special, (c) => (c === '\n' ? '\\n' : `\\${c}`));
}

function numberText(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (value === Infinity) return '+Inf';
  if (value === -Infinity) return '-Inf';
  return String(value);
}

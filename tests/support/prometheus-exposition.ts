/**
 * A strict reader of the Prometheus text exposition format 0.0.4 and of OpenMetrics 1.0 text, for tests: it
 * throws on the first line that breaks the grammar or the rules a scraper relies on, and returns every series
 * with its value. Checked: metric and label name syntax, label value escapes, number syntax, `# HELP` / `# TYPE` at
 * most once per family and before its samples, a family's samples together, sample names that belong to their
 * family's type (`_total` for OpenMetrics counters; `_bucket` with `le`, `_sum`, `_count` for histograms), no
 * series twice, histogram buckets ascending with non-decreasing counts and a `+Inf` bucket equal to `_count`, the
 * final line feed and, for OpenMetrics, the closing `# EOF`.
 */

export interface ExposedFamily {
  type: string | undefined;
  help: string | undefined;
}

export interface Exposition {
  families: Map<string, ExposedFamily>;
  /** Series (`name{a="x",b="y"}`, labels sorted by name) → value. */
  series: Map<string, number>;
}

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const NUMBER = /^(?:[+-]?(?:\d+\.?\d*(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?)|[+-]?Inf|NaN)$/;
const TYPES = new Set([
  'counter',
  'gauge',
  'histogram',
  'summary',
  'untyped',
  'unknown',
  'info',
  'stateset',
  'gaugehistogram',
]);

/** Parses `text`; `openMetrics` applies the OpenMetrics rules. Throws an Error naming the line on any fault. */
export function parseExposition(text: string, openMetrics = false): Exposition {
  if (!text.endsWith('\n')) throw new Error('the text does not end with a line feed');
  const lines = text.slice(0, -1).split('\n');
  if (openMetrics) {
    if (lines.pop() !== '# EOF') throw new Error('OpenMetrics text does not end with # EOF');
    if (lines.includes('# EOF')) throw new Error('# EOF before the end');
  }
  const families = new Map<string, ExposedFamily>();
  const series = new Map<string, number>();
  const finished = new Set<string>();
  let current: string | undefined;
  const enter = (family: string, lineNo: number): void => {
    if (family === current) return;
    if (finished.has(family)) throw new Error(`line ${lineNo}: family ${family} is split`);
    if (current !== undefined) finished.add(current);
    current = family;
  };
  lines.forEach((line, index) => {
    const lineNo = index + 1;
    if (line === '') {
      if (openMetrics) throw new Error(`line ${lineNo}: empty line in OpenMetrics text`);
      return;
    }
    if (line.startsWith('#')) {
      const match = /^# (HELP|TYPE|UNIT) (\S+) ?(.*)$/.exec(line);
      if (!match) {
        if (openMetrics) throw new Error(`line ${lineNo}: stray comment in OpenMetrics text: ${line}`);
        return;
      }
      const [, keyword, name, rest] = match as unknown as [string, string, string, string];
      if (!METRIC_NAME.test(name)) throw new Error(`line ${lineNo}: bad metric name ${name}`);
      enter(name, lineNo);
      const family = families.get(name) ?? { type: undefined, help: undefined };
      families.set(name, family);
      if (keyword === 'HELP') {
        if (family.help !== undefined) throw new Error(`line ${lineNo}: second HELP for ${name}`);
        family.help = unescapeHelp(rest, lineNo, openMetrics);
      } else if (keyword === 'TYPE') {
        if (family.type !== undefined) throw new Error(`line ${lineNo}: second TYPE for ${name}`);
        if (series.size > 0 && [...series.keys()].some((key) => familyOf(key, families) === name)) {
          throw new Error(`line ${lineNo}: TYPE after samples of ${name}`);
        }
        if (!TYPES.has(rest)) throw new Error(`line ${lineNo}: unknown type ${rest}`);
        if (openMetrics && rest === 'counter' && name.endsWith('_total')) {
          throw new Error(`line ${lineNo}: OpenMetrics counter family ${name} must not end in _total`);
        }
        family.type = rest;
      }
      return;
    }
    const sample = parseSample(line, lineNo);
    const family = sampleFamily(sample.name, families, openMetrics, lineNo);
    enter(family, lineNo);
    const key = seriesKey(sample.name, sample.labels);
    if (series.has(key)) throw new Error(`line ${lineNo}: series ${key} twice`);
    series.set(key, sample.value);
  });
  checkHistograms(families, series);
  return { families, series };
}

/** Builds the key {@link Exposition.series} uses, for lookups in tests. */
export function seriesKey(name: string, labels: Record<string, string>): string {
  const names = Object.keys(labels).sort();
  return names.length === 0 ? name : `${name}{${names.map((n) => `${n}="${labels[n]}"`).join(',')}}`;
}

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

function parseSample(line: string, lineNo: number): Sample {
  const nameMatch = /^[a-zA-Z_:][a-zA-Z0-9_:]*/.exec(line);
  if (!nameMatch) throw new Error(`line ${lineNo}: no metric name: ${line}`);
  const name = nameMatch[0];
  let at = name.length;
  const labels: Record<string, string> = {};
  if (line[at] === '{') {
    at++;
    while (line[at] !== '}') {
      const labelMatch = /^([a-zA-Z_][a-zA-Z0-9_]*)="/.exec(line.slice(at));
      if (!labelMatch) throw new Error(`line ${lineNo}: bad label at ${at}: ${line}`);
      const label = labelMatch[1]!;
      if (!LABEL_NAME.test(label) || label.startsWith('__'))
        throw new Error(`line ${lineNo}: bad label ${label}`);
      if (label in labels) throw new Error(`line ${lineNo}: label ${label} twice`);
      at += labelMatch[0].length;
      let value = '';
      for (;;) {
        const c = line[at];
        if (c === undefined) throw new Error(`line ${lineNo}: unterminated label value`);
        at++;
        if (c === '"') break;
        if (c === '\\') {
          const escaped = line[at++];
          if (escaped === 'n') value += '\n';
          else if (escaped === '\\' || escaped === '"') value += escaped;
          else throw new Error(`line ${lineNo}: bad escape \\${escaped ?? ''}`);
        } else value += c;
      }
      labels[label] = value;
      if (line[at] === ',') at++;
      else if (line[at] !== '}') throw new Error(`line ${lineNo}: expected , or } at ${at}`);
    }
    at++;
  }
  if (line[at] !== ' ') throw new Error(`line ${lineNo}: expected a space before the value: ${line}`);
  const parts = line.slice(at + 1).split(' ');
  if (parts.length > 2 || parts[0] === undefined || !NUMBER.test(parts[0])) {
    throw new Error(`line ${lineNo}: bad value: ${line}`);
  }
  if (parts[1] !== undefined && !/^-?\d+(\.\d+)?$/.test(parts[1]))
    throw new Error(`line ${lineNo}: bad timestamp`);
  return { name, labels, value: numberOf(parts[0]) };
}

function numberOf(text: string): number {
  if (/^[+]?Inf$/.test(text)) return Infinity;
  if (text === '-Inf') return -Infinity;
  return Number(text);
}

/** The family a sample belongs to, by its declared TYPE; a sample of no declared family is refused. */
function sampleFamily(
  name: string,
  families: Map<string, ExposedFamily>,
  openMetrics: boolean,
  lineNo: number,
): string {
  const candidates: [string, string | undefined][] = [[name, undefined]];
  for (const suffix of ['_total', '_bucket', '_sum', '_count', '_created']) {
    if (name.endsWith(suffix)) candidates.push([name.slice(0, -suffix.length), suffix]);
  }
  for (const [family, suffix] of candidates) {
    const type = families.get(family)?.type;
    if (type === undefined) continue;
    const allowed: (string | undefined)[] =
      type === 'histogram'
        ? ['_bucket', '_sum', '_count']
        : type === 'counter'
          ? openMetrics
            ? ['_total']
            : [undefined]
          : [undefined];
    if (!allowed.includes(suffix))
      throw new Error(`line ${lineNo}: ${name} is no sample of ${type} ${family}`);
    return family;
  }
  throw new Error(`line ${lineNo}: sample ${name} has no TYPE line before it`);
}

function familyOf(key: string, families: Map<string, ExposedFamily>): string {
  const name = key.split('{')[0]!;
  for (const suffix of ['', '_total', '_bucket', '_sum', '_count']) {
    const family = suffix === '' ? name : name.slice(0, -suffix.length);
    if (name.endsWith(suffix) && families.has(family)) return family;
  }
  return name;
}

function unescapeHelp(text: string, lineNo: number, openMetrics: boolean): string {
  return text.replace(/\\(.?)/g, (_, c: string) => {
    if (c === 'n') return '\n';
    if (c === '\\' || (openMetrics && c === '"')) return c;
    throw new Error(`line ${lineNo}: bad escape in HELP: \\${c}`);
  });
}

/** Buckets ascending by `le`, counts non-decreasing, `+Inf` present and equal to `_count`. */
function checkHistograms(families: Map<string, ExposedFamily>, series: Map<string, number>): void {
  for (const [family, { type }] of families) {
    if (type !== 'histogram') continue;
    const byLabels = new Map<string, { le: number; count: number }[]>();
    for (const [key, value] of series) {
      if (!key.startsWith(`${family}_bucket{`)) continue;
      const leMatch = /le="([^"]*)"/.exec(key);
      if (!leMatch) throw new Error(`${key}: bucket without le`);
      const rest = key
        .replace(`${family}_bucket`, '')
        .replace(/le="[^"]*",?/, '')
        .replace(/,}$/, '}');
      const buckets = byLabels.get(rest) ?? [];
      buckets.push({ le: numberOf(leMatch[1]!), count: value });
      byLabels.set(rest, buckets);
    }
    for (const [labels, buckets] of byLabels) {
      for (let i = 1; i < buckets.length; i++) {
        if (!(buckets[i]!.le > buckets[i - 1]!.le))
          throw new Error(`${family}${labels}: buckets not ascending`);
        if (buckets[i]!.count < buckets[i - 1]!.count) throw new Error(`${family}${labels}: counts decrease`);
      }
      const last = buckets[buckets.length - 1];
      if (last?.le !== Infinity) throw new Error(`${family}${labels}: no +Inf bucket`);
      const countKey = `${family}_count${labels === '{}' ? '' : labels}`;
      if (series.get(countKey) !== last.count)
        throw new Error(`${family}${labels}: +Inf bucket is not _count`);
    }
  }
}

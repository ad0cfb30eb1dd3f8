import {
  mergeMetricsSnapshots,
  metricsTextFormatFor,
  renderPrometheusText,
  type MetricsSnapshot,
} from 'rest-service-origin';
import { parseExposition, seriesKey } from '../support/prometheus-exposition';
import { send, startOrigin, type TestOrigin } from '../origin/origin-helpers';

const worker = (requests: number, inFlight: number, durations: number[]): MetricsSnapshot => ({
  families: [
    {
      name: 'x_requests_total',
      help: 'Requests.',
      type: 'counter',
      samples: [{ labels: { status: '200', origin: 'o' }, value: requests }],
    },
    { name: 'x_in_flight', help: 'In flight.', type: 'gauge', samples: [{ labels: {}, value: inFlight }] },
    {
      name: 'x_seconds',
      help: 'Durations.',
      type: 'histogram',
      buckets: [0.1, 1],
      samples: [
        {
          labels: {},
          bucketCounts: [durations.filter((d) => d <= 0.1).length, durations.filter((d) => d <= 1).length],
          sum: durations.reduce((a, b) => a + b, 0),
          count: durations.length,
        },
      ],
    },
  ],
});

describe('mergeMetricsSnapshots and renderPrometheusText', () => {
  it('adds counters and gauges by label set (in any label order) and histograms bucket by bucket', () => {
    const other = worker(5, 2, [0.05, 2]);
    // The same labels in another order are the same series.
    (other.families[0]!.samples[0] as { labels: Record<string, string> }).labels = {
      origin: 'o',
      status: '200',
    };
    const merged = mergeMetricsSnapshots([worker(3, 1, [0.05, 0.5]), other]);
    const scrape = parseExposition(renderPrometheusText(merged));
    expect(scrape.series.get(seriesKey('x_requests_total', { status: '200', origin: 'o' }))).toBe(8);
    expect(scrape.series.get('x_in_flight')).toBe(3);
    expect(scrape.series.get(seriesKey('x_seconds_bucket', { le: '0.1' }))).toBe(2);
    expect(scrape.series.get(seriesKey('x_seconds_bucket', { le: '1' }))).toBe(3);
    expect(scrape.series.get(seriesKey('x_seconds_bucket', { le: '+Inf' }))).toBe(4);
    expect(scrape.series.get('x_seconds_sum')).toBeCloseTo(2.6);
    expect(scrape.series.get('x_seconds_count')).toBe(4);
  });

  it('keeps series with different labels apart and leaves its inputs unchanged', () => {
    const a = worker(1, 0, []);
    const b: MetricsSnapshot = {
      families: [
        {
          name: 'x_requests_total',
          help: 'Requests.',
          type: 'counter',
          samples: [{ labels: { status: '500' }, value: 2 }],
        },
      ],
    };
    const before = JSON.stringify(a);
    const merged = mergeMetricsSnapshots([a, b]);
    expect(JSON.stringify(a)).toBe(before);
    expect(merged.families[0]!.samples).toHaveLength(2);
    expect(merged.families.map((f) => f.name)).toEqual(['x_requests_total', 'x_in_flight', 'x_seconds']);
  });

  it('refuses families of one name with different types or buckets', () => {
    const gauge: MetricsSnapshot = {
      families: [{ name: 'x_in_flight', help: '', type: 'counter', samples: [] }],
    };
    expect(() => mergeMetricsSnapshots([worker(1, 1, []), gauge])).toThrow(TypeError);
    const rebucketed = worker(1, 1, []);
    (rebucketed.families[2] as unknown as { buckets: number[] }).buckets = [0.2, 1];
    expect(() => mergeMetricsSnapshots([worker(1, 1, []), rebucketed])).toThrow(/different buckets/);
  });

  it('escapes label values and help text so that they parse back', () => {
    const snapshot: MetricsSnapshot = {
      families: [
        {
          name: 'x_total',
          help: 'Back\\slash and\nline "quoted".',
          type: 'counter',
          samples: [{ labels: { origin: 'a "b"\\c\nd' }, value: 1 }],
        },
      ],
    };
    for (const format of ['prometheus', 'openmetrics'] as const) {
      const scrape = parseExposition(renderPrometheusText(snapshot, format), format === 'openmetrics');
      const family = scrape.families.get(format === 'openmetrics' ? 'x' : 'x_total');
      expect(family?.help).toBe('Back\\slash and\nline "quoted".');
      expect([...scrape.series.values()]).toEqual([1]);
      expect([...scrape.series.keys()][0]).toContain('a "b"\\c\nd');
    }
  });

  it('picks OpenMetrics only when the Accept header names it', () => {
    expect(metricsTextFormatFor(undefined)).toBe('prometheus');
    expect(metricsTextFormatFor('text/plain;version=0.0.4')).toBe('prometheus');
    expect(metricsTextFormatFor('application/openmetrics-text;version=1.0.0;q=0.9,*/*;q=0.1')).toBe(
      'openmetrics',
    );
  });

  describe("an origin's snapshot", () => {
    let running: TestOrigin | undefined;
    afterEach(async () => {
      await running?.stop();
      running = undefined;
    });

    it('survives JSON (as over IPC) and merges with itself into doubled counts', async () => {
      running = await startOrigin({ general: { name: 'w' } });
      await send(running.url, { body: '{"a":1}' });
      await send(running.url, { body: '{}', method: 'TRACE' });
      const snapshot = running.origin.metrics({ format: 'snapshot' });
      const overIpc = JSON.parse(JSON.stringify(snapshot)) as MetricsSnapshot;
      expect(overIpc).toEqual(snapshot);
      const both = parseExposition(renderPrometheusText(mergeMetricsSnapshots([snapshot, overIpc])));
      const one = parseExposition(running.origin.metrics({ format: 'prometheus' }));
      for (const [key, value] of one.series) {
        if (key.includes('_in_flight') || key.includes('_queue_depth')) continue;
        expect([key, both.series.get(key)]).toEqual([key, value * 2]);
      }
      expect(one.series.size).toBe(both.series.size);
    });

    it('keeps the summary of metrics() (no argument) in the shape of earlier versions', async () => {
      running = await startOrigin();
      await send(running.url, { body: '{"a":1}{"a":2}' });
      const summary = running.origin.metrics();
      expect(summary).toMatchObject({
        requests: { total: 1, byOutcome: { answered: 1, rejected: 0, failed: 0 }, byStatus: { '200': 1 } },
        rejectedByReason: {},
        records: { produced: 2, errors: 0, discarded: 0 },
        bytesReceived: 14,
        inFlight: 0,
        queued: 0,
      });
      expect(summary.latencyMs.count).toBe(1);
      expect(summary.latencyMs.p50).toBeGreaterThan(0);
      expect(summary.latencyMs.p99).toBeLessThanOrEqual(summary.latencyMs.max);
    });
  });
});

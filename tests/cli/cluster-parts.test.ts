import { availableParallelism } from 'node:os';
import { FIRST_BACKOFF_MS, MAX_BACKOFF_MS, backoffMs, parseWorkers } from '../../src/cli/cluster-primary';
import { sumMetricsSnapshots } from '../../src/cli/sum-metrics';
import { OriginMetrics } from '../../src/origin/origin-metrics';

describe('parseWorkers', () => {
  it('reads a whole number from 1, auto as the available cores, and nothing as 1', () => {
    expect(parseWorkers(undefined)).toBe(1);
    expect(parseWorkers('1')).toBe(1);
    expect(parseWorkers('12')).toBe(12);
    expect(parseWorkers('auto')).toBe(availableParallelism());
    for (const bad of ['0', '-1', '1.5', '', 'two', '01', '99999', 'Auto'])
      expect(parseWorkers(bad)).toBeUndefined();
  });
});

describe('backoffMs', () => {
  it('replaces at once after a stable worker, then doubles per young death up to the cap', () => {
    expect(backoffMs(0)).toBe(0);
    expect(backoffMs(1)).toBe(FIRST_BACKOFF_MS);
    expect(backoffMs(2)).toBe(2 * FIRST_BACKOFF_MS);
    expect(backoffMs(3)).toBe(4 * FIRST_BACKOFF_MS);
    expect(backoffMs(40)).toBe(MAX_BACKOFF_MS);
  });
});

describe('sumMetricsSnapshots', () => {
  it('adds every counter and count by status and reason, and bounds the percentiles by the largest', () => {
    const a = new OriginMetrics();
    a.countRequest('answered', 200, 5);
    a.countRequest('rejected', 403, 1, 'ORIGIN_APP_ID_INVALID');
    a.countRecords(10, 1, 0);
    a.countBytes(100);
    const b = new OriginMetrics();
    b.countRequest('answered', 200, 50);
    b.countRequest('rejected', 413, 2, 'ORIGIN_HTTP_BODY_TOO_LARGE');
    b.countRequest('rejected', 403, 1, 'ORIGIN_APP_ID_INVALID');
    b.countRecords(3, 0, 2);
    b.countBytes(7);
    const sum = sumMetricsSnapshots([a.snapshot(1, 2), b.snapshot(3, 0)]);
    expect(sum).toEqual({
      requests: {
        total: 5,
        byOutcome: { answered: 2, rejected: 3, failed: 0 },
        byStatus: { '200': 2, '403': 2, '413': 1 },
      },
      rejectedByReason: { ORIGIN_APP_ID_INVALID: 2, ORIGIN_HTTP_BODY_TOO_LARGE: 1 },
      records: { produced: 13, errors: 1, discarded: 2 },
      bytesReceived: 107,
      inFlight: 4,
      queued: 2,
      latencyMs: { count: 5, p50: 5, p90: 50, p99: 50, max: 50 },
    });
  });

  it('is all zero for no snapshot', () => {
    expect(sumMetricsSnapshots([])).toEqual(new OriginMetrics().snapshot(0, 0));
  });
});

import { availableParallelism } from 'node:os';
import {
  FIRST_BACKOFF_MS,
  MAX_BACKOFF_MS,
  backoffMs,
  counted,
  parseWorkers,
} from '../../src/cli/cluster-primary';
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

describe('counted', () => {
  it('sums the samples of a counter family, and is 0 for a family the snapshot lacks', () => {
    const metrics = new OriginMetrics('orders');
    metrics.countRequest('answered', 200, 5);
    metrics.countRequest('answered', 200, 6);
    metrics.countRequest('rejected', 403, 1, 'ORIGIN_APP_ID_INVALID');
    metrics.countRecords(10, 1, 0);
    const snapshot = metrics.snapshot(0, 0);
    expect(counted(snapshot, 'rest_origin_requests_total')).toBe(3);
    expect(counted(snapshot, 'rest_origin_records_received_total')).toBe(10);
    expect(counted(snapshot, 'no_such_family_total')).toBe(0);
  });
});

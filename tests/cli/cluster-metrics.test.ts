import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { ClusterMetrics } from '../../src/cli/cluster-messages';
import { counted } from '../../src/cli/cluster-primary';
import { clusterMetrics } from '../../src/cli/cluster-worker';

const root = join(__dirname, '..', '..');

it('gives a worker the whole cluster’s metrics, asked of the primary over IPC', async () => {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['--import', 'tsx', join(__dirname, 'cluster-metrics-process.ts')],
    { cwd: root, timeout: 20_000 },
  );
  const answer = JSON.parse(stdout.trim().split('\n').pop()!) as { metrics?: ClusterMetrics; error?: string };
  expect(answer.error).toBeUndefined();
  const metrics = answer.metrics!;
  expect(metrics.missing).toBe(0);
  // The workers sent 2 and 4 requests to the port they share, which the cluster spread over both.
  expect(metrics.workers).toHaveLength(2);
  const requests = metrics.workers.map((w) => counted(w.metrics, 'rest_origin_requests_total'));
  expect(requests[0]! + requests[1]!).toBe(6);
  expect(counted(metrics.total, 'rest_origin_requests_total')).toBe(6);
  expect(counted(metrics.total, 'rest_origin_records_received_total')).toBe(6);
});

it('refuses to ask outside a worker of a cluster', async () => {
  await expect(clusterMetrics(100)).rejects.toThrow('not a worker of rest-origin serve --workers');
});

import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { ClusterMetrics } from '../../src/cli/cluster-messages';
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
  expect(metrics.workers.reduce((sum, w) => sum + w.metrics.requests.total, 0)).toBe(6);
  expect(metrics.total.requests.total).toBe(6);
  expect(metrics.total.records.produced).toBe(6);
});

it('refuses to ask outside a worker of a cluster', async () => {
  await expect(clusterMetrics(100)).rejects.toThrow('not a worker of rest-origin serve --workers');
});

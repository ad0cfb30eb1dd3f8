// A two-worker cluster for tests/cli/cluster-metrics.test.ts, made of the CLI's own parts: the primary starts its
// services and forks two workers; each serves an origin on the port they share (port 0 in a cluster is one
// ephemeral port for all), sends 2 × its worker id requests to it, and says it listens. Then worker 1 asks the primary for the cluster's metrics over IPC
// (clusterMetrics, as a worker answering a metrics request would), and the primary prints its answer.
import cluster from 'node:cluster';
import { request } from 'undici';
import { clusterMetrics, joinCluster, serving } from '../../src/cli/cluster-worker';
import { startPrimaryServices } from '../../src/cli/primary-services';
import { echoPipeline } from '../../src/cli/echo-pipeline';
import { Origin } from '../../src/origin/origin';
import { InProcessRunnerPool } from '../../src/pipeline/in-process-runner-pool';

if (cluster.isPrimary) {
  const services = startPrimaryServices();
  let listening = 0;
  cluster.on('message', (worker, message: { type?: string; metrics?: unknown; error?: string }) => {
    if (message.type === 'rest-origin:listening' && ++listening === 2) {
      cluster.workers![1]!.send({ type: 'test:ask' });
    } else if (message.type === 'test:answer') {
      console.log(JSON.stringify(message));
      services.close();
      for (const w of Object.values(cluster.workers!)) w?.kill();
    }
  });
  cluster.fork();
  cluster.fork();
} else {
  joinCluster();
  const pool = new InProcessRunnerPool(2, echoPipeline, { runnerIdleTimeMs: 0 });
  const origin = new Origin(
    { http: { host: '127.0.0.1', port: 0 }, dataFormat: { format: 'json' } },
    { runners: pool },
  );
  const url = await origin.start();
  for (let i = 0; i < 2 * cluster.worker!.id; i++) {
    await (await request(url, { method: 'POST', body: '{"a":1}' })).body.text();
  }
  process.on('message', (message: { type?: string }) => {
    if (message.type !== 'test:ask') return;
    clusterMetrics(2000).then(
      (metrics) => process.send!({ type: 'test:answer', metrics }),
      (error: Error) => process.send!({ type: 'test:answer', error: error.message }),
    );
  });
  serving([origin], url);
}

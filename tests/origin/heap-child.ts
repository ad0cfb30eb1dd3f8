/**
 * An origin in a process of its own, for tests that need a small heap (`node --max-old-space-size=…`): it listens
 * on 127.0.0.1 with the config given as JSON in argv[2], prints its URL on one line, and serves with the echo
 * pipeline until its parent closes its standard input.
 */
import { InProcessRunnerPool, Origin, echoPipeline } from '../../src/index';

const config = JSON.parse(process.argv[2] ?? '{}') as { http?: Record<string, unknown> };
const http: Record<string, unknown> = { ...config.http, host: '127.0.0.1', port: 0 };
const pool = new InProcessRunnerPool(Number(http.maxConcurrentRequests ?? 10), echoPipeline, {
  runnerIdleTimeMs: 0,
});
const origin = new Origin({ dataFormat: { format: 'json' }, ...config, http }, { runners: pool });
void origin.start().then((url) => process.stdout.write(`${url}\n`));
process.stdin.resume();
process.stdin.on('end', () => {
  void origin.destroy().then(() => pool.close());
});

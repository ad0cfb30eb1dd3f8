import { InProcessRunnerPool, Origin, echoPipeline, type RunnerPool } from 'rest-service-origin';
import { send } from './origin-helpers';

/** The process warnings `make` emits, as `[message, { type, code }]`. */
function warningsOf(make: () => Origin): { origin: Origin; warnings: unknown[][] } {
  const warnings: unknown[][] = [];
  const spy = jest.spyOn(process, 'emitWarning').mockImplementation((...args: unknown[]) => {
    warnings.push(args);
  });
  try {
    return { origin: make(), warnings };
  } finally {
    spy.mockRestore();
  }
}

const config = (maxConcurrentRequests: number) => ({
  http: { host: '127.0.0.1', port: 0, maxConcurrentRequests },
  dataFormat: { format: 'json' },
});

describe('new Origin and the size of the runner pool', () => {
  const pools: InProcessRunnerPool[] = [];
  afterAll(async () => {
    for (const pool of pools) await pool.close();
  });
  function pool(size: number): InProcessRunnerPool {
    const made = new InProcessRunnerPool(size, echoPipeline, { runnerIdleTimeMs: 0 });
    pools.push(made);
    return made;
  }

  it('warns when the pool has fewer runners than maxConcurrentRequests, and still serves', async () => {
    const { origin, warnings } = warningsOf(() => new Origin(config(8), { runners: pool(2) }));
    expect(warnings).toEqual([
      [
        expect.stringContaining('2 runner(s), fewer than http.maxConcurrentRequests (8)'),
        { type: 'OriginWarning', code: 'REST_ORIGIN_RUNNER_POOL_SMALLER' },
      ],
    ]);
    const url = await origin.start();
    try {
      expect((await send(url, { body: '{"a":1}' })).status).toBe(200);
    } finally {
      await origin.destroy();
    }
  });

  it('does not warn when the pool is as large, or cannot say its size', async () => {
    const same = warningsOf(() => new Origin(config(4), { runners: pool(4) }));
    expect(same.warnings).toEqual([]);
    const sizeless = { run: () => Promise.resolve() } as unknown as RunnerPool;
    const unknown = warningsOf(() => new Origin(config(4), { runners: sizeless }));
    expect(unknown.warnings).toEqual([]);
  });
});

import { request } from 'undici';
import { MemoryRelease, SECOND_COLLECTION_DELAY_MS } from '../../src/origin/memory-release';
import { startOrigin } from './origin-helpers';

const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('MemoryRelease (decision 0091)', () => {
  beforeEach(() => jest.useFakeTimers({ doNotFake: ['setImmediate', 'nextTick', 'queueMicrotask'] }));
  afterEach(() => jest.useRealTimers());

  it('collects on the turn after the last large request left, and once more a little later', async () => {
    const collect = jest.fn();
    const release = new MemoryRelease(32, collect);
    expect(release.thresholdBytes).toBe(32_000_000);
    release.enter();
    release.enter();
    release.leave();
    await nextTurn();
    // One is still in flight: its live records would make a collection long.
    expect(collect).not.toHaveBeenCalled();
    release.leave();
    expect(collect).not.toHaveBeenCalled();
    await nextTurn();
    expect(collect).toHaveBeenCalledTimes(1);
    jest.advanceTimersByTime(SECOND_COLLECTION_DELAY_MS);
    expect(collect).toHaveBeenCalledTimes(2);
  });

  it('drops the second collection when a large body came meanwhile', async () => {
    const collect = jest.fn();
    const release = new MemoryRelease(1, collect);
    release.enter();
    release.leave();
    await nextTurn();
    expect(collect).toHaveBeenCalledTimes(1);
    release.enter();
    jest.advanceTimersByTime(SECOND_COLLECTION_DELAY_MS);
    expect(collect).toHaveBeenCalledTimes(1);
    release.leave();
    await nextTurn();
    expect(collect).toHaveBeenCalledTimes(2);
  });

  it('is off at 0: no body is large', () => {
    expect(new MemoryRelease(0).thresholdBytes).toBe(Number.POSITIVE_INFINITY);
  });
});

describe('an origin with http.releaseMemoryAfterMb', () => {
  // The collection itself is V8's; what the origin owns is asking for it at the right time (its effect on the
  // resident set is measured by `npm run bench -- --memory`).
  const body = (bytes: number): Buffer => Buffer.from('{"id":1,"name":"a record"}\n'.repeat(bytes / 27));

  async function askedAfter(releaseMemoryAfterMb: number, bytes: number): Promise<number> {
    const vm = jest.requireActual<typeof import('node:vm')>('node:vm');
    const measure = jest.spyOn(vm, 'measureMemory');
    const origin = await startOrigin({
      dataFormat: { format: 'json', json: { jsonContent: 'multipleObjects' } },
      http: { releaseMemoryAfterMb, maxHeapUsagePercent: 100 },
    });
    try {
      const answer = await request(origin.url, { method: 'POST', body: body(bytes) });
      expect(answer.statusCode).toBe(200);
      await answer.body.dump();
      await nextTurn();
      await nextTurn();
      return measure.mock.calls.length;
    } finally {
      measure.mockRestore();
      await origin.stop();
    }
  }

  it('asks V8 for a collection once a body over the threshold is answered', async () => {
    expect(await askedAfter(1, 2_700_000)).toBe(1);
  });

  it('does not for a body under it, nor when the release is off', async () => {
    expect(await askedAfter(4, 2_700_000)).toBe(0);
    expect(await askedAfter(0, 2_700_000)).toBe(0);
  });
});

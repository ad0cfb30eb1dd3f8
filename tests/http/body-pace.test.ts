import type { OriginError } from '../../src/errors/origin-error';
import { BodyPaceWatch, type PacedRead } from '../../src/http/body-pace';

/** A read as the watch sees it, whose bytes the test sets and whose expiry it records. */
function read(receivedBytes = 0): PacedRead & { receivedBytes: number; expired?: OriginError } {
  const paced: PacedRead & { receivedBytes: number; expired?: OriginError } = {
    startedAt: performance.now(),
    receivedBytes,
    expire: (error) => {
      paced.expired = error;
    },
  };
  return paced;
}

const until = async (check: () => boolean): Promise<void> => {
  while (!check()) await new Promise((resolve) => setTimeout(resolve, 5));
};

describe('BodyPaceWatch', () => {
  it('expires a read that fell behind with ORIGIN_HTTP_BODY_TIMEOUT naming its bytes and the limits', async () => {
    const watch = new BodyPaceWatch({ timeoutMs: 40, minBytesPerSecond: 500 });
    const slow = read(3);
    watch.watch(slow);
    await until(() => slow.expired !== undefined);
    expect(slow.expired).toMatchObject({ code: 'ORIGIN_HTTP_BODY_TIMEOUT', httpStatus: 408 });
    expect(slow.expired?.message).toMatch(
      /^The request body arrived too slowly: 3 bytes in \d+ ms, beyond bodyReadTimeoutMs 40 plus one second per minBodyBytesPerSecond 500 bytes received\.$/,
    );
    expect(watch.watching).toBe(0);
  });

  it('lets a read whose bytes earned it more time go on, and forgets a read that is unwatched', async () => {
    const watch = new BodyPaceWatch({ timeoutMs: 40, minBytesPerSecond: 500 });
    // 100,000 bytes at 500 B/s earn 200 s.
    const keepingUp = read(100_000);
    const behind = read(0);
    const done = read(0);
    watch.watch(keepingUp);
    watch.watch(behind);
    watch.watch(done);
    watch.unwatch(done);
    await until(() => behind.expired !== undefined);
    expect(keepingUp.expired).toBeUndefined();
    expect(done.expired).toBeUndefined();
    expect(watch.watching).toBe(1);
    watch.unwatch(keepingUp);
  });

  it('with minBytesPerSecond 0 bounds the whole body by timeoutMs, whatever it received', async () => {
    const watch = new BodyPaceWatch({ timeoutMs: 40, minBytesPerSecond: 0 });
    const big = read(10_000_000);
    watch.watch(big);
    await until(() => big.expired !== undefined);
    expect(big.expired?.message).toContain('minBodyBytesPerSecond 0');
  });
});

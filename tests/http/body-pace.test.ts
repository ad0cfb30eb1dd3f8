import type { OriginError } from '../../src/errors/origin-error';
import { BodyPaceWatch, PacedRead } from '../../src/http/body-pace';

/** A read as the watch sees it, whose bytes the test sets and whose expiry it records. */
class TestRead extends PacedRead {
  expired: OriginError | undefined;
  constructor(public receivedBytes: number) {
    super();
  }
  expire(error: OriginError): void {
    this.expired = error;
  }
}

function read(receivedBytes = 0): TestRead {
  return new TestRead(receivedBytes);
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

  it('keeps its list whole when reads leave from its head, middle and tail, and ignores a second watch or unwatch', async () => {
    const watch = new BodyPaceWatch({ timeoutMs: 40, minBytesPerSecond: 0 });
    const reads = [read(), read(), read(), read(), read()];
    for (const r of reads) watch.watch(r);
    watch.watch(reads[1]!);
    expect(watch.watching).toBe(5);
    // The list is newest first: reads[4] is its head, reads[0] its tail.
    for (const gone of [reads[4]!, reads[2]!, reads[0]!]) watch.unwatch(gone);
    watch.unwatch(reads[2]!);
    expect(watch.watching).toBe(2);
    await until(() => reads[1]!.expired !== undefined && reads[3]!.expired !== undefined);
    expect([reads[0], reads[2], reads[4]].map((r) => r!.expired)).toEqual([undefined, undefined, undefined]);
    expect(watch.watching).toBe(0);
  });

  it('never expires a read before timeoutMs has passed since it was watched', async () => {
    const watch = new BodyPaceWatch({ timeoutMs: 200, minBytesPerSecond: 0 });
    // A first read starts the clock; the second is watched later, between two ticks of the watch.
    const first = read();
    watch.watch(first);
    await new Promise((resolve) => setTimeout(resolve, 70));
    const second = read();
    const watchedAt = performance.now();
    watch.watch(second);
    await until(() => second.expired !== undefined);
    expect(performance.now() - watchedAt).toBeGreaterThanOrEqual(200);
    expect(first.expired).toBeDefined();
  });
});

import { Admission } from '../../src/origin/admission';

describe('Admission', () => {
  it('hands out free slots at once, then queues in FIFO order', async () => {
    const admission = new Admission({ slots: 1, queueSize: 2, queueTimeoutMs: 10_000 });
    const first = admission.tryAcquire();
    expect(first).toBeDefined();
    expect(admission.tryAcquire()).toBeUndefined();
    const order: string[] = [];
    const second = admission.acquire().then((release) => (order.push('second'), release));
    const third = admission.acquire().then((release) => (order.push('third'), release));
    expect(admission.waiting).toBe(2);
    first!();
    (await second)();
    (await third)();
    expect(order).toEqual(['second', 'third']);
    expect(admission.inUse).toBe(0);
  });

  it('refuses with ORIGIN_HTTP_OVERLOADED when the queue is full', async () => {
    const admission = new Admission({ slots: 1, queueSize: 0, queueTimeoutMs: 10_000 });
    admission.tryAcquire();
    await expect(admission.acquire()).rejects.toMatchObject({
      code: 'ORIGIN_HTTP_OVERLOADED',
      httpStatus: 503,
    });
  });

  it('gives a released slot back only once', () => {
    const admission = new Admission({ slots: 1, queueSize: 0, queueTimeoutMs: 10_000 });
    const release = admission.tryAcquire()!;
    release();
    release();
    expect(admission.inUse).toBe(0);
    expect(admission.tryAcquire()).toBeDefined();
    expect(admission.tryAcquire()).toBeUndefined();
  });
});

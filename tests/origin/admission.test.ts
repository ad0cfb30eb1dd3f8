import { Admission } from '../../src/origin/admission';
import { OriginError } from '../../src/errors/origin-error';

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

  it('tells a waiter once, after the release has returned, and refuses one at once when the queue is full', async () => {
    const admission = new Admission({ slots: 1, queueSize: 1, queueTimeoutMs: 10_000 });
    const held = admission.tryAcquire()!;
    const told: string[] = [];
    const waiter = {
      granted: (release: () => void) => {
        told.push('granted');
        release();
      },
      refused: (error: { code: string }) => told.push(error.code),
    };
    admission.wait(waiter);
    admission.wait(waiter);
    expect(told).toEqual(['ORIGIN_HTTP_OVERLOADED']);
    held();
    expect(told).toEqual(['ORIGIN_HTTP_OVERLOADED']);
    await Promise.resolve();
    expect(told).toEqual(['ORIGIN_HTTP_OVERLOADED', 'granted']);
    expect(admission.inUse).toBe(0);
    expect(admission.waiting).toBe(0);
  });

  it('refuses every waiter with the closing error and forgets their deadlines', async () => {
    const admission = new Admission({ slots: 1, queueSize: 5, queueTimeoutMs: 30 });
    admission.tryAcquire();
    const refused: string[] = [];
    for (let i = 0; i < 3; i++)
      admission.wait({ granted: () => refused.push('granted'), refused: (e) => refused.push(e.code) });
    admission.refuseWaiting(new OriginError('ORIGIN_HTTP_CLOSING'));
    expect(refused).toEqual(['ORIGIN_HTTP_CLOSING', 'ORIGIN_HTTP_CLOSING', 'ORIGIN_HTTP_CLOSING']);
    admission.wait({ granted: () => refused.push('granted'), refused: (e) => refused.push(e.code) });
    await new Promise((resolve) => setTimeout(resolve, 80));
    expect(refused.slice(3)).toEqual(['ORIGIN_HTTP_QUEUE_TIMEOUT']);
  });
});

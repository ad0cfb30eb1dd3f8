import { OriginError } from '../../src/errors/origin-error';
import type { ReleaseSlot } from '../../src/origin/admission';
import { FairAdmission } from '../../src/origin/fair-admission';

function fair(slots: number, perTenant: number, queueSize = 10, queueTimeoutMs = 10_000): FairAdmission {
  return new FairAdmission({ slots, queueSize, queueTimeoutMs, perTenant, key: 'applicationId' });
}

/** Queues a request of `tenant`; `log` records `<name> granted` or `<name> <code>` as it happens. */
function waitFor(
  admission: FairAdmission,
  tenant: string,
  name: string,
  log: string[],
): Promise<ReleaseSlot | undefined> {
  return new Promise((resolve) => {
    admission.wait(
      {
        granted: (release) => {
          log.push(`${name} granted`);
          resolve(release);
        },
        refused: (error: OriginError) => {
          log.push(`${name} ${error.code}`);
          resolve(undefined);
        },
      },
      tenant,
    );
  });
}

describe('FairAdmission', () => {
  it('keeps a tenant at its share while other tenants take the free slots', () => {
    const admission = fair(3, 2);
    expect(admission.tryAcquire('a')).toBeDefined();
    expect(admission.tryAcquire('a')).toBeDefined();
    expect(admission.tryAcquire('a')).toBeUndefined();
    expect(admission.tryAcquire('b')).toBeDefined();
    expect(admission.tryAcquire('c')).toBeUndefined();
    expect(admission.inUse).toBe(3);
    expect(admission.heldBy('a')).toBe(2);
  });

  it("gives a freed slot to the oldest waiter whose tenant is under its share, skipping a busy tenant's", async () => {
    const admission = fair(2, 1);
    const a = admission.tryAcquire('a')!;
    const b = admission.tryAcquire('b')!;
    const log: string[] = [];
    const a2 = waitFor(admission, 'a', 'a2', log);
    const c = waitFor(admission, 'c', 'c', log);
    b();
    // a still holds its one slot: a2, though older, may not take it; c does.
    (await c)!();
    expect(log).toEqual(['c granted']);
    a();
    (await a2)!();
    expect(log).toEqual(['c granted', 'a2 granted']);
    expect(admission.inUse).toBe(0);
    expect(admission.waiting).toBe(0);
  });

  it('refuses a request beyond its tenant queue share with ORIGIN_HTTP_TENANT_BUSY (429), at once', async () => {
    const admission = fair(2, 1);
    admission.tryAcquire('a');
    const log: string[] = [];
    void waitFor(admission, 'a', 'a2', log);
    await waitFor(admission, 'a', 'a3', log);
    expect(log).toEqual(['a3 ORIGIN_HTTP_TENANT_BUSY']);
    // Another tenant still finds a free slot.
    expect(admission.tryAcquire('b')).toBeDefined();
  });

  it('refuses with ORIGIN_HTTP_OVERLOADED when the whole queue is full', async () => {
    const admission = fair(1, 1, 1);
    admission.tryAcquire('a');
    const log: string[] = [];
    void waitFor(admission, 'b', 'b', log);
    await waitFor(admission, 'c', 'c', log);
    expect(log).toEqual(['c ORIGIN_HTTP_OVERLOADED']);
  });

  it('refuses a waiter whose wait runs out with ORIGIN_HTTP_QUEUE_TIMEOUT and forgets its place', async () => {
    const admission = fair(1, 1, 10, 30);
    const held = admission.tryAcquire('a')!;
    const log: string[] = [];
    await waitFor(admission, 'b', 'b', log);
    expect(log).toEqual(['b ORIGIN_HTTP_QUEUE_TIMEOUT']);
    expect(admission.waiting).toBe(0);
    held();
    expect(admission.inUse).toBe(0);
    // b's queue share is free again.
    expect(admission.tryAcquire('b')).toBeDefined();
  });

  it('gives a slot back once however often release is called, and refuses every waiter on refuseWaiting', async () => {
    const admission = fair(1, 1);
    const release = admission.tryAcquire('a')!;
    const log: string[] = [];
    const waiting = waitFor(admission, 'b', 'b', log);
    admission.refuseWaiting(new OriginError('ORIGIN_HTTP_CLOSING'));
    await waiting;
    expect(log).toEqual(['b ORIGIN_HTTP_CLOSING']);
    release();
    release();
    expect(admission.inUse).toBe(0);
    expect(admission.heldBy('a')).toBe(0);
  });
});

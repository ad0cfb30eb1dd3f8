import { OriginError } from '../errors/origin-error';
import { Admission, type ReleaseSlot, type RequestAdmission, type SlotWaiter } from './admission';
import type { HttpConfig } from './config';
import type { RateLimitKey } from './rate-limit-options';

/** One queued request: who waits, for which tenant, and when (`performance.now()`) its wait runs out. */
interface Queued {
  readonly waiter: SlotWaiter;
  readonly tenant: string;
  readonly deadline: number;
}

/**
 * Admission control with fairness between tenants (`http.maxConcurrentRequestsPerKey`, decision 0106): as
 * {@link Admission}, `slots` requests hold a slot and up to `queueSize` wait for at most `queueTimeoutMs`; besides,
 * one tenant holds at most `perTenant` slots, and has at most `perTenant` requests waiting (its queue share). A
 * slot that frees goes to the oldest waiter whose tenant is under its limit, so a busy tenant's queued requests
 * never keep another tenant's request from a free slot. A request beyond its tenant's queue share is refused at
 * once with `ORIGIN_HTTP_TENANT_BUSY` (429): the tenant, not the origin, is over its share.
 *
 * The queue is scanned on each release: it holds at most `queueSize` entries. Origins without the option use
 * {@link Admission}, whose uncontended path this class does not touch.
 */
export class FairAdmission implements RequestAdmission {
  readonly #slots: number;
  readonly #queueSize: number;
  readonly #queueTimeoutMs: number;
  readonly #perTenant: number;
  readonly #key: RateLimitKey;
  // Oldest first; every waiter waits as long, so the queue is also in deadline order.
  readonly #queue: Queued[] = [];
  readonly #held = new Map<string, number>();
  readonly #queued = new Map<string, number>();
  #inUse = 0;
  #timer: NodeJS.Timeout | undefined;

  constructor(options: {
    slots: number;
    queueSize: number;
    queueTimeoutMs: number;
    perTenant: number;
    key: RateLimitKey;
  }) {
    this.#slots = options.slots;
    this.#queueSize = options.queueSize;
    this.#queueTimeoutMs = options.queueTimeoutMs;
    this.#perTenant = options.perTenant;
    this.#key = options.key;
  }

  get inUse(): number {
    return this.#inUse;
  }

  get waiting(): number {
    return this.#queue.length;
  }

  /**
   * Every slot is held and the queue is full (readiness, 0081). A tenant's own share may be full while this is
   * false: that tenant is refused with 429, but the origin takes other tenants' requests.
   */
  get full(): boolean {
    return this.#inUse >= this.#slots && this.#queue.length >= this.#queueSize;
  }

  /** Slots `tenant` holds right now. */
  heldBy(tenant: string): number {
    return this.#held.get(tenant) ?? 0;
  }

  /**
   * A free slot, unless every slot is held or `tenant` holds its share. After every release the queue's eligible
   * waiters are served first (see `#pump`), so a free slot here is one no waiter may take: nobody is overtaken.
   */
  tryAcquire(tenant = ''): ReleaseSlot | undefined {
    if (this.#inUse >= this.#slots || this.heldBy(tenant) >= this.#perTenant) return undefined;
    return this.#take(tenant);
  }

  wait(waiter: SlotWaiter, tenant = ''): void {
    if ((this.#queued.get(tenant) ?? 0) >= this.#perTenant) {
      waiter.refused(new OriginError('ORIGIN_HTTP_TENANT_BUSY', { key: this.#key, limit: this.#perTenant }));
      return;
    }
    if (this.#queue.length >= this.#queueSize) {
      waiter.refused(
        new OriginError('ORIGIN_HTTP_OVERLOADED', { slots: this.#slots, queueSize: this.#queueSize }),
      );
      return;
    }
    this.#queue.push({ waiter, tenant, deadline: performance.now() + this.#queueTimeoutMs });
    add(this.#queued, tenant, 1);
    this.#timer ??= this.#arm(this.#queueTimeoutMs);
  }

  refuseWaiting(error: OriginError): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#queued.clear();
    for (const { waiter } of this.#queue.splice(0)) waiter.refused(error);
  }

  #take(tenant: string): ReleaseSlot {
    this.#inUse++;
    add(this.#held, tenant, 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#inUse--;
      add(this.#held, tenant, -1);
      this.#pump();
    };
  }

  /** Gives free slots to the oldest waiters whose tenants are under their share. */
  #pump(): void {
    for (let i = 0; i < this.#queue.length && this.#inUse < this.#slots;) {
      const next = this.#queue[i]!;
      if (this.heldBy(next.tenant) >= this.#perTenant) {
        i++;
        continue;
      }
      this.#queue.splice(i, 1);
      add(this.#queued, next.tenant, -1);
      const release = this.#take(next.tenant);
      // Told from a microtask, as in Admission: the releasing request is still finishing its answer.
      queueMicrotask(() => next.waiter.granted(release));
    }
  }

  #expire(): void {
    this.#timer = undefined;
    const now = performance.now();
    while (this.#queue.length > 0 && this.#queue[0]!.deadline <= now) {
      const expired = this.#queue.shift()!;
      add(this.#queued, expired.tenant, -1);
      expired.waiter.refused(
        new OriginError('ORIGIN_HTTP_QUEUE_TIMEOUT', { timeoutMs: this.#queueTimeoutMs }),
      );
    }
    const next = this.#queue[0];
    if (next !== undefined) this.#timer = this.#arm(Math.ceil(next.deadline - now));
  }

  // Unreferenced, as in Admission: a waiting request has a socket that keeps the process alive.
  #arm(ms: number): NodeJS.Timeout {
    return setTimeout(() => this.#expire(), ms).unref();
  }
}

/** Adds `delta` to a tenant's count, forgetting the tenant at zero so the map holds only active tenants. */
function add(counts: Map<string, number>, tenant: string, delta: number): void {
  const count = (counts.get(tenant) ?? 0) + delta;
  if (count > 0) counts.set(tenant, count);
  else counts.delete(tenant);
}

/** The admission control of an origin's `http` options: fair between tenants when maxConcurrentRequestsPerKey is set. */
export function admissionFor(http: HttpConfig): RequestAdmission {
  const options = {
    slots: http.maxConcurrentRequests,
    queueSize: http.queueSize,
    queueTimeoutMs: http.queueTimeoutMs,
  };
  const perKey = http.maxConcurrentRequestsPerKey;
  if (perKey === null) return new Admission(options);
  return new FairAdmission({ ...options, perTenant: perKey.limit, key: perKey.key });
}

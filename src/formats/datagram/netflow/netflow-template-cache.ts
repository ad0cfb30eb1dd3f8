/** One field of a NetFlow v9 template: its type id, its length in bytes, and whether it is an options scope field. */
export interface NetflowTemplateField {
  readonly type: number;
  readonly length: number;
  readonly scope: boolean;
}

/** A NetFlow v9 template or options template, as its template flowset defined it. */
export interface NetflowTemplate {
  readonly id: number;
  readonly kind: 'FLOWSET' | 'OPTIONS';
  readonly fields: readonly NetflowTemplateField[];
  /** Sum of the field lengths: the size of one data record. Always > 0. */
  readonly recordLength: number;
}

interface Entry {
  readonly template: NetflowTemplate;
  lastUsedMs: number;
}

/** The key under which the cache lives in `ParseSource.originState`. */
export const TEMPLATE_CACHE_STATE_KEY = 'datagram.netflow.v9.templates';

/**
 * The NetFlow v9 template cache of one origin: templates keyed by exporter, source ID and template ID, kept across
 * requests. A `Map` in insertion order serves as the LRU list: every use moves an entry to the end.
 *
 * `maxTemplates` < 0 means unlimited, else the least recently used templates are evicted past it; `timeoutMs` < 0
 * means templates never expire, else a template idle (neither defined nor used) for longer is evicted. Limits are
 * updated on each {@link NetflowTemplateCache.configure}, so a reconfigured origin applies its new limits.
 */
export class NetflowTemplateCache {
  readonly #entries = new Map<string, Entry>();
  #maxTemplates = -1;
  #timeoutMs = -1;

  /** Number of templates held. */
  get size(): number {
    return this.#entries.size;
  }

  configure(maxTemplates: number, timeoutMs: number): void {
    this.#maxTemplates = maxTemplates;
    this.#timeoutMs = timeoutMs;
  }

  /** Stores (or replaces) a template defined at `nowMs`, evicting past the count limit. */
  put(key: string, template: NetflowTemplate, nowMs: number): void {
    this.#entries.delete(key);
    this.#evictExpired(nowMs);
    if (this.#maxTemplates === 0) return;
    this.#entries.set(key, { template, lastUsedMs: nowMs });
    if (this.#maxTemplates > 0) {
      for (const oldest of this.#entries.keys()) {
        if (this.#entries.size <= this.#maxTemplates) break;
        this.#entries.delete(oldest);
      }
    }
  }

  /** The template under `key` when it is held and not expired; a hit counts as a use at `nowMs`. */
  get(key: string, nowMs: number): NetflowTemplate | undefined {
    const entry = this.#entries.get(key);
    if (!entry) return undefined;
    this.#entries.delete(key);
    if (this.#timeoutMs >= 0 && nowMs - entry.lastUsedMs > this.#timeoutMs) return undefined;
    entry.lastUsedMs = nowMs;
    this.#entries.set(key, entry);
    return entry.template;
  }

  #evictExpired(nowMs: number): void {
    if (this.#timeoutMs < 0) return;
    // Entries are in order of last use, so the expired ones are a prefix.
    for (const [key, entry] of this.#entries) {
      if (nowMs - entry.lastUsedMs <= this.#timeoutMs) break;
      this.#entries.delete(key);
    }
  }
}

/** The origin's template cache in `originState`, created on first use. */
export function templateCacheOf(originState: Map<string, unknown>): NetflowTemplateCache {
  const existing = originState.get(TEMPLATE_CACHE_STATE_KEY);
  if (existing instanceof NetflowTemplateCache) return existing;
  const cache = new NetflowTemplateCache();
  originState.set(TEMPLATE_CACHE_STATE_KEY, cache);
  return cache;
}

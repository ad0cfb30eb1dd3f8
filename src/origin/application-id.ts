import { timingSafeEqual } from 'node:crypto';

/** The request header that carries the application ID (spec §4.2, §5). */
export const APPLICATION_ID_HEADER = 'x-engine-application-id';
/** The query parameter that carries the application ID when `http.applicationIdInUrl` is on. */
export const APPLICATION_ID_QUERY_PARAMETER = 'engineApplicationId';

/**
 * The application ID a request carries: the `X-ENGINE-APPLICATION-ID` header when present (it wins even when
 * wrong, as in the reference engine), else, only when `allowInUrl`, the first `engineApplicationId` query
 * parameter (percent-decoded). `undefined` when the request carries none.
 */
export function applicationIdOf(
  headerValue: string | string[] | undefined,
  queryString: string,
  allowInUrl: boolean,
): string | undefined {
  if (headerValue !== undefined) return Array.isArray(headerValue) ? headerValue[0] : headerValue;
  if (!allowInUrl || queryString === '') return undefined;
  return new URLSearchParams(queryString).get(APPLICATION_ID_QUERY_PARAMETER) ?? undefined;
}

/**
 * A set of application IDs checked in constant time: the time taken does not depend on how much of a candidate
 * matches a configured ID, nor on which ID matched, so the IDs cannot be guessed by timing.
 */
export class ApplicationIdList {
  readonly #ids: readonly Buffer[];
  readonly #width: number;

  constructor(ids: readonly string[]) {
    this.#ids = ids.map((id) => Buffer.from(id, 'utf8'));
    this.#width = Math.max(1, ...this.#ids.map((id) => id.length));
  }

  get size(): number {
    return this.#ids.length;
  }

  /** True when `candidate` equals one of the IDs exactly (case-sensitive, no trimming). */
  includes(candidate: string): boolean {
    const probe = Buffer.alloc(this.#width + 1);
    const written = Buffer.from(candidate, 'utf8');
    written.copy(probe, 0, 0, Math.min(written.length, probe.length));
    let found = false;
    for (const id of this.#ids) {
      const padded = Buffer.alloc(this.#width + 1);
      id.copy(padded);
      // Compare every ID in full, whatever matched before, and the lengths as well as the bytes.
      const same = timingSafeEqual(padded, probe) && id.length === written.length;
      found = found || same;
    }
    return found;
  }
}

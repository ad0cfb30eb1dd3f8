import type { GatewayUser } from './gateway-authenticator';

/**
 * Answers "may user U read pipeline P" for the gateway (spec §5): a secure API request needs it besides a role,
 * and a public API request needs it when the caller is known. May answer at once or later (a host may ask a
 * directory); a rejection is answered 503 like an authenticator's failure.
 */
export interface GatewayAuthorizer {
  /** True when `user` may read (and so call) the pipeline named `pipeline`. */
  mayRead(user: GatewayUser, pipeline: string): boolean | Promise<boolean>;
}

/** Stands for every user, or every pipeline, in an {@link InMemoryAcl}. */
export const ANY = '*';

/**
 * The authorizer that ships: a map from pipeline name to the users (`name`) and roles (`@role`) that may read it,
 * `*` for any user; the pipeline `*` applies to every pipeline. Plain data, given once; the host builds a new one
 * to change it.
 *
 * @example new InMemoryAcl({ orders: ['alice', '@operators'], '*': ['admin-bot'] })
 */
export class InMemoryAcl implements GatewayAuthorizer {
  readonly #readers: ReadonlyMap<string, ReadonlySet<string>>;

  constructor(readers: Readonly<Record<string, readonly string[]>>) {
    this.#readers = new Map(Object.entries(readers).map(([pipeline, who]) => [pipeline, new Set(who)]));
  }

  /** True when the ACL grants `pipeline` (or `*`) to `*`, to the user's name, or to one of its `@roles`. */
  mayRead(user: GatewayUser, pipeline: string): boolean {
    return this.#grants(this.#readers.get(pipeline), user) || this.#grants(this.#readers.get(ANY), user);
  }

  #grants(readers: ReadonlySet<string> | undefined, user: GatewayUser): boolean {
    if (readers === undefined) return false;
    if (readers.has(ANY) || readers.has(user.name)) return true;
    return user.roles.some((role) => readers.has(`@${role}`));
  }
}

/** The default of a gateway without an authorizer: every user may read every pipeline (roles still apply). */
export const EVERYONE_READS: GatewayAuthorizer = new InMemoryAcl({ [ANY]: [ANY] });

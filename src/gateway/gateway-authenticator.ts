import type { AuthenticationRequest } from '../auth/authenticator';

/** A user the gateway's authenticator recognised, with the roles it holds (spec §5). */
export interface GatewayUser {
  readonly name: string;
  /** Role names as the authenticator knows them (a users file's roles, LDAP groups mapped to roles). */
  readonly roles: readonly string[];
}

/** The user of an authenticated request. */
export interface GatewayAuthenticated {
  readonly ok: true;
  readonly user: GatewayUser;
}

/** A request without credentials (`missing`) or with credentials that do not authenticate (`invalid`). */
export interface GatewayRejected {
  readonly ok: false;
  readonly reason: 'missing' | 'invalid';
  /** The `WWW-Authenticate` header of the 401 answer, e.g. `Basic realm="gateway", charset="UTF-8"`. */
  readonly challenge: string;
}

export type GatewayAuthentication = GatewayAuthenticated | GatewayRejected;

/**
 * Decides who sent a request to the gateway's secure API (`/rest/v1/gateway/…`) when the service requires
 * gateway authentication; then the origin's own SPNEGO and basic options are ignored (spec §5). Two ship: a file
 * realm and LDAP. A host may supply its own.
 *
 * `authenticate` resolves with a {@link GatewayRejected} for missing or wrong credentials and never rejects for
 * them; a rejection means the authenticator itself failed (a directory that cannot be reached), answered 500 or
 * 503 by the gateway. Passwords never appear in what it resolves with, throws or logs.
 */
export interface GatewayAuthenticator {
  /** A short name for logs and `describe()`: `file`, `ldap`, or the host's own. */
  readonly kind: string;
  authenticate(request: AuthenticationRequest): Promise<GatewayAuthentication>;
  /** Gives back connections or files the authenticator holds; called by `Gateway.close()`. Optional. */
  close?(): Promise<void>;
}

import type { IncomingHttpHeaders } from 'node:http';
import type { OriginError } from '../errors/origin-error';

/**
 * The authentication methods of spec §5, in precedence order: the gateway authenticates the user itself
 * (`gateway`), else Kerberos with SPNEGO (`spnego`), else TLS with basic authentication (`basic`), else none.
 * Mutual TLS is not among them: it happens in the TLS handshake, before any request, and combines with each.
 */
export type AuthenticationMethod = 'gateway' | 'spnego' | 'basic' | 'none';

/** What an authenticator reads of a request: its headers, as Node parsed them (lower-cased names). */
export interface AuthenticationRequest {
  readonly headers: IncomingHttpHeaders;
}

/** A request the authenticator let through, and who sent it. */
export interface Authenticated {
  readonly ok: true;
  /**
   * The record header attributes that name the caller ({@link IDENTITY_ATTRIBUTES}); frozen. They are added to
   * every record of the request after its headers, and no request header can forge them.
   */
  readonly identity: Readonly<Record<string, string>>;
  /**
   * Headers for the answer, whatever it is (SPNEGO's mutual-authentication token in `WWW-Authenticate`);
   * absent when there are none.
   */
  readonly replyHeaders?: Readonly<Record<string, string>>;
}

/** A request the authenticator refused: answered with `error`'s status and envelope, and `challenge`. */
export interface Rejected {
  readonly ok: false;
  /** An `ORIGIN_AUTH_*` error: 401 when credentials are missing or wrong, 403 when they are not accepted. */
  readonly error: OriginError;
  /** The `WWW-Authenticate` header of the answer (`Basic realm="…", charset="UTF-8"`, `Negotiate`). */
  readonly challenge: string;
}

export type AuthenticationOutcome = Authenticated | Rejected;

/**
 * Decides from a request whether it is authenticated, and as whom. One per origin, chosen at construction from
 * the config by {@link authenticationMethodOf}; the origin has none when no method applies, so the common
 * request pays nothing for authentication.
 *
 * `authenticate` may answer at once (basic) or later (SPNEGO asks GSSAPI on a worker thread). It never throws
 * or rejects for bad credentials: those are a {@link Rejected} outcome. A throw or rejection means the
 * authenticator itself failed, and the request is answered 500.
 */
export interface Authenticator {
  readonly method: Exclude<AuthenticationMethod, 'none'>;
  authenticate(request: AuthenticationRequest): AuthenticationOutcome | Promise<AuthenticationOutcome>;
  /**
   * Called by `start()` before the origin listens: loads what the method needs and fails the start when it
   * cannot work (a missing addon, an unusable keytab), rather than failing every request. Optional.
   */
  prepare?(): Promise<void>;
  /** Called when the origin stops: gives back what `prepare` took (the process keytab). Optional. */
  release?(): void;
}

import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { OriginError } from '../errors/origin-error';
import type { AuthenticationOutcome, AuthenticationRequest, Authenticator, Rejected } from './authenticator';
import { identityOf } from './identity-attributes';

/** One configured user: a name and a password, both non-empty. */
export interface BasicUser {
  readonly user: string;
  readonly password: string;
}

const SCHEME = /^Basic[ \t]+/i;

/**
 * HTTP Basic authentication (RFC 7617) against the configured users (`tls.basicAuthenticationUsers`).
 *
 * The passwords are not kept: at construction each user becomes a salted SHA-256 digest of its name and
 * password together, under one random salt per origin. A request's credentials are digested the same way and
 * compared with every user's digest by `crypto.timingSafeEqual` (equal-length digests), all of them every
 * time, so the time taken says nothing about which user, or how much of a name or password, matched. A wrong
 * name and a wrong password get the same answer: 401 `ORIGIN_AUTH_CREDENTIALS_INVALID` (no credentials at all:
 * `ORIGIN_AUTH_CREDENTIALS_MISSING`), with `WWW-Authenticate: Basic realm="<realm>", charset="UTF-8"`.
 *
 * The decoded credentials live only in the request's own call; they are never put in an error, a message or an
 * attribute. The identity is `authenticationMethod` = `basic` and `authenticatedUser` = the user name.
 */
export class BasicAuthenticator implements Authenticator {
  readonly method = 'basic' as const;
  readonly #salt = randomBytes(16);
  readonly #digests: readonly Buffer[];
  readonly #identities: readonly Readonly<Record<string, string>>[];
  readonly #missing: Rejected;
  readonly #invalid: Rejected;

  /** @param realm - the realm of the challenge (the stage name, `general.name`). */
  constructor(users: readonly BasicUser[], realm: string) {
    this.#digests = users.map(({ user, password }) => this.#digest(user, password));
    this.#identities = users.map(({ user }) => identityOf('basic', user));
    const challenge = `Basic realm="${quoted(realm)}", charset="UTF-8"`;
    this.#missing = {
      ok: false,
      error: new OriginError('ORIGIN_AUTH_CREDENTIALS_MISSING', { scheme: 'Basic' }),
      challenge,
    };
    this.#invalid = {
      ok: false,
      error: new OriginError('ORIGIN_AUTH_CREDENTIALS_INVALID', { scheme: 'Basic' }),
      challenge,
    };
  }

  authenticate(request: AuthenticationRequest): AuthenticationOutcome {
    const header = request.headers.authorization;
    if (header === undefined || !SCHEME.test(header)) return this.#missing;
    const decoded = Buffer.from(header.replace(SCHEME, '').trim(), 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon < 0) return this.#invalid;
    const candidate = this.#digest(decoded.slice(0, colon), decoded.slice(colon + 1));
    let matched = -1;
    for (let i = 0; i < this.#digests.length; i++) {
      // Every digest is compared, whatever matched before: no early exit.
      const same = timingSafeEqual(this.#digests[i]!, candidate);
      matched = same ? i : matched;
    }
    const identity = this.#identities[matched];
    return identity === undefined ? this.#invalid : { ok: true, identity };
  }

  /** SHA-256 of salt, the name's byte length, the name and the password: no two pairs share the input. */
  #digest(user: string, password: string): Buffer {
    const name = Buffer.from(user, 'utf8');
    const length = Buffer.alloc(4);
    length.writeUInt32BE(name.length);
    return createHash('sha256')
      .update(this.#salt)
      .update(length)
      .update(name)
      .update(password, 'utf8')
      .digest();
  }
}

/**
 * The realm as a quoted-string's content (RFC 9110 §5.6.4): backslash and double quote escaped, and what a header
 * cannot carry (control characters, characters beyond Latin-1, which Node refuses to send) as `?`.
 */
function quoted(value: string): string {
  return value.replace(/[^\t\x20-\x7e\x80-\xff]/g, '?').replace(/[\\"]/g, (c) => `\\${c}`);
}

import { createHash, timingSafeEqual } from 'node:crypto';
import { OriginError } from '../errors/origin-error';
import type { AuthenticationOutcome, AuthenticationRequest, Authenticator } from './authenticator';
import { identityOf } from './identity-attributes';

/** The header carrying the per-registration secret from the gateway to an origin in another process. */
export const GATEWAY_SECRET_HEADER = 'x-gateway-secret';
/** The header carrying the user the gateway authenticated (absent for an anonymous public API caller). */
export const GATEWAY_USER_HEADER = 'x-gateway-user';

/**
 * The authenticator of an origin in another process than its gateway (decision 0067): every request must carry
 * the registration's secret in {@link GATEWAY_SECRET_HEADER} (compared in constant time), else 403
 * `ORIGIN_GATEWAY_SECRET_INVALID`; the caller is then who {@link GATEWAY_USER_HEADER} names, as the gateway
 * authenticated them. Neither header ever becomes a record attribute.
 */
export class ForwardedAuthenticator implements Authenticator {
  readonly method = 'gateway' as const;
  readonly #secretDigest: Buffer;

  constructor(secret: string) {
    this.#secretDigest = digest(secret);
  }

  authenticate(request: AuthenticationRequest): AuthenticationOutcome {
    const sent = request.headers[GATEWAY_SECRET_HEADER];
    if (typeof sent !== 'string' || !timingSafeEqual(digest(sent), this.#secretDigest)) {
      return { ok: false, error: new OriginError('ORIGIN_GATEWAY_SECRET_INVALID'), challenge: 'Gateway' };
    }
    const user = request.headers[GATEWAY_USER_HEADER];
    return { ok: true, identity: typeof user === 'string' && user !== '' ? identityOf('gateway', user) : {} };
  }
}

// Digests of equal length make the comparison's time independent of the secret's length.
function digest(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}

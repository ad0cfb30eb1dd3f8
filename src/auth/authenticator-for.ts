import { resolve } from 'node:path';
import type { Authenticator } from './authenticator';
import { authenticationMethodOf, type AuthenticationOptions } from './authentication-method';
import { BasicAuthenticator, type BasicUser } from './basic-authenticator';
import { SpnegoAuthenticator } from './spnego-authenticator';

/** The config an origin's authenticator is made from (a structural part of `OriginConfig`). */
export interface AuthenticatorConfig extends AuthenticationOptions {
  readonly general: { readonly name: string; readonly resourcesDirectory: string };
  readonly http: AuthenticationOptions['http'] & {
    readonly kerberosRealm: string;
    readonly httpSpnegoPrincipal: string;
    readonly keytabFile: string;
  };
  readonly tls: AuthenticationOptions['tls'] & { readonly basicAuthenticationUsers: readonly BasicUser[] };
}

/**
 * The authenticator of an origin, by the method {@link authenticationMethodOf} picks: basic, SPNEGO, or none
 * (`undefined`) when no method applies or the gateway authenticates (it does so before it forwards a request).
 * A relative `keytabFile` resolves against `general.resourcesDirectory`.
 */
export function authenticatorFor(config: AuthenticatorConfig): Authenticator | undefined {
  switch (authenticationMethodOf(config)) {
    case 'basic':
      return new BasicAuthenticator(config.tls.basicAuthenticationUsers, config.general.name);
    case 'spnego':
      return new SpnegoAuthenticator({
        realm: config.http.kerberosRealm,
        principal: config.http.httpSpnegoPrincipal,
        keytabFile: resolve(config.general.resourcesDirectory, config.http.keytabFile),
      });
    default:
      return undefined;
  }
}

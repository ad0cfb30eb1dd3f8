import type { AuthenticationMethod } from './authenticator';

/** The options of the config that decide the authentication method (a structural part of `OriginConfig`). */
export interface AuthenticationOptions {
  readonly http: {
    readonly useApiGateway: boolean;
    readonly requireGatewayAuthentication: boolean;
    readonly useKerberosWithSpnego: boolean;
  };
  readonly tls: { readonly useTls: boolean; readonly basicAuthenticationUsers: readonly unknown[] };
}

/**
 * The authentication method in force, by the precedence of spec §5: gateway authentication (gateway mode with
 * Require Gateway Authentication) > Kerberos with SPNEGO > TLS with basic authentication (TLS on and at least
 * one user) > none. Application IDs are checked after it in every mode, and mutual TLS applies in the handshake
 * whatever the method.
 */
export function authenticationMethodOf(options: AuthenticationOptions): AuthenticationMethod {
  const { http, tls } = options;
  if (http.useApiGateway && http.requireGatewayAuthentication) return 'gateway';
  if (http.useKerberosWithSpnego) return 'spnego';
  if (tls.useTls && tls.basicAuthenticationUsers.length > 0) return 'basic';
  return 'none';
}

/**
 * The authentication options that are set but have no effect under the precedence, each as a sentence for the
 * start-up warning (no secret in it). Empty when every option set is in force.
 */
export function ignoredAuthenticationOptions(options: AuthenticationOptions): string[] {
  const method = authenticationMethodOf(options);
  const ignored: string[] = [];
  const basicUsers = options.tls.basicAuthenticationUsers.length > 0;
  if (method === 'gateway' && options.http.useKerberosWithSpnego) {
    ignored.push(
      'http.useKerberosWithSpnego is ignored: the gateway authenticates the user of every request',
    );
  }
  if (basicUsers && method === 'gateway') {
    ignored.push(
      'tls.basicAuthenticationUsers are ignored: the gateway authenticates the user of every request',
    );
  } else if (basicUsers && method === 'spnego') {
    ignored.push('tls.basicAuthenticationUsers are ignored: Kerberos with SPNEGO is on');
  } else if (basicUsers && !options.tls.useTls) {
    ignored.push('tls.basicAuthenticationUsers are not used: basic authentication needs tls.useTls');
  }
  return ignored;
}

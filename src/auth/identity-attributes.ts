/**
 * The record header attributes that name the authenticated caller. A request header of either name (in any
 * case) never becomes an attribute, whether or not authentication is on, so a pipeline can trust them wherever
 * they appear (docs/security.md, docs/header-attributes.md).
 */
export const IDENTITY_ATTRIBUTES = {
  /** How the caller was authenticated: `basic`, `spnego` or `gateway` (the API gateway's authenticator). */
  method: 'authenticationMethod',
  /** The basic-authentication user name, or the Kerberos principal (`alice@EXAMPLE.COM`). */
  user: 'authenticatedUser',
} as const;

/** The identity attributes of a caller authenticated by `method` as `user`, frozen. */
export function identityOf(
  method: 'basic' | 'spnego' | 'gateway',
  user: string,
): Readonly<Record<string, string>> {
  return Object.freeze({ [IDENTITY_ATTRIBUTES.method]: method, [IDENTITY_ATTRIBUTES.user]: user });
}

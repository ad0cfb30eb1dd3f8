const PRINCIPAL = /^HTTP\/([^/@\s]+)@([^@\s]+)$/;

/**
 * Why `principal` cannot be the SPNEGO service principal, or `undefined` when it can: it must read
 * `HTTP/<fully qualified host name>@<REALM>` with the realm `realm`.
 */
export function spnegoPrincipalProblem(principal: string, realm: string): string | undefined {
  const match = PRINCIPAL.exec(principal);
  if (match === null) return `'${principal}' is not of the form HTTP/<fully qualified host name>@<REALM>`;
  if (match[2] !== realm) return `the realm of '${principal}' is not kerberosRealm '${realm}'`;
  return undefined;
}

/**
 * The GSSAPI host-based service name of a service principal checked by {@link spnegoPrincipalProblem}:
 * `HTTP/www.example.com@EXAMPLE.COM` → `HTTP@www.example.com`.
 */
export function hostBasedServiceOf(principal: string): string {
  return `HTTP@${PRINCIPAL.exec(principal)?.[1] ?? ''}`;
}

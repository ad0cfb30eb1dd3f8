/**
 * The role names that open the gateway's secure API (spec §5: read permission plus one of these roles). A host
 * picks a profile or gives its own names (`secureApiRoles`). See docs/gateway.md, "Roles and permissions".
 */
export const ROLE_PROFILES = {
  /** A standalone engine: `admin` or `manager`. */
  standalone: ['admin', 'manager'],
  /** An engine registered with a central management platform: its Engine Administrator or Engine Manager. */
  managed: ['Engine Administrator', 'Engine Manager'],
  /** The same under SAML, where the platform's Organization Administrator also may call. */
  managedSaml: ['Engine Administrator', 'Engine Manager', 'Organization Administrator'],
} as const satisfies Record<string, readonly string[]>;

/** The name of a profile of {@link ROLE_PROFILES}: `standalone`, `managed` or `managedSaml`. */
export type RoleProfile = keyof typeof ROLE_PROFILES;

/** True when `roles` holds one of `required`. Names compare exactly (they are the authenticator's names). */
export function holdsOneOf(roles: readonly string[], required: readonly string[]): boolean {
  return roles.some((role) => required.includes(role));
}

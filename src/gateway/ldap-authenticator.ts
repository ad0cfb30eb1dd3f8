import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { resolve } from 'node:path';
import type { ConnectionOptions } from 'node:tls';
import { Client, InvalidCredentialsError, InvalidDNSyntaxError, escapeFilter } from 'ldapts';
import type { AuthenticationRequest } from '../auth/authenticator';
import { ConfigError, type ConfigProblem } from '../errors/config-error';
import { OriginError, isOriginError } from '../errors/origin-error';
import type {
  GatewayAuthentication,
  GatewayAuthenticator,
  GatewayRejected,
  GatewayUser,
} from './gateway-authenticator';

/** Finding the user's DN with a search under a service account, then binding as that DN. */
export interface LdapUserSearch {
  /** Where users are searched (subtree), e.g. `ou=people,dc=example,dc=org`. */
  readonly baseDn: string;
  /** The filter; `{user}` is replaced by the escaped user name (RFC 4515). Default `(uid={user})`. */
  readonly filter?: string;
  /** The service account that searches. */
  readonly bindDn: string;
  readonly bindPassword: string;
}

/** Groups whose names become the user's roles. */
export interface LdapGroupSearch {
  /** Where groups are searched (subtree), e.g. `ou=groups,dc=example,dc=org`. */
  readonly baseDn: string;
  /**
   * The filter; `{dn}` is replaced by the user's escaped DN and `{user}` by the escaped user name. Default
   * `(|(member={dn})(uniqueMember={dn})(memberUid={user}))`: groupOfNames, groupOfUniqueNames and posixGroup.
   */
  readonly filter?: string;
  /** The attribute naming a group; default `cn`. */
  readonly nameAttribute?: string;
  /**
   * Group name → the roles it gives. Without it, every group's name is a role; with it, only mapped groups give
   * roles (others are ignored).
   */
  readonly roles?: Readonly<Record<string, readonly string[]>>;
}

export interface LdapAuthenticatorOptions {
  /** `ldap://host:port` or `ldaps://host:port`. */
  readonly url: string;
  /** Upgrade an `ldap://` connection with StartTLS (RFC 4511 §4.14) before any bind. */
  readonly startTls?: boolean;
  /** TLS options for `ldaps://` and StartTLS (`ca`, `servername`, …); the certificate is verified by default. */
  readonly tls?: ConnectionOptions;
  /** Bind as this DN; `{user}` is replaced by the escaped user name (RFC 4514), e.g. `uid={user},ou=people,dc=…`. */
  readonly userDn?: string;
  /** Or find the DN first (exactly one of `userDn` and `userSearch`). */
  readonly userSearch?: LdapUserSearch;
  /** Optional group → role mapping; without it the user has no roles. */
  readonly groups?: LdapGroupSearch;
  /**
   * The attribute of the user's entry that holds the name the gateway knows the user by; default `uid`. The
   * directory matches names loosely (`ALICE` and ` alice` bind as `alice` under `caseIgnoreMatch`), so the
   * authenticated name is the entry's own value, not what the caller typed; the typed name when the entry has none.
   */
  readonly userNameAttribute?: string;
  /** The realm of the `Basic` challenge; default `gateway`. */
  readonly realm?: string;
  /** How long connecting and each LDAP operation may take; default 5000 ms. */
  readonly timeoutMs?: number;
}

const SCHEME = /^Basic[ \t]+/i;
const DEFAULT_USER_FILTER = '(uid={user})';
const DEFAULT_GROUP_FILTER = '(|(member={dn})(uniqueMember={dn})(memberUid={user}))';

/** The directory's verdict on a bind: accepted, or the credentials are wrong. Anything else is thrown. */
type BindVerdict = 'bound' | 'refused';

/**
 * The gateway's LDAP authenticator: HTTP Basic credentials (RFC 7617) checked by binding to the directory as the
 * user (RFC 4513 simple bind), with the `ldapts` client; one connection per request, unbound afterwards.
 *
 * The user's DN comes from a template (`uid={user},ou=people,…`) or from a search under a service account. The user
 * name is escaped for where it goes (a DN value per RFC 4514, a filter value per RFC 4515), so `*`, `)(uid=*` or
 * `alice,ou=admins` are only ever names. An empty password is refused before any bind: LDAP would take it as an
 * unauthenticated bind and answer success (RFC 4513 §5.1.2). When `groups` is set, the groups the user belongs to
 * (searched as the user) become roles.
 *
 * A wrong password, an unknown user and a name that matches several entries resolve `{ reason: 'invalid' }`; no
 * `Basic` credentials resolve `{ reason: 'missing' }`. A directory that cannot be reached, times out, or refuses the
 * service account rejects with `ORIGIN_GATEWAY_AUTH_DIRECTORY_UNAVAILABLE` (503): it is the authenticator that
 * failed, not the caller.
 */
export class LdapAuthenticator implements GatewayAuthenticator {
  readonly kind = 'ldap';
  readonly #options: LdapAuthenticatorOptions;
  readonly #timeoutMs: number;
  readonly #missing: GatewayRejected;
  readonly #invalid: GatewayRejected;

  /** @throws OriginError `ORIGIN_GATEWAY_AUTH_LDAP_OPTIONS_INVALID` when the options cannot work. */
  constructor(options: LdapAuthenticatorOptions) {
    checkOptions(options);
    this.#options = options;
    this.#timeoutMs = options.timeoutMs ?? 5000;
    const challenge = `Basic realm="${quoted(options.realm ?? 'gateway')}", charset="UTF-8"`;
    this.#missing = { ok: false, reason: 'missing', challenge };
    this.#invalid = { ok: false, reason: 'invalid', challenge };
  }

  async authenticate(request: AuthenticationRequest): Promise<GatewayAuthentication> {
    const header = request.headers.authorization;
    if (header === undefined || !SCHEME.test(header)) return this.#missing;
    const decoded = Buffer.from(header.replace(SCHEME, '').trim(), 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    // No name, or no password: an empty password would be an unauthenticated bind, which succeeds.
    if (colon <= 0 || colon === decoded.length - 1) return this.#invalid;
    const name = decoded.slice(0, colon);
    const password = decoded.slice(colon + 1);
    const client = new Client({
      url: this.#options.url,
      timeout: this.#timeoutMs,
      connectTimeout: this.#timeoutMs,
      // Only for ldaps://: ldapts would otherwise start TLS on the plain socket itself, ahead of StartTLS.
      tlsOptions: /^ldaps:/i.test(this.#options.url) ? this.#options.tls : undefined,
    });
    try {
      if (this.#options.startTls === true) await client.startTLS(this.#startTlsOptions);
      const found = await this.#userDn(client, name);
      if (found === undefined) return this.#invalid;
      if ((await bind(client, found.dn, password)) === 'refused') return this.#invalid;
      const canonical = found.name ?? (await this.#nameOf(client, found.dn)) ?? name;
      const { groups } = this.#options;
      const roles = groups === undefined ? [] : await groupRoles(client, groups, found.dn, canonical);
      const user: GatewayUser = Object.freeze({ name: canonical, roles: Object.freeze(roles) });
      return { ok: true, user };
    } catch (error) {
      throw new OriginError(
        'ORIGIN_GATEWAY_AUTH_DIRECTORY_UNAVAILABLE',
        { url: this.#options.url, detail: error instanceof Error ? error.message : String(error) },
        { cause: error },
      );
    } finally {
      // The connection is the request's own; a failure to unbind changes nothing of the answer.
      await client.unbind().catch(() => undefined);
    }
  }

  /**
   * The DN to bind as: from the template, or the one entry the search finds, with its name attribute (undefined
   * for none or several entries).
   */
  async #userDn(client: Client, name: string): Promise<{ dn: string; name?: string } | undefined> {
    const { userDn, userSearch } = this.#options;
    if (userDn !== undefined) return { dn: userDn.replaceAll('{user}', escapeDnValue(name)) };
    const search = userSearch!;
    if ((await bind(client, search.bindDn, search.bindPassword)) === 'refused') {
      throw new Error(`the service account '${search.bindDn}' was refused`);
    }
    const filter = (search.filter ?? DEFAULT_USER_FILTER).replaceAll('{user}', escapeFilterValue(name));
    const { searchEntries } = await client.search(search.baseDn, {
      scope: 'sub',
      filter,
      attributes: [this.#nameAttribute],
      sizeLimit: 2,
    });
    const entry = searchEntries.length === 1 ? searchEntries[0]! : undefined;
    return entry && { dn: entry.dn, name: firstValue(entry[this.#nameAttribute]) };
  }

  /** The name attribute of the user's entry, read as the user once bound. */
  async #nameOf(client: Client, dn: string): Promise<string | undefined> {
    const { searchEntries } = await client.search(dn, { scope: 'base', attributes: [this.#nameAttribute] });
    return firstValue(searchEntries[0]?.[this.#nameAttribute]);
  }

  /**
   * The TLS options of StartTLS, with the URL's host to verify the certificate against: ldapts upgrades the socket
   * with `tls.connect({ socket, ...options })`, where Node would otherwise check the certificate against
   * `localhost`, not the directory's name. The host's own `host` or `servername` win.
   */
  get #startTlsOptions(): ConnectionOptions {
    const host = new URL(this.#options.url).hostname.replace(/^\[(.*)\]$/, '$1');
    return { host, ...(isIP(host) === 0 ? { servername: host } : {}), ...this.#options.tls };
  }

  get #nameAttribute(): string {
    return this.#options.userNameAttribute ?? 'uid';
  }
}

const GATEWAY_FILE_KEYS = [
  'url',
  'startTls',
  'caFile',
  'userDn',
  'userSearch',
  'userNameAttribute',
  'groups',
  'realm',
  'timeoutMs',
];

/**
 * Builds an LDAP authenticator from the `authenticator` object of a gateway file (`kind: "ldap"`, the kind taken
 * off): the {@link LdapAuthenticatorOptions} that JSON can say, with `caFile` (PEM, read now, relative to
 * `directory`, the gateway file's directory) for the directory's certificate authority in place of `tls`.
 *
 * @throws ConfigError with each problem's JSON Pointer inside the object.
 */
export function ldapFromGatewayFile(options: Record<string, unknown>, directory: string): LdapAuthenticator {
  const problems: ConfigProblem[] = Object.keys(options)
    .filter((key) => !GATEWAY_FILE_KEYS.includes(key))
    .map((key) => ({ path: `/${key}`, message: `is not an LDAP option (${GATEWAY_FILE_KEYS.join(', ')})` }));
  const { caFile, ...rest } = options;
  let tls: ConnectionOptions | undefined;
  if (caFile !== undefined) {
    try {
      if (typeof caFile !== 'string' || caFile === '') throw new Error('must be a non-empty string');
      tls = { ca: [readFileSync(resolve(directory, caFile), 'utf8')] };
    } catch (error) {
      problems.push({ path: '/caFile', message: error instanceof Error ? error.message : String(error) });
    }
  }
  if (problems.length > 0) throw new ConfigError(problems);
  try {
    return new LdapAuthenticator({ ...(rest as unknown as LdapAuthenticatorOptions), tls });
  } catch (error) {
    if (!isOriginError(error)) throw error;
    throw new ConfigError([{ path: '', message: error.message }]);
  }
}

/** The first value of an attribute as a string; undefined when there is none. */
function firstValue(value: Buffer | Buffer[] | string | string[] | undefined): string | undefined {
  const first = Array.isArray(value) ? value[0] : value;
  return first === undefined ? undefined : String(first);
}

/** Binds; a refusal of the credentials is a verdict, every other failure is thrown. */
async function bind(client: Client, dn: string, password: string): Promise<BindVerdict> {
  try {
    await client.bind(dn, password);
    return 'bound';
  } catch (error) {
    if (error instanceof InvalidCredentialsError || error instanceof InvalidDNSyntaxError) return 'refused';
    throw error;
  }
}

/** The roles the user's groups give, in the order the directory listed the groups, without repeats. */
async function groupRoles(
  client: Client,
  groups: LdapGroupSearch,
  dn: string,
  name: string,
): Promise<string[]> {
  const attribute = groups.nameAttribute ?? 'cn';
  const filter = (groups.filter ?? DEFAULT_GROUP_FILTER)
    .replaceAll('{dn}', escapeFilterValue(dn))
    .replaceAll('{user}', escapeFilterValue(name));
  const { searchEntries } = await client.search(groups.baseDn, {
    scope: 'sub',
    filter,
    attributes: [attribute],
  });
  const roles = new Set<string>();
  for (const entry of searchEntries) {
    const value = entry[attribute];
    const names = (Array.isArray(value) ? value : [value])
      .map(String)
      .filter((group) => group !== 'undefined');
    for (const group of names) {
      const mapped = groups.roles === undefined ? [group] : (groups.roles[group] ?? []);
      for (const role of mapped) roles.add(role);
    }
  }
  return [...roles];
}

/**
 * `value` as an attribute value in a DN string (RFC 4514 §2.4): `\`, `"`, `+`, `,`, `;`, `<`, `>` and `=`
 * escaped with a backslash, a leading `#` or space and a trailing space too, and NUL as `\00`.
 */
export function escapeDnValue(value: string): string {
  const chars = [...value];
  return chars
    .map((c, i) => {
      if (c === '\0') return '\\00';
      if ('\\"+,;<>='.includes(c)) return `\\${c}`;
      if (i === 0 && (c === '#' || c === ' ')) return `\\${c}`;
      if (i === chars.length - 1 && c === ' ') return '\\ ';
      return c;
    })
    .join('');
}

/** `value` as an assertion value in a search filter (RFC 4515 §3): `*`, `(`, `)`, `\` and NUL as `\XX`. */
export function escapeFilterValue(value: string): string {
  return escapeFilter`${value}`;
}

function checkOptions(options: LdapAuthenticatorOptions): void {
  const problem = (detail: string): OriginError =>
    new OriginError('ORIGIN_GATEWAY_AUTH_LDAP_OPTIONS_INVALID', { detail });
  if (typeof options.url !== 'string' || !/^ldaps?:\/\/[^/]+\/?$/i.test(options.url)) {
    throw problem(`url '${options.url}' must be ldap://host:port or ldaps://host:port`);
  }
  if (options.startTls === true && /^ldaps:/i.test(options.url)) {
    throw problem('startTls applies to ldap:// URLs; an ldaps:// connection is TLS from the start');
  }
  if (options.tls !== undefined && options.startTls !== true && !/^ldaps:/i.test(options.url)) {
    throw problem('tls applies to an ldaps:// URL or startTls; this connection would be plain');
  }
  const text = (value: unknown): boolean => typeof value === 'string' && value !== '';
  const optional = (value: unknown): boolean => value === undefined || text(value);
  const object = (value: unknown): value is Record<string, unknown> =>
    typeof value === 'object' && value !== null && !Array.isArray(value);
  if (!optional(options.userDn) || !optional(options.userNameAttribute) || !optional(options.realm)) {
    throw problem('userDn, userNameAttribute and realm must be non-empty strings');
  }
  const search: unknown = options.userSearch;
  if (
    search !== undefined &&
    !(
      object(search) &&
      text(search['baseDn']) &&
      text(search['bindDn']) &&
      text(search['bindPassword']) &&
      optional(search['filter'])
    )
  ) {
    throw problem('userSearch must be { baseDn, filter?, bindDn, bindPassword } with non-empty strings');
  }
  const groups: unknown = options.groups;
  const roleMap = (value: unknown): boolean =>
    value === undefined ||
    (object(value) && Object.values(value).every((roles) => Array.isArray(roles) && roles.every(text)));
  if (
    groups !== undefined &&
    !(
      object(groups) &&
      text(groups['baseDn']) &&
      optional(groups['filter']) &&
      optional(groups['nameAttribute']) &&
      roleMap(groups['roles'])
    )
  ) {
    throw problem(
      'groups must be { baseDn, filter?, nameAttribute?, roles? } with roles mapping group names to role lists',
    );
  }
  if ((options.userDn === undefined) === (options.userSearch === undefined)) {
    throw problem('give exactly one of userDn (a DN template) and userSearch');
  }
  if (options.userDn !== undefined && !options.userDn.includes('{user}')) {
    throw problem(`userDn '${options.userDn}' must contain {user}`);
  }
  if (
    options.userSearch !== undefined &&
    !(options.userSearch.filter ?? DEFAULT_USER_FILTER).includes('{user}')
  ) {
    throw problem('userSearch.filter must contain {user}');
  }
  const { timeoutMs } = options;
  if (timeoutMs !== undefined && !(Number.isInteger(timeoutMs) && timeoutMs > 0)) {
    throw problem(`timeoutMs ${timeoutMs} must be a positive integer`);
  }
}

/** The realm as a quoted-string's content (RFC 9110 §5.6.4), as the other authenticators write it. */
function quoted(value: string): string {
  return value.replace(/[^\t\x20-\x7e\x80-\xff]/g, '?').replace(/[\\"]/g, (c) => `\\${c}`);
}

import { createHmac, randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import type { AuthenticationRequest } from '../auth/authenticator';
import { ConfigError, type ConfigProblem } from '../errors/config-error';
import { OriginError, isOriginError } from '../errors/origin-error';
import { readResourceFile } from '../tls/resource-file';
import type {
  GatewayAuthentication,
  GatewayAuthenticator,
  GatewayRejected,
  GatewayUser,
} from './gateway-authenticator';

/** One entry of a users file: a name, a {@link hashPassword} string, and the roles the user holds. */
export interface FileRealmEntry {
  readonly user: string;
  /** `scrypt$<N>$<r>$<p>$<salt>$<hash>`, salt and hash in base64url without padding. */
  readonly hash: string;
  readonly roles?: readonly string[];
}

/** The scrypt cost parameters of a hash (RFC 7914): CPU/memory cost `N` (a power of two), block size `r`, `p`. */
export interface ScryptParameters {
  readonly N: number;
  readonly r: number;
  readonly p: number;
}

/**
 * The parameters `hashPassword` uses by default: N = 2^15, r = 8, p = 1, which takes 32 MiB and some tens of
 * milliseconds per hash. OWASP's minimum for scrypt is N = 2^17 at 128 MiB; a gateway checks passwords on
 * requests, not once per login, so the default is lower and a verified-credentials cache (decision 0070) spares
 * repeat requests the cost altogether. Raise it per entry when that suits: every entry carries its own.
 */
export const DEFAULT_SCRYPT_PARAMETERS: ScryptParameters = Object.freeze({ N: 2 ** 15, r: 8, p: 1 });

/** Upper bounds of accepted parameters, so that a users file cannot make each request take gigabytes or minutes. */
const MAX_N = 2 ** 20;
const MAX_R = 32;
const MAX_P = 16;
const MAX_MEMORY = 256 * 1024 * 1024;
const SALT_BYTES = 16;
const KEY_BYTES = 32;
/** How many verified credentials the cache keeps; the oldest is dropped first. */
const CACHE_SIZE = 1024;

interface ParsedHash {
  readonly parameters: ScryptParameters;
  readonly salt: Buffer;
  readonly key: Buffer;
}

interface RealmEntry {
  readonly hash: ParsedHash;
  readonly user: GatewayUser;
}

/** Where the users come from: a users file (JSON or YAML) or entries given inline. */
export type FileRealmSource =
  | { readonly usersFile: string; readonly resourcesDirectory?: string }
  | { readonly users: readonly FileRealmEntry[] };

export interface FileRealmOptions {
  /** The realm of the `Basic` challenge; default `gateway`. */
  readonly realm?: string;
}

const SCHEME = /^Basic[ \t]+/i;

/**
 * A salted scrypt hash of `password`, as one string: `scrypt$N$r$p$salt$hash` (salt and hash base64url).
 * What `rest-origin hash-password` prints in a users-file entry.
 */
export async function hashPassword(
  password: string,
  parameters: ScryptParameters = DEFAULT_SCRYPT_PARAMETERS,
): Promise<string> {
  checkParameters(parameters);
  const salt = randomBytes(SALT_BYTES);
  const key = await derive(password, salt, parameters, KEY_BYTES);
  const { N, r, p } = parameters;
  return `scrypt$${N}$${r}$${p}$${salt.toString('base64url')}$${key.toString('base64url')}`;
}

/**
 * The gateway's file realm: users with salted scrypt password hashes and roles, checked against HTTP Basic
 * credentials (RFC 7617). Build it with {@link FileRealmAuthenticator.load} from a users file or inline entries.
 *
 * Every request with credentials costs one scrypt derivation, also for an unknown user (derived against a dummy
 * entry with the first user's parameters, then refused), so that neither the answer nor its time says whether a
 * user exists; the derived key is compared with `crypto.timingSafeEqual`. scrypt runs on libuv's thread pool, so
 * the event loop keeps serving other requests meanwhile. Credentials that verified are remembered (an HMAC of
 * name and password under a per-instance random key, never the password) so that a client sending the same
 * credentials on every request pays scrypt once (decision 0070).
 *
 * A wrong password, an unknown user and malformed credentials all resolve `{ reason: 'invalid' }`; no `Basic`
 * credentials resolve `{ reason: 'missing' }`; both carry `Basic realm="<realm>", charset="UTF-8"`.
 */
export class FileRealmAuthenticator implements GatewayAuthenticator {
  readonly kind = 'file';
  readonly #entries: ReadonlyMap<string, RealmEntry>;
  readonly #dummy: ParsedHash;
  readonly #cacheKey = randomBytes(32);
  readonly #verified = new Map<string, GatewayUser>();
  readonly #missing: GatewayRejected;
  readonly #invalid: GatewayRejected;

  /**
   * Reads and checks the users, then builds the realm.
   *
   * @throws OriginError `ORIGIN_GATEWAY_AUTH_USERS_UNREADABLE` when the file cannot be read (a relative path
   *   resolves against `resourcesDirectory` and must stay inside it); `ORIGIN_GATEWAY_AUTH_USERS_INVALID` when the
   *   users are not a list of `{ user, hash, roles }` with unique names and well-formed, bounded scrypt hashes.
   */
  static async load(
    source: FileRealmSource,
    options: FileRealmOptions = {},
  ): Promise<FileRealmAuthenticator> {
    if ('users' in source) return FileRealmAuthenticator.fromEntries(source.users, options);
    const text = await readUsersFile(source.usersFile, source.resourcesDirectory ?? '');
    return FileRealmAuthenticator.fromText(text, source.usersFile, options);
  }

  /**
   * Builds the realm from entries given inline.
   *
   * @throws OriginError `ORIGIN_GATEWAY_AUTH_USERS_INVALID`, as {@link FileRealmAuthenticator.load}.
   */
  static fromEntries(
    users: readonly FileRealmEntry[],
    options: FileRealmOptions = {},
  ): FileRealmAuthenticator {
    return new FileRealmAuthenticator(checkEntries(users, 'the inline users'), options);
  }

  /**
   * Builds the realm from a users file's text (JSON or YAML) read by the caller; `name` names the file in errors.
   *
   * @throws OriginError `ORIGIN_GATEWAY_AUTH_USERS_INVALID`, as {@link FileRealmAuthenticator.load}.
   */
  static fromText(text: string, name: string, options: FileRealmOptions = {}): FileRealmAuthenticator {
    let document: unknown;
    try {
      // YAML 1.2 is a superset of JSON, so one parser reads both kinds of file.
      document = parseYaml(text);
    } catch (error) {
      throw invalid(`file '${name}'`, error instanceof Error ? error.message : String(error));
    }
    const list = isRecord(document) && 'users' in document ? document['users'] : document;
    return new FileRealmAuthenticator(checkEntries(list, `file '${name}'`), options);
  }

  private constructor(entries: ReadonlyMap<string, RealmEntry>, options: FileRealmOptions) {
    this.#entries = entries;
    const first = entries.values().next().value as RealmEntry | undefined;
    const parameters = first?.hash.parameters ?? DEFAULT_SCRYPT_PARAMETERS;
    this.#dummy = { parameters, salt: randomBytes(SALT_BYTES), key: randomBytes(KEY_BYTES) };
    const challenge = `Basic realm="${quoted(options.realm ?? 'gateway')}", charset="UTF-8"`;
    this.#missing = { ok: false, reason: 'missing', challenge };
    this.#invalid = { ok: false, reason: 'invalid', challenge };
  }

  /** The user names of the realm, for a host's checks and logs (never the hashes). */
  get users(): readonly string[] {
    return [...this.#entries.keys()];
  }

  async authenticate(request: AuthenticationRequest): Promise<GatewayAuthentication> {
    const header = request.headers.authorization;
    if (header === undefined || !SCHEME.test(header)) return this.#missing;
    const decoded = Buffer.from(header.replace(SCHEME, '').trim(), 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon <= 0) return this.#invalid;
    const name = decoded.slice(0, colon);
    const password = decoded.slice(colon + 1);
    const cacheKey = this.#cacheKeyOf(name, password);
    const cached = this.#verified.get(cacheKey);
    if (cached !== undefined) return { ok: true, user: cached };
    const entry = this.#entries.get(name);
    // An unknown user is hashed against the dummy entry, so that it costs what a known one costs.
    const hash = entry?.hash ?? this.#dummy;
    const candidate = await derive(password, hash.salt, hash.parameters, hash.key.length);
    const same = timingSafeEqual(candidate, hash.key);
    if (!same || entry === undefined) return this.#invalid;
    this.#remember(cacheKey, entry.user);
    return { ok: true, user: entry.user };
  }

  /** Forgets the verified credentials. */
  async close(): Promise<void> {
    this.#verified.clear();
  }

  /** HMAC-SHA-256 of the name's length, the name and the password: a cache key that does not reveal either. */
  #cacheKeyOf(name: string, password: string): string {
    const length = Buffer.alloc(4);
    length.writeUInt32BE(Buffer.byteLength(name));
    return createHmac('sha256', this.#cacheKey).update(length).update(name).update(password).digest('base64');
  }

  #remember(key: string, user: GatewayUser): void {
    if (this.#verified.size >= CACHE_SIZE) {
      const oldest = this.#verified.keys().next().value as string;
      this.#verified.delete(oldest);
    }
    this.#verified.set(key, user);
  }
}

const GATEWAY_FILE_KEYS = new Set(['usersFile', 'users', 'realm']);

/**
 * Builds a file realm from the `authenticator` object of a gateway file (`kind: "file"`, the kind taken off):
 * `usersFile` (read now, relative to `directory`, the gateway file's directory) or inline `users`, and `realm`.
 * Synchronous, for the command that reads the gateway file.
 *
 * @throws ConfigError with each problem's JSON Pointer inside the object (`/usersFile`, `/users`, `/realm`).
 */
export function fileRealmFromGatewayFile(
  options: Record<string, unknown>,
  directory: string,
): FileRealmAuthenticator {
  const problems: ConfigProblem[] = Object.keys(options)
    .filter((key) => !GATEWAY_FILE_KEYS.has(key))
    .map((key) => ({
      path: `/${key}`,
      message: 'is not an option of the file realm (usersFile, users, realm)',
    }));
  const { usersFile, users, realm } = options;
  if (realm !== undefined && (typeof realm !== 'string' || realm === '')) {
    problems.push({ path: '/realm', message: 'must be a non-empty string' });
  }
  if ((usersFile === undefined) === (users === undefined)) {
    problems.push({ path: '', message: 'give exactly one of usersFile and users' });
  } else if (usersFile !== undefined && (typeof usersFile !== 'string' || usersFile === '')) {
    problems.push({ path: '/usersFile', message: 'must be a non-empty string' });
  }
  if (problems.length > 0) throw new ConfigError(problems);
  const realmOptions = { realm: realm as string | undefined };
  try {
    if (users !== undefined) {
      return FileRealmAuthenticator.fromEntries(users as FileRealmEntry[], realmOptions);
    }
    let text: string;
    try {
      text = readFileSync(resolve(directory, usersFile as string), 'utf8');
    } catch (error) {
      throw new OriginError('ORIGIN_GATEWAY_AUTH_USERS_UNREADABLE', {
        path: usersFile as string,
        detail: error instanceof Error ? error.message : String(error),
      });
    }
    return FileRealmAuthenticator.fromText(text, usersFile as string, realmOptions);
  } catch (error) {
    if (!isOriginError(error)) throw error;
    throw new ConfigError([{ path: users === undefined ? '/usersFile' : '/users', message: error.message }]);
  }
}

async function readUsersFile(path: string, resourcesDirectory: string): Promise<string> {
  try {
    return (await readResourceFile(resourcesDirectory, 'usersFile', path)).toString('utf8');
  } catch (error) {
    // readResourceFile speaks of TLS options; say what it was that could not be read.
    const detail = isOriginError(error, 'ORIGIN_TLS_FILE_OUTSIDE_RESOURCES')
      ? `a relative path must name a file inside resourcesDirectory '${String(error.params['directory'])}'`
      : isOriginError(error)
        ? String(error.params['detail'])
        : String(error);
    throw new OriginError('ORIGIN_GATEWAY_AUTH_USERS_UNREADABLE', { path, detail }, { cause: error });
  }
}

/** Checks the users and indexes them by name. */
function checkEntries(list: unknown, source: string): ReadonlyMap<string, RealmEntry> {
  if (!Array.isArray(list)) throw invalid(source, 'expected a list of { user, hash, roles } entries');
  const entries = new Map<string, RealmEntry>();
  list.forEach((item: unknown, index) => {
    const at = `entry ${index}`;
    if (!isRecord(item)) throw invalid(source, `${at} is not an object`);
    const { user, hash, roles = [] } = item;
    if (typeof user !== 'string' || user === '' || user.includes(':')) {
      throw invalid(source, `${at}: 'user' must be a non-empty string without ':' (RFC 7617)`);
    }
    if (entries.has(user)) throw invalid(source, `${at}: user '${user}' appears twice`);
    if (typeof hash !== 'string') throw invalid(source, `${at} (user '${user}'): 'hash' must be a string`);
    if (!Array.isArray(roles) || !roles.every((role) => typeof role === 'string' && role !== '')) {
      throw invalid(source, `${at} (user '${user}'): 'roles' must be a list of non-empty strings`);
    }
    let parsed: ParsedHash;
    try {
      parsed = parseHash(hash);
    } catch (error) {
      throw invalid(source, `${at} (user '${user}'): ${(error as Error).message}`);
    }
    const frozenRoles = Object.freeze([...(roles as string[])]);
    entries.set(user, { hash: parsed, user: Object.freeze({ name: user, roles: frozenRoles }) });
  });
  return entries;
}

const HASH_FORM =
  /^scrypt\$(\d{1,8})\$(\d{1,3})\$(\d{1,3})\$([A-Za-z0-9_-]{16,88})\$([A-Za-z0-9_-]{22,172})$/;

/** Parses `scrypt$N$r$p$salt$hash`; throws an Error naming what is wrong (never echoing the hash). */
function parseHash(text: string): ParsedHash {
  const match = HASH_FORM.exec(text);
  if (match === null) {
    throw new Error(
      "'hash' is not of the form scrypt$N$r$p$salt$hash (make one with rest-origin hash-password)",
    );
  }
  const parameters = { N: Number(match[1]), r: Number(match[2]), p: Number(match[3]) };
  checkParameters(parameters);
  return { parameters, salt: Buffer.from(match[4]!, 'base64url'), key: Buffer.from(match[5]!, 'base64url') };
}

function checkParameters({ N, r, p }: ScryptParameters): void {
  const powerOfTwo = Number.isInteger(N) && N >= 2 && (N & (N - 1)) === 0;
  if (!powerOfTwo || N > MAX_N) throw new Error(`scrypt N ${N} must be a power of two from 2 to 2^20`);
  if (!Number.isInteger(r) || r < 1 || r > MAX_R) throw new Error(`scrypt r ${r} must be from 1 to ${MAX_R}`);
  if (!Number.isInteger(p) || p < 1 || p > MAX_P) throw new Error(`scrypt p ${p} must be from 1 to ${MAX_P}`);
  if (memoryOf({ N, r, p }) > MAX_MEMORY) throw new Error(`scrypt N ${N} and r ${r} need more than 256 MiB`);
}

/** What scrypt needs in memory (RFC 7914: 128·N·r for V, 128·r·p for B), as Node's `maxmem` counts it. */
function memoryOf({ N, r, p }: ScryptParameters): number {
  return 128 * N * r + 128 * r * p;
}

function derive(
  password: string,
  salt: Buffer,
  parameters: ScryptParameters,
  length: number,
): Promise<Buffer> {
  const options: ScryptOptions = { ...parameters, maxmem: memoryOf(parameters) + 1024 * 1024 };
  return new Promise((resolve, reject) => {
    scrypt(password, salt, length, options, (error, key) => (error ? reject(error) : resolve(key)));
  });
}

function invalid(source: string, detail: string): OriginError {
  return new OriginError('ORIGIN_GATEWAY_AUTH_USERS_INVALID', { source, detail });
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The realm as a quoted-string's content (RFC 9110 §5.6.4): backslash and double quote escaped, and what a header
 * cannot carry as `?` (as the origin's basic authenticator does).
 */
function quoted(value: string): string {
  return value.replace(/[^\t\x20-\x7e\x80-\xff]/g, '?').replace(/[\\"]/g, (c) => `\\${c}`);
}

import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { ConfigError, type ConfigProblem } from '../errors/config-error';
import { InMemoryAcl } from '../gateway/authorizer';
import { fileRealmFromGatewayFile } from '../gateway/file-realm-authenticator';
import { ldapFromGatewayFile } from '../gateway/ldap-authenticator';
import type { GatewayOptions } from '../gateway/gateway';
import type { GatewayAuthenticator } from '../gateway/gateway-authenticator';
import { ROLE_PROFILES, type RoleProfile } from '../gateway/roles';
import { readObjectFile } from './config-file';

/**
 * How the command builds an authenticator of each `authenticator.kind` of a gateway file, from the rest of that
 * object and the file's directory (relative paths are resolved against it). The shipped authenticators (file
 * realm, LDAP) add their kinds here.
 */
export const GATEWAY_AUTHENTICATOR_KINDS: Record<
  string,
  (options: Record<string, unknown>, directory: string) => GatewayAuthenticator
> = { file: fileRealmFromGatewayFile, ldap: ldapFromGatewayFile };

const KEYS = new Set(['$schema', 'port', 'host', 'tls', 'authenticator', 'secureApiRoles', 'readers']);
/** The gateway's port when the file says none. */
export const DEFAULT_GATEWAY_PORT = 18630;

/**
 * Reads a gateway file (JSON, or YAML when it ends in `.yaml`/`.yml`; docs/gateway.md, "The command"): `port`
 * (default 18630), `host`, `tls` (`certificateFile` and `keyFile`, PEM), `authenticator` (`kind` and its
 * options), `secureApiRoles` (names, or a profile: `standalone`, `managed`, `managedSaml`) and `readers` (an
 * {@link InMemoryAcl}: pipeline → users and `@roles`). Relative file names are read from the file's directory.
 *
 * @throws ConfigError with every problem of the file, each with its JSON Pointer.
 */
export function readGatewayFile(path: string, port?: number): GatewayOptions {
  const file = readObjectFile(path, 'the gateway config');
  const directory = dirname(resolve(path));
  const problems: ConfigProblem[] = [];
  for (const key of Object.keys(file)) {
    if (!KEYS.has(key))
      problems.push({ path: `/${key}`, message: `is not a known key (${[...KEYS].join(', ')})` });
  }
  const options: Partial<Record<keyof GatewayOptions, unknown>> = {
    port: port ?? portOf(file['port'], problems),
  };
  if (file['host'] !== undefined) options.host = stringAt(file['host'], '/host', problems);
  if (file['tls'] !== undefined) options.tls = tlsOf(file['tls'], directory, problems);
  if (file['authenticator'] !== undefined) {
    options.authenticator = authenticatorOf(file['authenticator'], directory, problems);
  }
  if (file['secureApiRoles'] !== undefined)
    options.secureApiRoles = rolesOf(file['secureApiRoles'], problems);
  if (file['readers'] !== undefined) options.authorizer = readersOf(file['readers'], problems);
  if (problems.length > 0) throw new ConfigError(problems);
  return options as unknown as GatewayOptions;
}

function portOf(value: unknown, problems: ConfigProblem[]): number {
  if (value === undefined) return DEFAULT_GATEWAY_PORT;
  if (typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= 65535) return value;
  problems.push({ path: '/port', message: 'must be an integer from 0 to 65535' });
  return 0;
}

function stringAt(value: unknown, path: string, problems: ConfigProblem[]): string {
  if (typeof value === 'string' && value !== '') return value;
  problems.push({ path, message: 'must be a non-empty string' });
  return '';
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function tlsOf(
  value: unknown,
  directory: string,
  problems: ConfigProblem[],
): { cert: Buffer; key: Buffer } | undefined {
  if (!isObject(value)) {
    problems.push({ path: '/tls', message: 'must be an object with certificateFile and keyFile' });
    return undefined;
  }
  const read = (key: 'certificateFile' | 'keyFile'): Buffer => {
    const name = stringAt(value[key], `/tls/${key}`, problems);
    if (name === '') return Buffer.alloc(0);
    try {
      return readFileSync(resolve(directory, name));
    } catch (error) {
      problems.push({ path: `/tls/${key}`, message: `cannot be read (${(error as Error).message})` });
      return Buffer.alloc(0);
    }
  };
  return { cert: read('certificateFile'), key: read('keyFile') };
}

function authenticatorOf(
  value: unknown,
  directory: string,
  problems: ConfigProblem[],
): GatewayAuthenticator | undefined {
  const known = Object.keys(GATEWAY_AUTHENTICATOR_KINDS);
  if (!isObject(value) || typeof value['kind'] !== 'string') {
    problems.push({ path: '/authenticator', message: 'must be an object with a kind' });
    return undefined;
  }
  const { kind, ...options } = value;
  const make = GATEWAY_AUTHENTICATOR_KINDS[kind];
  if (make === undefined) {
    const list = known.length === 0 ? 'none in this build' : known.join(', ');
    problems.push({ path: '/authenticator/kind', message: `'${kind}' is not a known kind (${list})` });
    return undefined;
  }
  try {
    return make(options, directory);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    problems.push(...error.problems.map((p) => ({ ...p, path: `/authenticator${p.path}` })));
    return undefined;
  }
}

function rolesOf(value: unknown, problems: ConfigProblem[]): readonly string[] {
  if (typeof value === 'string' && Object.hasOwn(ROLE_PROFILES, value))
    return ROLE_PROFILES[value as RoleProfile];
  if (Array.isArray(value) && value.length > 0 && value.every((v) => typeof v === 'string' && v !== '')) {
    return value as string[];
  }
  const profiles = Object.keys(ROLE_PROFILES).join(', ');
  problems.push({
    path: '/secureApiRoles',
    message: `must be a non-empty list of role names or one of ${profiles}`,
  });
  return [];
}

function readersOf(value: unknown, problems: ConfigProblem[]): InMemoryAcl | undefined {
  const valid =
    isObject(value) &&
    Object.values(value).every((who) => Array.isArray(who) && who.every((w) => typeof w === 'string'));
  if (valid) return new InMemoryAcl(value as Record<string, string[]>);
  problems.push({ path: '/readers', message: 'must map pipeline names to lists of users and @roles' });
  return undefined;
}

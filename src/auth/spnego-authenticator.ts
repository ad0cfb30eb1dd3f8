import { access, constants } from 'node:fs/promises';
import { OriginError } from '../errors/origin-error';
import type { AuthenticationOutcome, AuthenticationRequest, Authenticator, Rejected } from './authenticator';
import { identityOf } from './identity-attributes';
import { hostBasedServiceOf } from './spnego-principal';
import { holdProcessKeytab, releaseProcessKeytab } from './process-keytab';

/** The part of the `kerberos` addon the server side uses. */
interface KerberosServer {
  readonly username: string;
  readonly response: string | null | undefined;
  step(token: string): Promise<unknown>;
}
interface KerberosAddon {
  initializeServer(service: string): Promise<KerberosServer>;
}

/** The SPNEGO settings of the HTTP tab, with the keytab path made absolute. */
export interface SpnegoSettings {
  /** `kerberosRealm`: the realm every client principal must belong to. */
  readonly realm: string;
  /** `httpSpnegoPrincipal`: `HTTP/<fqdn>@<REALM>`, already checked by `spnegoPrincipalProblem`. */
  readonly principal: string;
  /** `keytabFile`, absolute. */
  readonly keytabFile: string;
}

const NEGOTIATE = /^Negotiate(?:[ \t]+(.*))?$/is;
const CHALLENGE = 'Negotiate';

/**
 * The server side of Kerberos over HTTP (SPNEGO, RFC 4559) with the `kerberos` addon (MIT GSSAPI).
 *
 * A request without `Authorization: Negotiate <token>` gets 401 `ORIGIN_AUTH_CREDENTIALS_MISSING` with
 * `WWW-Authenticate: Negotiate`; a token GSSAPI refuses gets 401 `ORIGIN_AUTH_NEGOTIATE_FAILED` (GSSAPI's reason
 * in the message); a principal of another realm than `kerberosRealm` gets 403 `ORIGIN_AUTH_REALM_REFUSED`. An
 * accepted token makes the identity `authenticationMethod` = `spnego`, `authenticatedUser` = the client principal
 * (`alice@EXAMPLE.COM`), and GSSAPI's mutual-authentication token goes back in the answer's
 * `WWW-Authenticate: Negotiate <token>`. Each request is one GSSAPI context, accepted on the addon's worker thread.
 *
 * The addon is an optional dependency loaded only here, when the first origin with SPNEGO prepares; the keytab is
 * handed to GSSAPI through the process-wide `KRB5_KTNAME` (see process-keytab.ts).
 */
export class SpnegoAuthenticator implements Authenticator {
  readonly method = 'spnego' as const;
  readonly #settings: SpnegoSettings;
  /** The GSSAPI host-based service name of the principal: `HTTP@<fqdn>`. */
  readonly #service: string;
  readonly #missing: Rejected;
  #ready: Promise<KerberosAddon> | undefined;
  #holdsKeytab = false;

  constructor(settings: SpnegoSettings) {
    this.#settings = settings;
    this.#service = hostBasedServiceOf(settings.principal);
    this.#missing = {
      ok: false,
      error: new OriginError('ORIGIN_AUTH_CREDENTIALS_MISSING', { scheme: 'Negotiate' }),
      challenge: CHALLENGE,
    };
  }

  /**
   * Loads the addon, makes the keytab the process keytab and acquires the service's credentials once, so that a
   * missing addon or an unusable keytab fails `start()`. A request handled before `start()` (a host driving
   * `handleRequest`) prepares the same way first.
   */
  prepare(): Promise<void> {
    return this.#addon().then(() => undefined);
  }

  /** The loaded addon, once prepared; a failed preparation is tried again on the next call. */
  #addon(): Promise<KerberosAddon> {
    this.#ready ??= this.#load().catch((error: unknown) => {
      this.#ready = undefined;
      this.release();
      throw error;
    });
    return this.#ready;
  }

  release(): void {
    if (!this.#holdsKeytab) return;
    this.#holdsKeytab = false;
    releaseProcessKeytab(this.#settings.keytabFile);
  }

  authenticate(request: AuthenticationRequest): AuthenticationOutcome | Promise<AuthenticationOutcome> {
    const header = request.headers.authorization;
    const token = header === undefined ? undefined : NEGOTIATE.exec(header)?.[1]?.trim();
    if (token === undefined || token === '') return this.#missing;
    return this.#accept(token);
  }

  async #accept(token: string): Promise<AuthenticationOutcome> {
    const kerberos = await this.#addon();
    // A failure to set up the acceptor is the server's fault (500), not the client's.
    const server = await kerberos.initializeServer(this.#service);
    try {
      await server.step(token);
    } catch (error) {
      return {
        ok: false,
        error: new OriginError(
          'ORIGIN_AUTH_NEGOTIATE_FAILED',
          { detail: messageOf(error) },
          { cause: error },
        ),
        challenge: CHALLENGE,
      };
    }
    const principal = server.username;
    const at = principal.lastIndexOf('@');
    if (at < 0 || principal.slice(at + 1) !== this.#settings.realm) {
      return {
        ok: false,
        error: new OriginError('ORIGIN_AUTH_REALM_REFUSED', { principal, realm: this.#settings.realm }),
        challenge: CHALLENGE,
      };
    }
    const reply = server.response;
    return {
      ok: true,
      identity: identityOf('spnego', principal),
      ...(reply ? { replyHeaders: { 'WWW-Authenticate': `${CHALLENGE} ${reply}` } } : {}),
    };
  }

  async #load(): Promise<KerberosAddon> {
    const { keytabFile, principal } = this.#settings;
    const kerberos = await loadKerberosAddon();
    try {
      await access(keytabFile, constants.R_OK);
    } catch (error) {
      throw new OriginError(
        'ORIGIN_AUTH_KEYTAB_UNREADABLE',
        { path: keytabFile, detail: messageOf(error) },
        { cause: error },
      );
    }
    if (!this.#holdsKeytab) {
      holdProcessKeytab(keytabFile);
      this.#holdsKeytab = true;
    }
    try {
      await kerberos.initializeServer(this.#service);
    } catch (error) {
      throw new OriginError(
        'ORIGIN_AUTH_SPNEGO_UNUSABLE',
        { principal, path: keytabFile, detail: messageOf(error) },
        { cause: error },
      );
    }
    return kerberos;
  }
}

/**
 * Imports the optional `kerberos` addon.
 *
 * @throws OriginError `ORIGIN_AUTH_KERBEROS_UNAVAILABLE` naming the package, and libkrb5, when it cannot load.
 */
async function loadKerberosAddon(): Promise<KerberosAddon> {
  try {
    const loaded = (await import('kerberos')) as unknown as KerberosAddon & { default?: KerberosAddon };
    // From ESM the CommonJS addon may come as the default export only.
    return typeof loaded.initializeServer === 'function' ? loaded : loaded.default!;
  } catch (error) {
    throw new OriginError('ORIGIN_AUTH_KERBEROS_UNAVAILABLE', { detail: messageOf(error) }, { cause: error });
  }
}

/** The message of what was thrown (an error from another realm, such as a vm context, is no `instanceof Error`). */
function messageOf(error: unknown): string {
  const message = (error as { message?: unknown } | null)?.message;
  return typeof message === 'string' ? message : String(error);
}

import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import {
  LdapAuthenticator,
  escapeDnValue,
  escapeFilterValue,
  isOriginError,
  type LdapAuthenticatorOptions,
} from 'rest-service-origin';
import { ldapFromGatewayFile } from '../../src/gateway/ldap-authenticator';
import { ConfigError } from 'rest-service-origin';
import { freePort, startSlapd, type TestSlapd } from './test-slapd';

let slapd: TestSlapd;

// If slapd cannot start, beforeAll rejects and every test of the file fails: none is skipped.
beforeAll(async () => {
  slapd = await startSlapd();
}, 60_000);

afterAll(async () => {
  await slapd?.stop();
});

function basic(user: string, password: string): string {
  return `Basic ${Buffer.from(`${user}:${password}`, 'utf8').toString('base64')}`;
}

function login(authenticator: LdapAuthenticator, user: string, password: string) {
  return authenticator.authenticate({ headers: { authorization: basic(user, password) } });
}

function bindAsUser(extra: Partial<LdapAuthenticatorOptions> = {}): LdapAuthenticator {
  return new LdapAuthenticator({
    url: slapd.url,
    userDn: `uid={user},${slapd.people}`,
    groups: { baseDn: slapd.groups },
    ...extra,
  });
}

function searchThenBind(extra: Partial<LdapAuthenticatorOptions> = {}): LdapAuthenticator {
  return new LdapAuthenticator({
    url: slapd.url,
    userSearch: { baseDn: slapd.people, bindDn: slapd.service.dn, bindPassword: slapd.service.password },
    groups: { baseDn: slapd.groups, roles: { admins: ['admin', 'manager'], readers: ['viewer'] } },
    ...extra,
  });
}

const INVALID = { ok: false, reason: 'invalid', challenge: 'Basic realm="gateway", charset="UTF-8"' };

describe('bind as the user (DN template)', () => {
  it('lets users in with the right password, their groups as roles (member and memberUid)', async () => {
    const ldap = bindAsUser();
    expect(await login(ldap, 'alice', slapd.alice.password)).toEqual({
      ok: true,
      user: { name: 'alice', roles: ['admins'] },
    });
    expect(await login(ldap, 'bob', slapd.bob.password)).toEqual({
      ok: true,
      user: { name: 'bob', roles: ['readers'] },
    });
  });

  it('binds a name that needs escaping in the DN, and gives no roles without groups', async () => {
    const ldap = bindAsUser({ groups: undefined });
    expect(await login(ldap, slapd.odd.uid, slapd.odd.password)).toEqual({
      ok: true,
      user: { name: slapd.odd.uid, roles: [] },
    });
    expect(await login(ldap, 'alice', slapd.alice.password)).toEqual({
      ok: true,
      user: { name: 'alice', roles: [] },
    });
  });

  it('refuses a wrong password, an unknown user, another user password and an empty password alike', async () => {
    const ldap = bindAsUser();
    expect(await login(ldap, 'alice', 'wrong')).toEqual(INVALID);
    expect(await login(ldap, 'mallory', slapd.alice.password)).toEqual(INVALID);
    expect(await login(ldap, 'alice', slapd.bob.password)).toEqual(INVALID);
    // The directory would take an empty password as an unauthenticated bind and answer success.
    expect(await login(ldap, 'alice', '')).toEqual(INVALID);
    expect(await ldap.authenticate({ headers: {} })).toMatchObject({ ok: false, reason: 'missing' });
  });

  it('names the user as the directory does, not as typed (uid matches ignoring case and outer spaces)', async () => {
    for (const ldap of [bindAsUser(), searchThenBind()]) {
      for (const typed of ['ALICE', ' alice', 'alice ']) {
        expect(await login(ldap, typed, slapd.alice.password)).toMatchObject({
          ok: true,
          user: { name: 'alice' },
        });
      }
    }
  });

  it.each(['*', ')(uid=*', `alice,${'ou=people'}`, 'alice+cn=alice', '#alice', 'ali\\63e'])(
    'treats %j as a name only',
    async (name) => {
      expect(await login(bindAsUser(), name, slapd.alice.password)).toEqual(INVALID);
    },
  );
});

describe('search, then bind (service account)', () => {
  it('maps groups to roles', async () => {
    const ldap = searchThenBind();
    expect(await login(ldap, 'alice', slapd.alice.password)).toEqual({
      ok: true,
      user: { name: 'alice', roles: ['admin', 'manager'] },
    });
    expect(await login(ldap, 'bob', slapd.bob.password)).toEqual({
      ok: true,
      user: { name: 'bob', roles: ['viewer'] },
    });
    // A group without a mapping gives no role.
    const partial = searchThenBind({ groups: { baseDn: slapd.groups, roles: { admins: ['admin'] } } });
    expect(await login(partial, 'bob', slapd.bob.password)).toEqual({
      ok: true,
      user: { name: 'bob', roles: [] },
    });
  });

  it('finds a name with filter metacharacters by its exact value', async () => {
    expect(await login(searchThenBind(), slapd.odd.uid, slapd.odd.password)).toEqual({
      ok: true,
      user: { name: slapd.odd.uid, roles: [] },
    });
  });

  it('refuses a wrong password and an unknown user', async () => {
    const ldap = searchThenBind();
    expect(await login(ldap, 'alice', 'wrong')).toEqual(INVALID);
    expect(await login(ldap, 'mallory', 'whatever')).toEqual(INVALID);
  });

  it.each(['*', 'al*', ')(uid=*', '*)(|(uid=*', 'alice)(|(uid=*)', 'alice\\29', 'x)(objectClass=*'])(
    'does not let %j widen the filter',
    async (name) => {
      // With alice's password: a filter widened to match alice would let the bind succeed.
      expect(await login(searchThenBind(), name, slapd.alice.password)).toEqual(INVALID);
    },
  );

  it('fails (rejects) when the service account is refused', async () => {
    const ldap = searchThenBind({
      userSearch: { baseDn: slapd.people, bindDn: slapd.service.dn, bindPassword: 'not-it' },
    });
    const error: unknown = await login(ldap, 'alice', slapd.alice.password).catch((e: unknown) => e);
    expect(isOriginError(error, 'ORIGIN_GATEWAY_AUTH_DIRECTORY_UNAVAILABLE')).toBe(true);
    expect((error as Error).message).not.toContain('not-it');
  });
});

describe('directory down', () => {
  it('rejects with a 503 error, never a 401, and never names the password', async () => {
    const port = await freePort();
    const ldap = new LdapAuthenticator({
      url: `ldap://127.0.0.1:${port}`,
      userDn: 'uid={user},ou=people,dc=x',
    });
    const error: unknown = await login(ldap, 'alice', 'secret-pw-91').catch((e: unknown) => e);
    expect(isOriginError(error, 'ORIGIN_GATEWAY_AUTH_DIRECTORY_UNAVAILABLE')).toBe(true);
    expect((error as { httpStatus: number }).httpStatus).toBe(503);
    expect((error as Error).message).toContain(`ldap://127.0.0.1:${port}`);
    expect((error as Error).message).not.toContain('secret-pw-91');
  });

  it('rejects when the directory certificate is not trusted (verified by default)', async () => {
    for (const extra of [{ startTls: true }, { url: slapd.ldapsUrl }]) {
      const error: unknown = await login(bindAsUser(extra), 'alice', slapd.alice.password).catch(
        (e: unknown) => e,
      );
      expect(isOriginError(error, 'ORIGIN_GATEWAY_AUTH_DIRECTORY_UNAVAILABLE')).toBe(true);
      expect((error as Error).message).toMatch(/self.signed/i);
    }
  });
});

describe('TLS to the directory', () => {
  it('authenticates over StartTLS and over ldaps with the directory certificate trusted', async () => {
    const tls = { ca: [slapd.certificate] };
    for (const extra of [
      { startTls: true, tls },
      { url: slapd.ldapsUrl, tls },
    ]) {
      expect(await login(bindAsUser(extra), 'alice', slapd.alice.password)).toEqual({
        ok: true,
        user: { name: 'alice', roles: ['admins'] },
      });
      expect(await login(searchThenBind(extra), 'bob', 'wrong')).toEqual(INVALID);
    }
  });
});

describe('over HTTP', () => {
  let server: Server | undefined;
  afterEach(async () => {
    server?.close();
    if (server !== undefined) await once(server, 'close');
  });

  it('answers 200, 401 with the challenge, or 503 as the gateway will', async () => {
    const ldap = bindAsUser({ realm: 'ldap "realm"' });
    server = createServer((req, res) => {
      ldap.authenticate(req).then(
        (outcome) =>
          outcome.ok
            ? res.writeHead(200).end(outcome.user.roles.join(','))
            : res.writeHead(401, { 'www-authenticate': outcome.challenge }).end(),
        () => res.writeHead(503).end(),
      );
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    const good = await request(url, { headers: { authorization: basic('alice', slapd.alice.password) } });
    expect([good.statusCode, await good.body.text()]).toEqual([200, 'admins']);
    const bad = await request(url, { headers: { authorization: basic('alice', 'nope') } });
    await bad.body.dump();
    expect([bad.statusCode, bad.headers['www-authenticate']]).toEqual([
      401,
      'Basic realm="ldap \\"realm\\"", charset="UTF-8"',
    ]);
  });
});

describe('options and escaping', () => {
  it.each([
    [{ url: 'http://x', userDn: 'uid={user}' }, 'must be ldap://'],
    [{ url: 'ldaps://x:636', startTls: true, userDn: 'uid={user}' }, 'startTls applies'],
    [{ url: 'ldap://x' }, 'exactly one of'],
    [{ url: 'ldap://x', userDn: 'uid={user}', tls: { ca: [] } }, 'tls applies'],
    [{ url: 'ldap://x', userDn: 'uid=alice' }, 'must contain {user}'],
    [{ url: 'ldap://x', userDn: 'uid={user}', timeoutMs: 0 }, 'timeoutMs'],
    [{ url: 'ldap://x', userDn: 7 }, 'non-empty strings'],
    [{ url: 'ldap://x', userSearch: { baseDn: 'o=x' } }, 'userSearch must be'],
    [
      { url: 'ldap://x', userDn: 'uid={user}', groups: { baseDn: 'o=x', roles: { a: 'admin' } } },
      'groups must be',
    ],
  ])('refuses %j', (options, detail) => {
    expect(() => new LdapAuthenticator(options as LdapAuthenticatorOptions)).toThrow(detail);
  });

  it('escapes DN values per RFC 4514 and filter values per RFC 4515', () => {
    expect(escapeDnValue('a,b+c"d\\e<f>g;h=i')).toBe('a\\,b\\+c\\"d\\\\e\\<f\\>g\\;h\\=i');
    expect(escapeDnValue('#x ')).toBe('\\#x\\ ');
    expect(escapeDnValue(' ')).toBe('\\ ');
    expect(escapeDnValue('a\0b')).toBe('a\\00b');
    expect(escapeFilterValue('*)(uid=*\\')).toBe('\\2a\\29\\28uid=\\2a\\5c');
  });
});

describe('from a gateway file (kind "ldap")', () => {
  it('builds an authenticator that trusts caFile, read relative to the gateway file directory', async () => {
    const { mkdtempSync, rmSync, writeFileSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const dir = mkdtempSync(join(tmpdir(), 'gateway-ldap-file-'));
    try {
      writeFileSync(join(dir, 'ldap-ca.pem'), slapd.certificate);
      const ldap = ldapFromGatewayFile(
        {
          url: slapd.ldapsUrl,
          caFile: 'ldap-ca.pem',
          userDn: `uid={user},${slapd.people}`,
          groups: { baseDn: slapd.groups },
        },
        dir,
      );
      expect(await login(ldap, 'bob', slapd.bob.password)).toEqual({
        ok: true,
        user: { name: 'bob', roles: ['readers'] },
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it.each([
    [{ url: 'ldap://x', userDn: 'uid={user}', colour: 'red' }, '/colour', 'is not an LDAP option'],
    [{ url: 'ldaps://x', userDn: 'uid={user}', caFile: 'absent.pem' }, '/caFile', 'ENOENT'],
    [{ url: 'ldap://x' }, '', 'exactly one of'],
  ])('refuses %j with a ConfigError at %j', (options, path, message) => {
    let error: unknown;
    try {
      ldapFromGatewayFile(options, '/nonexistent-dir');
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).problems).toEqual([{ path, message: expect.stringContaining(message) }]);
  });
});

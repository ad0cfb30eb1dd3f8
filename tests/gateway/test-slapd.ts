import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stopProcess, waitForPort } from '../support/server-process';
import { freePort } from '../origin/origin-helpers';

export { freePort };

/** A user of the test directory: its name (uid), DN and password. */
export interface DirectoryUser {
  readonly uid: string;
  readonly dn: string;
  readonly password: string;
}

/** A throwaway OpenLDAP directory on a loopback port. */
export interface TestSlapd {
  /** `ldap://127.0.0.1:<port>` (StartTLS offered). */
  readonly url: string;
  /** `ldaps://127.0.0.1:<port>`. */
  readonly ldapsUrl: string;
  /** The directory's self-signed certificate (PEM), for the client's `ca`; subject alternative name 127.0.0.1. */
  readonly certificate: string;
  /** The throwaway suffix, `dc=gw<random>,dc=test`. */
  readonly suffix: string;
  /** `ou=people,<suffix>` and `ou=groups,<suffix>`. */
  readonly people: string;
  readonly groups: string;
  /** A service account that may search people and groups (for search-then-bind). */
  readonly service: { readonly dn: string; readonly password: string };
  /** alice: member of `cn=admins` (groupOfNames, `member`). */
  readonly alice: DirectoryUser;
  /** bob: member of `cn=readers` (posixGroup, `memberUid`). */
  readonly bob: DirectoryUser;
  /** A user whose name needs escaping in a DN and in a filter, in no group. */
  readonly odd: DirectoryUser;
  /** Stops slapd and removes its directory. */
  stop(): Promise<void>;
}

const SCHEMAS = ['core', 'cosine', 'nis', 'inetorgperson'];

/**
 * Starts a real OpenLDAP `slapd` (Debian `slapd`) in a temporary directory: a `slapd.conf` with an mdb database
 * under a random suffix, loaded with `slapadd` before start (people alice, bob and one oddly named user; groups
 * `admins` with `member` and `readers` with `memberUid`; a service account), listening on two free loopback ports:
 * `ldap://` (with StartTLS) and `ldaps://`, with a self-signed certificate made by `openssl` for 127.0.0.1.
 * Anonymous clients may only bind; bound users may read. Rejects (so that the test fails) when a tool is missing or
 * slapd does not come up.
 */
export async function startSlapd(): Promise<TestSlapd> {
  const dir = mkdtempSync(join(tmpdir(), 'gateway-slapd-'));
  let slapd: ChildProcess | undefined;
  try {
    const suffix = `dc=gw${randomBytes(4).toString('hex')},dc=test`;
    const people = `ou=people,${suffix}`;
    const groups = `ou=groups,${suffix}`;
    const service = { dn: `cn=gateway,ou=services,${suffix}`, password: 'service-pw-6b1d' };
    const user = (uid: string, dnValue: string, password: string): DirectoryUser => ({
      uid,
      dn: `uid=${dnValue},${people}`,
      password,
    });
    const alice = user('alice', 'alice', 'alice-pw-2c9e');
    const bob = user('bob', 'bob', 'bob-pw-a41f');
    const odd = user('pat (ops), r&d+it', 'pat (ops)\\2C r&d\\2Bit', 'pat-pw-0e77');
    mkdirSync(join(dir, 'db'));
    const certFile = join(dir, 'cert.pem');
    const keyFile = join(dir, 'key.pem');
    await run('openssl', [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-days',
      '1',
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
      '-keyout',
      keyFile,
      '-out',
      certFile,
    ]);
    const conf = join(dir, 'slapd.conf');
    writeFileSync(
      conf,
      [
        ...SCHEMAS.map((schema) => `include /etc/ldap/schema/${schema}.schema`),
        `pidfile ${join(dir, 'slapd.pid')}`,
        `argsfile ${join(dir, 'slapd.args')}`,
        `TLSCertificateFile ${certFile}`,
        `TLSCertificateKeyFile ${keyFile}`,
        'modulepath /usr/lib/ldap',
        'moduleload back_mdb',
        'database mdb',
        'maxsize 10485760',
        `suffix "${suffix}"`,
        `rootdn "cn=admin,${suffix}"`,
        `rootpw ${randomBytes(12).toString('hex')}`,
        `directory ${join(dir, 'db')}`,
        'access to attrs=userPassword by anonymous auth by * none',
        'access to * by users read by * none',
        '',
      ].join('\n'),
    );
    const hashes = await Promise.all(
      [service.password, alice.password, bob.password, odd.password].map(async (password) =>
        (await run('slappasswd', ['-s', password])).trim(),
      ),
    );
    const person = (entry: DirectoryUser, hash: string): string =>
      `dn: ${entry.dn}\nobjectClass: inetOrgPerson\nuid: ${entry.uid}\ncn: ${entry.uid}\nsn: ${entry.uid}\nuserPassword: ${hash}\n`;
    const ldif = [
      `dn: ${suffix}\nobjectClass: dcObject\nobjectClass: organization\no: gateway test\n`,
      `dn: ou=people,${suffix}\nobjectClass: organizationalUnit\nou: people\n`,
      `dn: ou=groups,${suffix}\nobjectClass: organizationalUnit\nou: groups\n`,
      `dn: ou=services,${suffix}\nobjectClass: organizationalUnit\nou: services\n`,
      `dn: ${service.dn}\nobjectClass: organizationalRole\nobjectClass: simpleSecurityObject\ncn: gateway\nuserPassword: ${hashes[0]}\n`,
      person(alice, hashes[1]!),
      person(bob, hashes[2]!),
      person(odd, hashes[3]!),
      `dn: cn=admins,${groups}\nobjectClass: groupOfNames\ncn: admins\nmember: ${alice.dn}\n`,
      `dn: cn=readers,${groups}\nobjectClass: posixGroup\ncn: readers\ngidNumber: 5001\nmemberUid: bob\n`,
    ].join('\n');
    writeFileSync(join(dir, 'data.ldif'), ldif);
    await run('slapadd', ['-f', conf, '-l', join(dir, 'data.ldif')]);
    const port = await freePort();
    const tlsPort = await freePort();
    const url = `ldap://127.0.0.1:${port}`;
    const ldapsUrl = `ldaps://127.0.0.1:${tlsPort}`;
    let output = '';
    // -d keeps slapd in the foreground (so it stops with this process); level 0 logs nothing but errors.
    const started = spawn('/usr/sbin/slapd', ['-f', conf, '-h', `${url}/ ${ldapsUrl}/`, '-d', '0'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    slapd = started;
    started.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    started.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    await waitForPort('slapd', port, started, () => output);
    await waitForPort('slapd', tlsPort, started, () => output);
    return {
      url,
      ldapsUrl,
      certificate: readFileSync(certFile, 'utf8'),
      suffix,
      people,
      groups,
      service,
      alice,
      bob,
      odd,
      stop: async () => {
        await stopProcess(started);
        rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    if (slapd !== undefined) await stopProcess(slapd);
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}

function run(command: string, args: readonly string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(command, args, { timeout: 20_000 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`${command} ${args.join(' ')} failed: ${error.message}\n${stderr}`));
      else resolve(stdout);
    });
  });
}

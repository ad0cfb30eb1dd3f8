import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync, readFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stopProcess, waitForPort } from '../support/server-process';
import { freePort } from '../origin/origin-helpers';

/** A throwaway MIT Kerberos KDC serving two realms on a loopback port, with its principals and keytabs. */
export interface TestKdc {
  readonly dir: string;
  /** The realm of the service and of the user (`MAIN.TEST`). */
  readonly realm: string;
  /** A second realm, whose principals the service must refuse (`OTHER.TEST`). */
  readonly otherRealm: string;
  /** The service principal, `HTTP/localhost@<realm>`. */
  readonly servicePrincipal: string;
  /** The keytab with the service's keys of both realms (as `kadmin ktadd` exports them). */
  readonly serviceKeytab: string;
  /** The krb5.conf the origin's process uses (KRB5_CONFIG): both realms, no host mapping. */
  readonly serverConfig: string;
  /** Runs `kinit` for `user` of `realm` into a new credential cache; resolves with the client's environment. */
  kinit(user: string, realm: string): Promise<KerberosClientEnv>;
  /** Stops the KDC and removes its directory. */
  stop(): Promise<void>;
}

/** The environment of a Kerberos client: its krb5.conf and credential cache. */
export interface KerberosClientEnv {
  readonly KRB5_CONFIG: string;
  readonly KRB5CCNAME: string;
}

const MASTER_PASSWORD = 'throwaway-master-key';

/**
 * Starts `krb5kdc` (Debian krb5-kdc) in a temporary directory for the realms MAIN.TEST and OTHER.TEST, on a free
 * loopback port (UDP and TCP), after creating both databases with `kdb5_util` and their principals with
 * `kadmin.local`: `HTTP/localhost` in each realm (exported to one keytab) and `alice` in each realm (each exported
 * to its own keytab, so that `kinit -k` needs no password prompt). Rejects (so the test fails) when any tool is
 * missing or the KDC does not come up.
 */
export async function startKdc(): Promise<TestKdc> {
  const dir = mkdtempSync(join(tmpdir(), 'origin-kdc-'));
  const realm = 'MAIN.TEST';
  const otherRealm = 'OTHER.TEST';
  let kdc: ChildProcess | undefined;
  try {
    const port = await freePort();
    const realmBlock = (name: string): string[] => [
      `  ${name} = {`,
      `    database_name = ${join(dir, `${name}.db`)}`,
      `    key_stash_file = ${join(dir, `${name}.stash`)}`,
      `    acl_file = ${join(dir, 'kadm5.acl')}`,
      '    max_life = 1h',
      '  }',
    ];
    writeFileSync(join(dir, 'kadm5.acl'), '');
    writeFileSync(
      join(dir, 'kdc.conf'),
      [
        '[kdcdefaults]',
        `  kdc_listen = 127.0.0.1:${port}`,
        `  kdc_tcp_listen = 127.0.0.1:${port}`,
        '[realms]',
        ...realmBlock(realm),
        ...realmBlock(otherRealm),
        '[logging]',
        `  kdc = FILE:${join(dir, 'kdc.log')}`,
        '',
      ].join('\n'),
    );
    // The origin's process maps no host to a realm; each client maps `localhost` to its own realm, so that it
    // asks its own realm's KDC for HTTP/localhost.
    const clientConfig = (hostRealm: string | undefined): string =>
      [
        '[libdefaults]',
        `  default_realm = ${hostRealm ?? realm}`,
        '  dns_lookup_kdc = false',
        '  dns_lookup_realm = false',
        '  dns_canonicalize_hostname = false',
        '  rdns = false',
        '  udp_preference_limit = 1',
        '[realms]',
        `  ${realm} = {`,
        `    kdc = 127.0.0.1:${port}`,
        '  }',
        `  ${otherRealm} = {`,
        `    kdc = 127.0.0.1:${port}`,
        '  }',
        ...(hostRealm === undefined ? [] : ['[domain_realm]', `  localhost = ${hostRealm}`]),
        '',
      ].join('\n');
    writeFileSync(join(dir, 'krb5.conf'), clientConfig(undefined));
    writeFileSync(join(dir, `client-${realm}.conf`), clientConfig(realm));
    writeFileSync(join(dir, `client-${otherRealm}.conf`), clientConfig(otherRealm));
    const env = {
      ...process.env,
      KRB5_CONFIG: join(dir, 'krb5.conf'),
      KRB5_KDC_PROFILE: join(dir, 'kdc.conf'),
    };
    const serviceKeytab = join(dir, 'http.keytab');
    for (const name of [realm, otherRealm]) {
      await run('kdb5_util', ['-r', name, 'create', '-s', '-P', MASTER_PASSWORD], env);
      const admin = (query: string): Promise<string> => run('kadmin.local', ['-r', name, '-q', query], env);
      await admin(`addprinc -randkey HTTP/localhost@${name}`);
      await admin(`addprinc -randkey alice@${name}`);
      await admin(`ktadd -k ${serviceKeytab} HTTP/localhost@${name}`);
      await admin(`ktadd -k ${join(dir, `alice-${name}.keytab`)} alice@${name}`);
    }
    kdc = spawn('krb5kdc', ['-n', '-r', realm, '-r', otherRealm], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    const started = kdc;
    let output = '';
    started.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    started.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    await waitForPort('krb5kdc', port, started, () => output);
    let counter = 0;
    return {
      dir,
      realm,
      otherRealm,
      servicePrincipal: `HTTP/localhost@${realm}`,
      serviceKeytab,
      serverConfig: join(dir, 'krb5.conf'),
      kinit: async (user, userRealm) => {
        const client = {
          KRB5_CONFIG: join(dir, `client-${userRealm}.conf`),
          KRB5CCNAME: `FILE:${join(dir, `cc-${user}-${userRealm}-${++counter}`)}`,
        };
        await run('kinit', ['-k', '-t', join(dir, `${user}-${userRealm}.keytab`), `${user}@${userRealm}`], {
          ...process.env,
          ...client,
        });
        return client;
      },
      stop: async () => {
        await stopProcess(started);
        rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    if (kdc) await stopProcess(kdc);
    const log = existsSync(join(dir, 'kdc.log')) ? readFileSync(join(dir, 'kdc.log'), 'utf8') : '';
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`The test KDC could not start: ${(error as Error).message}\n${log}`, { cause: error });
  }
}

function run(command: string, args: readonly string[], env: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(command, args, { env, timeout: 20_000 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`${command} ${args.join(' ')} failed: ${error.message}\n${stderr}`));
      else resolve(stdout);
    });
  });
}

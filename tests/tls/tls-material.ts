import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * TLS material made at test time with the real tools (openssl for keys and certificates, keytool for JKS and
 * for PKCS #12 truststores), in one temporary directory that {@link TlsMaterial.remove} deletes.
 *
 * Shared by every test that needs HTTPS: `makeTlsMaterial()` in `beforeAll`, `material.remove()` in `afterAll`.
 * A tool that fails makes the calling test fail (execFileSync throws); nothing is skipped.
 */
export interface TlsMaterial {
  /** The directory holding every file below; use it as `general.resourcesDirectory` for relative paths. */
  readonly dir: string;
  /** The password of every keystore, truststore and encrypted key made here. */
  readonly password: string;
  /** CA certificate (PEM text) that signed the server and the client certificates. */
  readonly caPem: string;
  /** A second, unrelated CA and a client certificate it signed: trusted by nobody here. */
  readonly otherCaPem: string;
  /** Server certificate for `localhost` and `127.0.0.1` (PEM text), and its unencrypted key. */
  readonly serverCertPem: string;
  readonly serverKeyPem: string;
  /** File names (relative to `dir`) of the server keystore in each kind. */
  readonly files: {
    /** Key + certificate chain in one PEM file, key unencrypted. */
    readonly pemKeystore: string;
    /** Key (encrypted with `password`) + certificate chain in one PEM file. */
    readonly encryptedPemKeystore: string;
    readonly pkcs12Keystore: string;
    readonly jksKeystore: string;
    /** The CA certificate as a PEM truststore, and as PKCS #12 and JKS truststores (keytool). */
    readonly pemTruststore: string;
    readonly pkcs12Truststore: string;
    readonly jksTruststore: string;
    /** A client certificate and key signed by the CA (PEM files), for mutual TLS. */
    readonly clientCert: string;
    readonly clientKey: string;
    /** A client certificate and key signed by the other CA. */
    readonly foreignClientCert: string;
    readonly foreignClientKey: string;
  };
  /** Reads a file of `dir` (e.g. a client key for undici's `connect` options). */
  read(name: string): Buffer;
  /** Absolute path of a file of `dir`. */
  path(name: string): string;
  /**
   * Makes another server certificate for `localhost`/`127.0.0.1` with `commonName`, signed by the CA, and writes
   * it (key + chain) to the PEM file `name`; returns its PEM certificate. Used to test certificate reloading.
   */
  issueServerPem(name: string, commonName: string): string;
  /** Deletes the directory. */
  remove(): void;
}

const PASSWORD = 'test-secret';

function run(command: string, args: readonly string[], cwd: string): void {
  execFileSync(command, args, { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
}

function makeCa(dir: string, name: string, commonName: string): void {
  run(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      `${name}.key`,
      '-out',
      `${name}.pem`,
      '-days',
      '2',
      '-subj',
      `/O=Test/CN=${commonName}`,
      '-addext',
      'basicConstraints=critical,CA:TRUE',
      '-addext',
      'keyUsage=critical,keyCertSign,cRLSign',
    ],
    dir,
  );
}

/** Issues `<name>.pem` / `<name>.key` signed by the CA `<ca>.pem`; `extensions` is an openssl extfile text. */
function issue(dir: string, ca: string, name: string, subject: string, extensions: string): void {
  run(
    'openssl',
    [
      'req',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      `${name}.key`,
      '-out',
      `${name}.csr`,
      '-subj',
      subject,
    ],
    dir,
  );
  writeFileSync(join(dir, `${name}.ext`), extensions);
  run(
    'openssl',
    [
      'x509',
      '-req',
      '-in',
      `${name}.csr`,
      '-CA',
      `${ca}.pem`,
      '-CAkey',
      `${ca}.key`,
      '-CAcreateserial',
      '-out',
      `${name}.pem`,
      '-days',
      '2',
      '-extfile',
      `${name}.ext`,
    ],
    dir,
  );
}

const SERVER_EXTENSIONS = 'subjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth\n';
const CLIENT_EXTENSIONS = 'extendedKeyUsage=clientAuth\n';

/** Makes the whole set described by {@link TlsMaterial} (a few seconds: RSA keys and a JVM for keytool). */
export function makeTlsMaterial(): TlsMaterial {
  const dir = mkdtempSync(join(tmpdir(), 'origin-tls-'));
  const file = (name: string): string => join(dir, name);
  const text = (name: string): string => readFileSync(file(name), 'utf8');

  makeCa(dir, 'ca', 'Test CA');
  makeCa(dir, 'other-ca', 'Other CA');
  issue(dir, 'ca', 'server', '/O=Test/CN=localhost', SERVER_EXTENSIONS);
  issue(dir, 'ca', 'client', '/O=Test/OU=Clients/CN=client one', CLIENT_EXTENSIONS);
  issue(dir, 'other-ca', 'foreign-client', '/O=Elsewhere/CN=intruder', CLIENT_EXTENSIONS);

  writeFileSync(file('server-keystore.pem'), text('server.key') + text('server.pem') + text('ca.pem'));
  run(
    'openssl',
    ['pkey', '-in', 'server.key', '-aes256', '-passout', `pass:${PASSWORD}`, '-out', 'server-encrypted.key'],
    dir,
  );
  writeFileSync(
    file('server-keystore-encrypted.pem'),
    text('server-encrypted.key') + text('server.pem') + text('ca.pem'),
  );
  run(
    'openssl',
    [
      'pkcs12',
      '-export',
      '-inkey',
      'server.key',
      '-in',
      'server.pem',
      '-certfile',
      'ca.pem',
      '-name',
      'server',
      '-passout',
      `pass:${PASSWORD}`,
      '-out',
      'server-keystore.p12',
    ],
    dir,
  );
  const keytool = (args: readonly string[]): void => run('keytool', [...args, '-noprompt'], dir);
  keytool([
    '-importkeystore',
    '-srckeystore',
    'server-keystore.p12',
    '-srcstoretype',
    'pkcs12',
    '-srcstorepass',
    PASSWORD,
    '-destkeystore',
    'server-keystore.jks',
    '-deststoretype',
    'jks',
    '-deststorepass',
    PASSWORD,
  ]);
  writeFileSync(file('truststore.pem'), text('ca.pem'));
  for (const [store, type] of [
    ['truststore.p12', 'pkcs12'],
    ['truststore.jks', 'jks'],
  ] as const) {
    keytool([
      '-importcert',
      '-alias',
      'test-ca',
      '-file',
      'ca.pem',
      '-keystore',
      store,
      '-storetype',
      type,
      '-storepass',
      PASSWORD,
    ]);
  }

  return {
    dir,
    password: PASSWORD,
    caPem: text('ca.pem'),
    otherCaPem: text('other-ca.pem'),
    serverCertPem: text('server.pem'),
    serverKeyPem: text('server.key'),
    files: {
      pemKeystore: 'server-keystore.pem',
      encryptedPemKeystore: 'server-keystore-encrypted.pem',
      pkcs12Keystore: 'server-keystore.p12',
      jksKeystore: 'server-keystore.jks',
      pemTruststore: 'truststore.pem',
      pkcs12Truststore: 'truststore.p12',
      jksTruststore: 'truststore.jks',
      clientCert: 'client.pem',
      clientKey: 'client.key',
      foreignClientCert: 'foreign-client.pem',
      foreignClientKey: 'foreign-client.key',
    },
    read: (name) => readFileSync(file(name)),
    path: file,
    issueServerPem: (name, commonName) => {
      const base = name.replace(/\.pem$/, '') + '-issued';
      issue(dir, 'ca', base, `/O=Test/CN=${commonName}`, SERVER_EXTENSIONS);
      writeFileSync(file(name), text(`${base}.key`) + text(`${base}.pem`) + text('ca.pem'));
      return text(`${base}.pem`);
    },
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** What {@link tlsTestFile} gives a test file. */
export interface TlsTestFile {
  /** The file's TLS material (made before its first test). */
  readonly material: TlsMaterial;
  /** What to undo after each test (an origin's stop, a client's close), run last first. */
  readonly stops: Array<() => Promise<void>>;
}

/**
 * Registers a test file's hooks around its TLS material: made once before the file's tests, removed after them;
 * the `stops` a test pushes run after it, last first. Call once at the top level of the file.
 */
export function tlsTestFile(): TlsTestFile {
  let material: TlsMaterial | undefined;
  const stops: Array<() => Promise<void>> = [];
  beforeAll(() => {
    material = makeTlsMaterial();
  });
  afterEach(async () => {
    for (const stop of stops.splice(0).reverse()) await stop();
  });
  afterAll(() => material?.remove());
  return {
    get material(): TlsMaterial {
      if (material === undefined) throw new Error('TLS material is made in beforeAll: read it inside a test');
      return material;
    },
    stops,
  };
}

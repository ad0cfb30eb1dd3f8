import { rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { connect, type ConnectionOptions, type SecureVersion } from 'node:tls';
import {
  ConfigError,
  InProcessRunnerPool,
  Origin,
  echoPipeline,
  type OriginConfigInput,
  type TlsCredentials,
} from 'rest-service-origin';
import { freePort } from '../origin/origin-helpers';
import { httpsAgent, sendHttps, startHttpsOrigin } from './https-client';
import { makeTlsMaterial, type TlsMaterial } from './tls-material';

let material: TlsMaterial;
const stops: Array<() => Promise<void>> = [];
const pool = new InProcessRunnerPool(2, echoPipeline, { runnerIdleTimeMs: 0 });

beforeAll(() => {
  material = makeTlsMaterial();
});

afterEach(async () => {
  for (const stop of stops.splice(0).reverse()) await stop();
});

afterAll(async () => {
  material.remove();
  await pool.close();
});

async function start(config: Partial<OriginConfigInput>, tlsCredentials?: TlsCredentials): Promise<string> {
  const started = await startHttpsOrigin(material, config, tlsCredentials ? { tlsCredentials } : {});
  stops.push(started.stop);
  return started.url;
}

function problemsOf(tls: OriginConfigInput['tls'], tlsCredentials?: TlsCredentials): string[] {
  try {
    new Origin(
      { dataFormat: { format: 'json' }, tls },
      { runners: pool, ...(tlsCredentials ? { tlsCredentials } : {}) },
    );
  } catch (error) {
    if (error instanceof ConfigError) return error.problems.map((p) => `${p.path} ${p.message}`);
    throw error;
  }
  return [];
}

/** Opens a raw TLS connection and reports what was negotiated, or the error. */
function handshake(
  url: string,
  options: ConnectionOptions,
): Promise<{ protocol?: string; cipher?: string; error?: string }> {
  const { port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect({
      host: '127.0.0.1',
      port: Number(port),
      ca: material.caPem,
      servername: 'localhost',
      ...options,
    });
    socket.once('secureConnect', () => {
      resolve({ protocol: socket.getProtocol() ?? '', cipher: socket.getCipher().name });
      socket.end();
    });
    socket.once('error', (error) => resolve({ error: error.message }));
  });
}

const pem = { keystoreType: 'pem', keystoreFile: 'server-keystore.pem' } as const;

describe('TLS configuration checked when the origin is made', () => {
  it('names an unknown cipher suite in a ConfigError', () => {
    expect(
      problemsOf({
        useTls: true,
        ...pem,
        useDefaultCipherSuites: false,
        cipherSuites: ['TLS_AES_128_GCM_SHA256', 'TLS_NO_SUCH_SUITE', 'HIGH'],
      }),
    ).toEqual([
      "/tls/cipherSuites/1 names an unknown cipher suite 'TLS_NO_SUCH_SUITE' (neither an IANA nor an OpenSSL name)",
      "/tls/cipherSuites/2 names an unknown cipher suite 'HIGH' (neither an IANA nor an OpenSSL name)",
    ]);
  });

  it('requires a keystore, and a truststore for client authentication', () => {
    expect(problemsOf({ useTls: true, requireClientAuthentication: true })).toEqual([
      '/tls/keystoreFile is required when useTls is true',
      '/tls/truststoreFile is required when requireClientAuthentication is true',
    ]);
    expect(problemsOf({ useTls: true, useRemoteKeystore: true })).toEqual([
      '/tls/privateKey is required when useTls and useRemoteKeystore are true',
      '/tls/certificateChain is required when useTls and useRemoteKeystore are true',
    ]);
  });

  it('refuses client authentication without TLS, and credential functions nothing uses', () => {
    expect(
      problemsOf({ requireClientAuthentication: true }, { privateKey: () => Promise.resolve('') }),
    ).toEqual([
      '/tls/privateKey has a credential function, but useRemoteKeystore is false',
      '/tls/requireClientAuthentication needs useTls: client certificates exist only over TLS',
    ]);
  });

  it('refuses a remote value given both in the config and as a credential function', () => {
    expect(
      problemsOf(
        { useTls: true, useRemoteKeystore: true, privateKey: 'x', certificateChain: ['y'] },
        { privateKey: () => Promise.resolve('') },
      ),
    ).toEqual(['/tls/privateKey is set and a credential function for it is given too; give one of them']);
  });

  it('accepts keystoreKeyAlgorithm and truststoreTrustAlgorithm, which change nothing on Node', () => {
    expect(
      problemsOf({ useTls: true, ...pem, keystoreKeyAlgorithm: 'SunX509', truststoreTrustAlgorithm: 'PKIX' }),
    ).toEqual([]);
  });
});

describe('protocols and cipher suites', () => {
  it('accepts IANA cipher suite names and negotiates the OpenSSL suite they name', async () => {
    const url = await start({
      tls: {
        useDefaultProtocols: false,
        transportProtocols: ['TLSv1.2'],
        useDefaultCipherSuites: false,
        cipherSuites: ['TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384'],
      },
    });
    expect(await handshake(url, {})).toEqual({ protocol: 'TLSv1.2', cipher: 'ECDHE-RSA-AES256-GCM-SHA384' });
    expect((await handshake(url, { ciphers: 'ECDHE-RSA-AES128-GCM-SHA256' })).error).toBeDefined();
  });

  it('serves only the listed protocols', async () => {
    const url = await start({ tls: { useDefaultProtocols: false, transportProtocols: ['TLSv1.3'] } });
    const version = (v: SecureVersion): ConnectionOptions => ({ minVersion: v, maxVersion: v });
    expect((await handshake(url, version('TLSv1.3'))).protocol).toBe('TLSv1.3');
    expect((await handshake(url, version('TLSv1.2'))).error).toBeDefined();
  });

  it('serves TLSv1.2 and TLSv1.3 by default', async () => {
    const url = await start({});
    expect((await handshake(url, { minVersion: 'TLSv1.2', maxVersion: 'TLSv1.2' })).protocol).toBe('TLSv1.2');
    expect((await handshake(url, { minVersion: 'TLSv1.3' })).protocol).toBe('TLSv1.3');
    expect((await handshake(url, { minVersion: 'TLSv1.1', maxVersion: 'TLSv1.1' })).error).toBeDefined();
  });
});

describe('loading the stores at start()', () => {
  it('refuses a relative keystore path that leads outside resourcesDirectory', async () => {
    await expect(start({ tls: { keystoreFile: '../server-keystore.pem' } })).rejects.toMatchObject({
      code: 'ORIGIN_TLS_FILE_OUTSIDE_RESOURCES',
    });
  });

  it('refuses a symbolic link inside resourcesDirectory that points outside it', async () => {
    const outside = `${material.dir}-outside.pem`;
    writeFileSync(outside, material.serverKeyPem + material.serverCertPem);
    stops.push(() => Promise.resolve(rmSync(outside)));
    symlinkSync(outside, material.path('link.pem'));
    await expect(start({ tls: { keystoreFile: 'link.pem' } })).rejects.toMatchObject({
      code: 'ORIGIN_TLS_FILE_OUTSIDE_RESOURCES',
    });
  });

  it('names a missing keystore file', async () => {
    await expect(start({ tls: { keystoreFile: 'missing.pem' } })).rejects.toMatchObject({
      code: 'ORIGIN_TLS_FILE_UNREADABLE',
      params: { option: 'keystoreFile', path: 'missing.pem' },
    });
  });

  it('fails the start on a wrong keystore password, for each kind', async () => {
    const wrong = { keystorePassword: 'wrong' };
    await expect(
      start({ tls: { ...wrong, keystoreType: 'pkcs12', keystoreFile: material.files.pkcs12Keystore } }),
    ).rejects.toMatchObject({ code: 'ORIGIN_TLS_MATERIAL_REFUSED' });
    await expect(
      start({ tls: { ...wrong, keystoreType: 'jks', keystoreFile: material.files.jksKeystore } }),
    ).rejects.toMatchObject({ code: 'ORIGIN_TLS_STORE_INVALID' });
    await expect(
      start({ tls: { ...wrong, keystoreType: 'pem', keystoreFile: material.files.encryptedPemKeystore } }),
    ).rejects.toMatchObject({ code: 'ORIGIN_TLS_MATERIAL_REFUSED' });
  });

  it('serves a remote keystore given as config values', async () => {
    const url = await start({
      tls: {
        useRemoteKeystore: true,
        privateKey: material.serverKeyPem,
        certificateChain: [material.serverCertPem],
      },
    });
    const agent = httpsAgent(material);
    stops.push(() => agent.close());
    expect((await sendHttps(url, agent, { body: '{}' })).status).toBe(200);
  });

  it('serves a remote keystore from the host credential functions, and names one that fails', async () => {
    const url = await start(
      { tls: { useRemoteKeystore: true } },
      {
        privateKey: () => Promise.resolve(material.serverKeyPem),
        certificateChain: () => Promise.resolve(material.serverCertPem + material.caPem),
      },
    );
    const agent = httpsAgent(material);
    stops.push(() => agent.close());
    expect((await sendHttps(url, agent, { body: '{}' })).status).toBe(200);

    await expect(
      start(
        { tls: { useRemoteKeystore: true } },
        {
          privateKey: () => Promise.reject(new Error('vault sealed')),
          certificateChain: () => Promise.resolve(material.serverCertPem),
        },
      ),
    ).rejects.toMatchObject({
      code: 'ORIGIN_TLS_CREDENTIAL_FAILED',
      message: 'The credential function for tls.privateKey failed: vault sealed.',
    });
  });
});

describe('port sharing', () => {
  it('lets HTTPS origins with identical TLS settings share a port, and refuses a plain one beside them', async () => {
    const port = await freePort();
    const http = (id: string): OriginConfigInput['http'] => ({
      host: '127.0.0.1',
      port,
      applicationIds: [id],
    });
    const first = await start({ http: http('a') });
    const second = await start({ http: http('b') });
    expect(second).toBe(first);
    const agent = httpsAgent(material);
    stops.push(() => agent.close());
    const answer = await sendHttps(second, agent, {
      body: '{"to":"b"}',
      headers: { 'X-ENGINE-APPLICATION-ID': 'b' },
    });
    expect(answer.status).toBe(200);

    const plain = new Origin({ http: http('c'), dataFormat: { format: 'json' } }, { runners: pool });
    await expect(plain.start()).rejects.toMatchObject({
      code: 'ORIGIN_LISTEN_PORT_SHARED',
      params: { reason: 'the TLS settings differ' },
    });
    await expect(
      start({
        http: http('d'),
        tls: {
          keystoreType: 'pkcs12',
          keystoreFile: material.files.pkcs12Keystore,
          keystorePassword: material.password,
        },
      }),
    ).rejects.toMatchObject({ code: 'ORIGIN_LISTEN_PORT_SHARED' });
  });
});

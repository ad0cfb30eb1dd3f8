import {
  SendResponse,
  type DataRecord,
  type OriginConfigInput,
  type TlsCredentials,
} from 'rest-service-origin';
import { curlHttps, httpsAgent, sendHttps, startHttpsOrigin, type ClientIdentity } from './https-client';
import { makeTlsMaterial, type TlsMaterial } from './tls-material';

let material: TlsMaterial;
const stops: Array<() => Promise<void>> = [];
let records: DataRecord[] = [];

beforeAll(() => {
  material = makeTlsMaterial();
});

afterEach(async () => {
  for (const stop of stops.splice(0).reverse()) await stop();
  records = [];
});

afterAll(() => material.remove());

const SUBJECT = 'CN=client one,OU=Clients,O=Test';
const ISSUER = 'CN=Test CA,O=Test';

async function startMutual(tls: OriginConfigInput['tls'], tlsCredentials?: TlsCredentials): Promise<string> {
  const started = await startHttpsOrigin(
    material,
    { tls: { requireClientAuthentication: true, ...tls } },
    {
      pipeline: (batch) => {
        records = batch.records;
        new SendResponse().write(batch);
      },
      ...(tlsCredentials ? { tlsCredentials } : {}),
    },
  );
  stops.push(started.stop);
  return started.url;
}

function agent(identity: ClientIdentity): ReturnType<typeof httpsAgent> {
  const made = httpsAgent(material, identity);
  stops.push(() => made.destroy());
  return made;
}

const pemTruststore = (): OriginConfigInput['tls'] => ({
  truststoreType: 'pem',
  truststoreFile: material.files.pemTruststore,
});

describe('mutual TLS', () => {
  const truststores = [
    ['PEM', pemTruststore],
    [
      'PKCS #12',
      () => ({
        truststoreType: 'pkcs12' as const,
        truststoreFile: material.files.pkcs12Truststore,
        truststorePassword: material.password,
      }),
    ],
    [
      'JKS',
      () => ({
        truststoreType: 'jks' as const,
        truststoreFile: material.files.jksTruststore,
        truststorePassword: material.password,
      }),
    ],
    ['remote (values)', () => ({ useRemoteTruststore: true, trustedCertificates: [material.caPem] })],
  ] as const;

  it.each(truststores)(
    'admits a client certificate signed by a CA of a %s truststore and puts its subject and issuer on the records',
    async (_kind, truststore) => {
      const url = await startMutual(truststore());
      const answer = await sendHttps(url, agent('trusted'), { body: '{"a":1}' });
      expect(answer.status).toBe(200);
      expect(records).toHaveLength(1);
      expect(records[0]?.header.getAttribute('tlsClientSubject')).toBe(SUBJECT);
      expect(records[0]?.header.getAttribute('tlsClientIssuer')).toBe(ISSUER);
    },
  );

  it('takes the trusted certificates from a credential function the host supplies', async () => {
    let calls = 0;
    const url = await startMutual(
      { useRemoteTruststore: true },
      {
        trustedCertificates: () => {
          calls += 1;
          return Promise.resolve(material.caPem);
        },
      },
    );
    expect(calls).toBe(1);
    expect((await sendHttps(url, agent('trusted'), { body: '{}' })).status).toBe(200);
  });

  it('fails the handshake of a client without a certificate (undici and curl)', async () => {
    const url = await startMutual(pemTruststore());
    await expect(sendHttps(url, agent('none'), { body: '{}' })).rejects.toThrow();
    const curl = await curlHttps(url, material, { body: '{}' });
    expect(curl.exitCode).not.toBe(0);
    // No HTTP answer at all: curl reports status 000.
    expect(curl.stdout.split('\n').pop()).toBe('000');
    expect(curl.stderr).toMatch(/certificate required/);
    expect(records).toEqual([]);
  });

  it('fails the handshake of a client whose certificate another CA signed (undici and curl)', async () => {
    const url = await startMutual(pemTruststore());
    await expect(sendHttps(url, agent('foreign'), { body: '{}' })).rejects.toThrow();
    const curl = await curlHttps(url, material, { body: '{}', identity: 'foreign' });
    expect(curl.exitCode).not.toBe(0);
    expect(curl.stdout.split('\n').pop()).toBe('000');
    expect(records).toEqual([]);
  });

  it('admits the trusted client through curl too', async () => {
    const url = await startMutual(pemTruststore());
    const curl = await curlHttps(url, material, { body: '{"c":1}', identity: 'trusted' });
    expect(curl.stdout.split('\n').pop()).toBe('200');
    expect(records[0]?.header.getAttribute('tlsClientSubject')).toBe(SUBJECT);
  });

  it('keeps the verified subject when the client sends headers of the same names', async () => {
    const url = await startMutual(pemTruststore());
    await sendHttps(url, agent('trusted'), {
      body: '{}',
      headers: { tlsClientSubject: 'CN=admin', TLSCLIENTISSUER: 'CN=Forged CA' },
    });
    expect(records[0]?.header.getAttribute('tlsClientSubject')).toBe(SUBJECT);
    expect(records[0]?.header.getAttribute('tlsClientIssuer')).toBe(ISSUER);
    expect(records[0]?.header.getAttribute('TLSCLIENTISSUER')).toBeUndefined();
  });

  it('drops forged client certificate headers when mutual TLS is off', async () => {
    const started = await startHttpsOrigin(
      material,
      {},
      {
        pipeline: (batch) => {
          records = batch.records;
        },
      },
    );
    stops.push(started.stop);
    await sendHttps(started.url, agent('none'), { body: '{}', headers: { tlsClientSubject: 'CN=admin' } });
    expect(records[0]?.header.getAttribute('tlsClientSubject')).toBeUndefined();
  });
});

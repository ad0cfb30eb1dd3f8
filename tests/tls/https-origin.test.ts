import { curlHttps, httpsAgent, sendHttps, startHttpsOrigin } from './https-client';
import { makeTlsMaterial, type TlsMaterial } from './tls-material';
import type { OriginConfigInput } from 'rest-service-origin';

let material: TlsMaterial;
const stops: Array<() => Promise<void>> = [];

beforeAll(() => {
  material = makeTlsMaterial();
});

afterEach(async () => {
  for (const stop of stops.splice(0).reverse()) await stop();
});

afterAll(() => material.remove());

async function startHttps(tls: OriginConfigInput['tls']): Promise<{ url: string }> {
  const started = await startHttpsOrigin(material, { tls });
  stops.push(started.stop);
  return started;
}

describe('HTTPS with each keystore kind', () => {
  const kinds = [
    ['PEM', () => ({ keystoreType: 'pem' as const, keystoreFile: material.files.pemKeystore })],
    [
      'PEM with an encrypted key',
      () => ({
        keystoreType: 'pem' as const,
        keystoreFile: material.files.encryptedPemKeystore,
        keystorePassword: material.password,
      }),
    ],
    [
      'PKCS #12',
      () => ({
        keystoreType: 'pkcs12' as const,
        keystoreFile: material.files.pkcs12Keystore,
        keystorePassword: material.password,
      }),
    ],
    [
      'JKS',
      () => ({
        keystoreType: 'jks' as const,
        keystoreFile: material.files.jksKeystore,
        keystorePassword: material.password,
      }),
    ],
  ] as const;

  it.each(kinds)('answers undici and curl over HTTPS with a %s keystore', async (_kind, tls) => {
    const { url } = await startHttps(tls());
    expect(url).toMatch(/^https:\/\/127\.0\.0\.1:\d+\/$/);
    const agent = httpsAgent(material);
    stops.push(() => agent.close());
    const answer = await sendHttps(url, agent, { body: '{"hello":"tls"}' });
    expect(answer.status).toBe(200);
    expect(answer.json).toMatchObject({ httpStatusCode: 200, data: [{ hello: 'tls' }] });

    const curl = await curlHttps(url, material, { body: '{"via":"curl"}' });
    expect(curl.stderr).toBe('');
    expect(curl.exitCode).toBe(0);
    const [body, status] = curl.stdout.split('\n');
    expect(status).toBe('200');
    expect(JSON.parse(body ?? '')).toMatchObject({ data: [{ via: 'curl' }] });
  });

  it('reads a keystore given by an absolute path', async () => {
    const { url } = await startHttps({
      keystoreType: 'pem',
      keystoreFile: material.path(material.files.pemKeystore),
    });
    const agent = httpsAgent(material);
    stops.push(() => agent.close());
    expect((await sendHttps(url, agent, { body: '{}' })).status).toBe(200);
  });

  it('does not answer plain HTTP on the HTTPS port', async () => {
    const { url } = await startHttps({ keystoreType: 'pem', keystoreFile: material.files.pemKeystore });
    const curl = await curlHttps(url.replace('https:', 'http:'), material, { body: '{}' });
    expect(curl.stdout.trim().split('\n').pop()).not.toBe('200');
  });
});

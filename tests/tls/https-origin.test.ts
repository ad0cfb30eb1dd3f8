import { curlHttps, httpsAgent, sendHttps, startHttpsOrigin } from './https-client';
import { tlsTestFile } from './tls-material';
import type { OriginConfigInput } from 'rest-service-origin';

const suite = tlsTestFile();

async function startHttps(tls: OriginConfigInput['tls']): Promise<{ url: string }> {
  const started = await startHttpsOrigin(suite.material, { tls });
  suite.stops.push(started.stop);
  return started;
}

describe('HTTPS with each keystore kind', () => {
  const kinds = [
    ['PEM', () => ({ keystoreType: 'pem' as const, keystoreFile: suite.material.files.pemKeystore })],
    [
      'PEM with an encrypted key',
      () => ({
        keystoreType: 'pem' as const,
        keystoreFile: suite.material.files.encryptedPemKeystore,
        keystorePassword: suite.material.password,
      }),
    ],
    [
      'PKCS #12',
      () => ({
        keystoreType: 'pkcs12' as const,
        keystoreFile: suite.material.files.pkcs12Keystore,
        keystorePassword: suite.material.password,
      }),
    ],
    [
      'JKS',
      () => ({
        keystoreType: 'jks' as const,
        keystoreFile: suite.material.files.jksKeystore,
        keystorePassword: suite.material.password,
      }),
    ],
  ] as const;

  it.each(kinds)('answers undici and curl over HTTPS with a %s keystore', async (_kind, tls) => {
    const { url } = await startHttps(tls());
    expect(url).toMatch(/^https:\/\/127\.0\.0\.1:\d+\/$/);
    const agent = httpsAgent(suite.material);
    suite.stops.push(() => agent.close());
    const answer = await sendHttps(url, agent, { body: '{"hello":"tls"}' });
    expect(answer.status).toBe(200);
    expect(answer.json).toMatchObject({ httpStatusCode: 200, data: [{ hello: 'tls' }] });

    const curl = await curlHttps(url, suite.material, { body: '{"via":"curl"}' });
    expect(curl.stderr).toBe('');
    expect(curl.exitCode).toBe(0);
    const [body, status] = curl.stdout.split('\n');
    expect(status).toBe('200');
    expect(JSON.parse(body ?? '')).toMatchObject({ data: [{ via: 'curl' }] });
  });

  it('reads a keystore given by an absolute path', async () => {
    const { url } = await startHttps({
      keystoreType: 'pem',
      keystoreFile: suite.material.path(suite.material.files.pemKeystore),
    });
    const agent = httpsAgent(suite.material);
    suite.stops.push(() => agent.close());
    expect((await sendHttps(url, agent, { body: '{}' })).status).toBe(200);
  });

  it('does not answer plain HTTP on the HTTPS port', async () => {
    const { url } = await startHttps({ keystoreType: 'pem', keystoreFile: suite.material.files.pemKeystore });
    const curl = await curlHttps(url.replace('https:', 'http:'), suite.material, { body: '{}' });
    expect(curl.stdout.trim().split('\n').pop()).not.toBe('200');
  });
});

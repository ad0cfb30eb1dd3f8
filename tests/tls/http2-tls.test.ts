import type { ClientHttp2Session } from 'node:http2';
import { Agent, request } from 'undici';
import { DataRecord, SendResponse, type Pipeline } from 'rest-service-origin';
import { h2Request, h2Session } from '../origin/http2-client';
import { curlHttps, httpsAgent, sendHttps, startHttpsOrigin } from './https-client';
import { tlsTestFile } from './tls-material';
import type { OriginConfigInput } from 'rest-service-origin';

const suite = tlsTestFile();

/** Answers every request with its header attributes, as one record. */
const attributesPipeline: Pipeline = (batch) => {
  new SendResponse().write(batch, [new DataRecord({ ...batch.request!.headers })]);
};

async function startH2(config: Partial<OriginConfigInput> = {}, pipeline?: Pipeline): Promise<string> {
  const started = await startHttpsOrigin(
    suite.material,
    { ...config, http: { http2: true, maxConcurrentRequests: 4, ...config.http } },
    pipeline === undefined ? {} : { pipeline },
  );
  suite.stops.push(started.stop);
  return started.url;
}

async function session(
  url: string,
  options: Parameters<typeof h2Session>[1] = {},
): Promise<ClientHttp2Session> {
  const opened = await h2Session(url, { ca: suite.material.caPem, ...options });
  suite.stops.push(async () => void opened.destroy());
  return opened;
}

describe('HTTP/2 over TLS: ALPN offers h2 and http/1.1 on one port', () => {
  it('answers curl --http2 over HTTP/2 and curl --http1.1 over HTTP/1.1', async () => {
    const url = await startH2();
    const h2 = await curlHttps(url, suite.material, {
      body: '{"over":"h2"}',
      extraArgs: ['--http2', '-w', '\n%{http_code} %{http_version}'],
    });
    expect(h2.stderr).toBe('');
    expect(h2.stdout).toMatch(/"data":\[\{"over":"h2"\}\][\s\S]*\n200 2$/);
    const h1 = await curlHttps(url, suite.material, {
      body: '{"over":"h1"}',
      extraArgs: ['--http1.1', '-w', '\n%{http_code} %{http_version}'],
    });
    expect(h1.stdout).toMatch(/"data":\[\{"over":"h1"\}\][\s\S]*\n200 1\.1$/);
  });

  it('answers undici with allowH2 over HTTP/2, and undici without it over HTTP/1.1', async () => {
    const url = await startH2({}, attributesPipeline);
    const h2Agent = new Agent({ allowH2: true, connect: { ca: suite.material.caPem } });
    suite.stops.push(() => h2Agent.close());
    const answer = await request(url, { dispatcher: h2Agent, method: 'POST', body: '{}' });
    expect(answer.statusCode).toBe(200);
    const h2Attributes = ((await answer.body.json()) as { data: Record<string, string>[] }).data[0]!;
    // undici sends `host` over HTTP/1.1; over HTTP/2 it sends `:authority`, which becomes `Host`.
    expect(h2Attributes['Host']).toBe(new URL(url).host);
    expect(Object.keys(h2Attributes).filter((name) => name.startsWith(':'))).toEqual([]);
    const h1Agent = httpsAgent(suite.material);
    suite.stops.push(() => h1Agent.close());
    const h1 = await sendHttps(url, h1Agent, { body: '{}' });
    expect(h1.status).toBe(200);
    expect((h1.json as { data: Record<string, string>[] }).data[0]).toMatchObject({
      host: new URL(url).host,
    });
  });

  it("answers node:http2's connect over TLS", async () => {
    const url = await startH2();
    const h2 = await session(url);
    expect(h2.alpnProtocol).toBe('h2');
    const answer = await h2Request(h2, { body: '{"node":"h2"}' });
    expect(answer.status).toBe(200);
    expect(answer.json).toMatchObject({ data: [{ node: 'h2' }] });
  });

  it('asks HTTP/2 clients for basic credentials as HTTP/1.1 ones', async () => {
    const url = await startH2({ tls: { basicAuthenticationUsers: [{ user: 'ann', password: 'secret' }] } });
    const h2 = await session(url);
    const refused = await h2Request(h2, { body: '{}' });
    expect(refused.status).toBe(401);
    expect(refused.headers['www-authenticate']).toMatch(/^Basic realm=/);
    const credentials = Buffer.from('ann:secret').toString('base64');
    const admitted = await h2Request(h2, {
      body: '{"a":1}',
      headers: { authorization: `Basic ${credentials}` },
    });
    expect(admitted.status).toBe(200);
  });

  it('under mutual TLS gives HTTP/2 requests the verified client certificate attributes', async () => {
    const url = await startH2(
      {
        tls: {
          requireClientAuthentication: true,
          truststoreType: 'pem',
          truststoreFile: suite.material.files.pemTruststore,
        },
      },
      attributesPipeline,
    );
    const h2 = await session(url, {
      cert: suite.material.read(suite.material.files.clientCert),
      key: suite.material.read(suite.material.files.clientKey),
    });
    const answer = await h2Request(h2, { body: '{}', headers: { tlsclientsubject: 'CN=forged' } });
    expect(answer.status).toBe(200);
    const attributes = (answer.json as { data: Record<string, string>[] }).data[0]!;
    expect(attributes['tlsClientSubject']).toMatch(/CN=/);
    expect(attributes['tlsClientSubject']).not.toBe('CN=forged');
    // Without a certificate the handshake fails (TLS 1.3 reports it on the first read, after 'connect').
    const stranger = async (): Promise<unknown> => {
      const opened = await h2Session(url, { ca: suite.material.caPem });
      try {
        return await h2Request(opened, { body: '{}' });
      } finally {
        opened.destroy();
      }
    };
    await expect(stranger()).rejects.toThrow();
  });
});

import { request as httpRequest } from 'node:http';
import { ConfigError, echoPipeline, resolveConfig, type DataRecord } from 'rest-service-origin';
import { defaultRegistry } from '../../src/formats/built-in';
import { DATA_300, TEMPLATE_300, v9 } from '../formats/datagram/netflow/netflow-packets';
import { startOrigin, type TestConfig, type TestOrigin } from './origin-helpers';

/** POSTs `body` from the loopback address `localAddress`, and resolves with the answer's status and text. */
function post(
  url: string,
  body: string | Uint8Array,
  headers: Record<string, string>,
  localAddress = '127.0.0.1',
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: 'POST', headers, localAddress }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('http.trustedProxies', () => {
  let running: TestOrigin | undefined;
  let seen: { remoteHost: string | undefined; forwarded: string | undefined; eventHost: string }[] = [];
  afterEach(async () => {
    await running?.stop();
    running = undefined;
    seen = [];
  });

  async function start(config: TestConfig): Promise<string> {
    running = await startOrigin(config, (batch, signal) => {
      const record: DataRecord | undefined = batch.records[0];
      seen.push({
        remoteHost: record?.header.getAttribute('remoteHost'),
        forwarded: record?.header.getAttribute('X-Forwarded-For'),
        eventHost: batch.request?.remoteHost ?? '',
      });
      return echoPipeline(batch, signal);
    });
    return running.url;
  }

  it('leaves remoteHost the TCP peer without trusted proxies: a forged X-Forwarded-For is a plain header', async () => {
    const url = await start({});
    await post(url, '{}', { 'X-Forwarded-For': '198.51.100.7', Forwarded: 'for=198.51.100.8' });
    expect(seen).toEqual([{ remoteHost: '127.0.0.1', forwarded: '198.51.100.7', eventHost: '127.0.0.1' }]);
  });

  it('takes the client from X-Forwarded-For only when the peer is a trusted proxy', async () => {
    const url = await start({ http: { trustedProxies: ['127.0.0.1'] } });
    const events: string[] = [];
    running!.origin.on('request', (info) => events.push(info.remoteHost));
    // From the proxy: its header names the client.
    await post(url, '{}', { 'X-Forwarded-For': '203.0.113.9, 198.51.100.7' });
    // From an untrusted peer (bound to 127.0.0.2): its header changes nothing.
    await post(url, '{}', { 'X-Forwarded-For': '198.51.100.7' }, '127.0.0.2');
    // From the proxy, with a malformed header: the proxy is the client.
    await post(url, '{}', { 'X-Forwarded-For': 'not an address' });
    expect(seen.map((s) => [s.remoteHost, s.eventHost])).toEqual([
      ['198.51.100.7', '198.51.100.7'],
      ['127.0.0.2', '127.0.0.2'],
      ['127.0.0.1', '127.0.0.1'],
    ]);
    expect(events).toEqual(['198.51.100.7', '127.0.0.2', '127.0.0.1']);
  });

  it('trusts CIDR ranges and IPv6, and reads Forwarded with trustedProxyHeader forwarded', async () => {
    const url = await start({
      http: { host: '::1', trustedProxies: ['::1', '10.0.0.0/8'], trustedProxyHeader: 'forwarded' },
    });
    await post(
      url,
      '{}',
      {
        Forwarded: 'for="[2001:db8:cafe::17]:4711", for=10.1.2.3;proto=http',
        'X-Forwarded-For': '198.51.100.7',
      },
      '::1',
    );
    expect(seen[0]?.remoteHost).toBe('2001:db8:cafe::17');
  });

  it('keys NetFlow v9 templates by the forwarded client address, so two exporters behind one proxy stay apart', async () => {
    const url = await start({
      http: { trustedProxies: ['127.0.0.1'] },
      dataFormat: { format: 'datagram', datagram: { packetFormat: 'netflow' } },
    });
    const exporterA = { 'X-Forwarded-For': '192.0.2.1' };
    const exporterB = { 'X-Forwarded-For': '192.0.2.2' };
    expect((await post(url, v9(1, TEMPLATE_300), exporterA)).status).toBe(200);
    const fromB = await post(url, v9(1, DATA_300), exporterB);
    expect(fromB.text).toMatch(/ORIGIN_NETFLOW_TEMPLATE_UNKNOWN/);
    const fromA = await post(url, v9(1, DATA_300), exporterA);
    expect(JSON.parse(fromA.text)).toMatchObject({ error: [], data: [{ values: { L4_SRC_PORT: 443 } }] });
  });

  it('refuses entries that are neither an address nor a CIDR range, naming each', () => {
    let error: unknown;
    try {
      resolveConfig(
        {
          http: { trustedProxies: ['10.0.0.1', '10.0.0.0/33', 'proxy.example', '::1/129'] },
          dataFormat: { format: 'json' },
        },
        defaultRegistry,
      );
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).problems.map((p) => p.path)).toEqual([
      '/http/trustedProxies/1',
      '/http/trustedProxies/2',
      '/http/trustedProxies/3',
    ]);
  });
});

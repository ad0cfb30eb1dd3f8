import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { writeFileSync } from 'node:fs';
import type { TLSSocket } from 'node:tls';
import { InProcessRunnerPool, Origin, echoPipeline, isOriginError } from 'rest-service-origin';
import { startHttpsOrigin, type HttpsTestOrigin } from './https-client';
import { makeTlsMaterial, type TlsMaterial } from './tls-material';

let material: TlsMaterial;
const stops: Array<() => Promise<void> | void> = [];

beforeAll(() => {
  material = makeTlsMaterial();
});

afterEach(async () => {
  for (const stop of stops.splice(0).reverse()) await stop();
});

afterAll(() => material.remove());

interface Answer {
  status: number;
  body: string;
  /** The common name of the certificate the server presented on this request's connection. */
  serverName: string;
  /** The client's port of the connection, which tells one connection from another. */
  localPort: number;
}

/** POSTs `{}` over `agent` (node:https, so the connection's peer certificate can be read). */
function post(url: string, agent: HttpsAgent): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(url, { method: 'POST', agent, ca: material.caPem }, (res) => {
      const socket = res.socket as TLSSocket;
      const serverName = String(socket.getPeerCertificate().subject.CN);
      const localPort = socket.localPort ?? 0;
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body, serverName, localPort }));
    });
    req.on('error', reject);
    req.end('{}');
  });
}

function keepAliveAgent(): HttpsAgent {
  const agent = new HttpsAgent({ keepAlive: true, maxSockets: 1 });
  stops.push(() => agent.destroy());
  return agent;
}

async function startReloadable(): Promise<HttpsTestOrigin> {
  material.issueServerPem('reload.pem', 'first.example');
  const started = await startHttpsOrigin(material, {
    tls: { keystoreType: 'pem', keystoreFile: 'reload.pem' },
  });
  stops.push(started.stop);
  return started;
}

describe('reloadTls()', () => {
  it('serves the new certificate to a new connection while an open keep-alive connection keeps working', async () => {
    const { origin, url } = await startReloadable();
    const kept = keepAliveAgent();
    const before = await post(url, kept);
    expect(before).toMatchObject({ status: 200, serverName: 'first.example' });

    material.issueServerPem('reload.pem', 'second.example');
    await origin.reloadTls();

    const onOpenConnection = await post(url, kept);
    expect(onOpenConnection).toMatchObject({ status: 200, serverName: 'first.example' });
    expect(onOpenConnection.localPort).toBe(before.localPort);

    const onNewConnection = await post(url, keepAliveAgent());
    expect(onNewConnection).toMatchObject({ status: 200, serverName: 'second.example' });
    expect(onNewConnection.localPort).not.toBe(before.localPort);
    expect(new URL(url).port).toBe(new URL(origin.url ?? '').port);
  });

  it('keeps the certificate in force when the new material cannot be loaded', async () => {
    const { origin, url } = await startReloadable();
    writeFileSync(material.path('reload.pem'), 'not a keystore');
    const failed = await origin.reloadTls().then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(isOriginError(failed, 'ORIGIN_TLS_STORE_INVALID')).toBe(true);
    expect(await post(url, keepAliveAgent())).toMatchObject({ status: 200, serverName: 'first.example' });
  });

  it('is refused with ORIGIN_TLS_NOT_ENABLED on a plain HTTP origin', async () => {
    const pool = new InProcessRunnerPool(1, echoPipeline, { runnerIdleTimeMs: 0 });
    const origin = new Origin(
      { http: { host: '127.0.0.1', port: 0 }, dataFormat: { format: 'json' } },
      { runners: pool },
    );
    stops.push(() => pool.close());
    stops.push(() => origin.destroy());
    await origin.start();
    await expect(origin.reloadTls()).rejects.toMatchObject({ code: 'ORIGIN_TLS_NOT_ENABLED' });
  });

  it('is refused with ORIGIN_STATE_INVALID before start', async () => {
    const pool = new InProcessRunnerPool(1, echoPipeline, { runnerIdleTimeMs: 0 });
    stops.push(() => pool.close());
    const origin = new Origin(
      {
        general: { resourcesDirectory: material.dir },
        dataFormat: { format: 'json' },
        tls: { useTls: true, keystoreType: 'pem', keystoreFile: material.files.pemKeystore },
      },
      { runners: pool },
    );
    await expect(origin.reloadTls()).rejects.toMatchObject({ code: 'ORIGIN_STATE_INVALID' });
  });
});

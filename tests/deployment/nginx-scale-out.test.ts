import { Pool } from 'undici';
import { startNginx } from '../support/nginx';
import { freePort } from '../support/free-port';
import { OriginInstance, describeScaleOut, runScaleOut } from '../support/scale-out';

// Origin processes behind a real nginx (Debian nginx-light), started and stopped by the test with its own config
// in a temp directory.
describe('two origins behind nginx', () => {
  it('spread the load, see the client address, and lose nothing when one is drained and removed under load', async () => {
    const result = await runScaleOut({
      requests: 600,
      concurrency: 8,
      drainAfter: 200,
      clientAddress: '127.0.0.2',
    });
    console.log(describeScaleOut(result));
    expect(result.transportErrors).toBe(0);
    // Every request was answered 200: nginx sent the ones the closing instance refused (503) to the other.
    expect(result.statuses).toEqual({ '200': 600 });
    // Round robin: both served before the drain.
    expect(result.servedBefore['a']).toBeGreaterThan(0);
    expect(result.servedBefore['b']).toBeGreaterThan(0);
    // nginx connects from 127.0.0.1, which the origins trust; the client sent from 127.0.0.2.
    expect(result.remoteHosts).toEqual({ '127.0.0.2': 600 });
    expect(result.processed['a']! + result.processed['b']!).toBe(600);
    expect(result.lost).toBe(0);
    expect(result.duplicated).toBe(0);
  });
});

it('ignores a client-supplied X-Forwarded-For hop that nginx did not write', async () => {
  const origin = new OriginInstance('a', await freePort());
  let nginx: Awaited<ReturnType<typeof startNginx>> | undefined;
  let pool: Pool | undefined;
  try {
    await origin.listening();
    nginx = await startNginx({ port: await freePort(), upstreams: [origin.port] });
    pool = new Pool(nginx.url, { localAddress: '127.0.0.2' });
    // nginx appends the client's address to the header the client sent: "203.0.113.5, 127.0.0.2". Walked from
    // the right, 127.0.0.2 is the first address the origin does not trust, so the forged hop changes nothing.
    const answer = await pool.request({
      path: '/',
      method: 'POST',
      headers: { 'x-forwarded-for': '203.0.113.5' },
      body: '{"n":1}',
    });
    const envelope = (await answer.body.json()) as { data: { remoteHost: string }[] };
    expect(envelope.data[0]?.remoteHost).toBe('127.0.0.2');
  } finally {
    await pool?.close();
    await nginx?.stop();
    await origin.kill();
  }
});

it('keeps each exporter on one instance with hash $remote_addr consistent (affinity for NetFlow v9 templates)', async () => {
  const instances = [new OriginInstance('a', await freePort()), new OriginInstance('b', await freePort())];
  let nginx: Awaited<ReturnType<typeof startNginx>> | undefined;
  try {
    await Promise.all(instances.map((instance) => instance.listening()));
    nginx = await startNginx({
      port: await freePort(),
      upstreams: instances.map((instance) => instance.port),
      balance: 'hash $remote_addr consistent',
    });
    const servedBy = new Map<string, Set<string>>();
    for (const exporter of ['127.0.0.2', '127.0.0.3', '127.0.0.4', '127.0.0.5', '127.0.0.6']) {
      const seen = new Set<string>();
      for (let i = 0; i < 6; i++) {
        // A new connection each time, so that nothing but the hash keeps the exporter on its instance.
        const pool = new Pool(nginx.url, { localAddress: exporter, pipelining: 0 });
        const answer = await pool.request({ path: '/', method: 'POST', body: '{"n":1}' });
        await answer.body.text();
        seen.add(String(answer.headers['x-served-by']));
        await pool.close();
      }
      servedBy.set(exporter, seen);
    }
    for (const seen of servedBy.values()) expect(seen.size).toBe(1);
  } finally {
    await nginx?.stop();
    await Promise.all(instances.map((instance) => instance.kill()));
  }
});

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DATA_300, TEMPLATE_300, v9 } from '../formats/datagram/netflow/netflow-packets';
import { injectOrigin, type ServedOrigin } from './origin-helpers';

describe('origin receiving NetFlow v9 datagrams', () => {
  let running: ServedOrigin | undefined;
  afterEach(async () => {
    await running?.stop();
    running = undefined;
  });

  it('keeps templates for the life of the origin: template in one request, data in the next', async () => {
    running = injectOrigin({
      dataFormat: { format: 'datagram', datagram: { packetFormat: 'netflow' } },
    });
    const unknown = await running.send({ body: Buffer.from(v9(1, DATA_300)) });
    expect((unknown.json as { errorMessage: string }).errorMessage).toMatch(
      /^ORIGIN_NETFLOW_TEMPLATE_UNKNOWN - /,
    );

    const template = await running.send({ body: Buffer.from(v9(1, TEMPLATE_300)) });
    expect(template.status).toBe(200);

    const data = await running.send({ body: Buffer.from(v9(1, DATA_300)) });
    const envelope = data.json as { data: { values: Record<string, unknown> }[]; error: unknown[] };
    expect(envelope.error).toEqual([]);
    expect(envelope.data).toHaveLength(1);
    expect(envelope.data[0]?.values).toMatchObject({ IPV4_SRC_ADDR: '192.168.1.2', L4_SRC_PORT: 443 });
  });
});

describe('origin receiving collectd packets whose strings hold control characters', () => {
  // Sent by a real collectd whose Hostname holds U+0001 and U+0007: see
  // tests/fixtures/formats/datagram/collectd/generate-control-characters.sh.
  const packet = readFileSync(
    join(__dirname, '..', 'fixtures', 'formats', 'datagram', 'collectd', 'control-characters.input.bin'),
  );
  let running: ServedOrigin | undefined;
  afterEach(async () => {
    await running?.stop();
    running = undefined;
  });

  async function hosts(ignoreControlCharacters: boolean): Promise<unknown[]> {
    running = injectOrigin({
      dataFormat: { format: 'datagram', datagram: { packetFormat: 'collectd', ignoreControlCharacters } },
    });
    const answer = await running.send({ body: packet });
    const envelope = answer.json as { data: { host?: unknown }[]; error: unknown[] };
    expect(envelope.error).toEqual([]);
    expect(envelope.data.length).toBeGreaterThan(0);
    return [...new Set(envelope.data.map((r) => r.host))];
  }

  it('keeps them by default', async () => {
    expect(await hosts(false)).toEqual(['ctl\u0001host\u0007']);
  });

  it('removes them from collectd strings with ignoreControlCharacters', async () => {
    expect(await hosts(true)).toEqual(['ctlhost']);
  });
});

import { DATA_300, TEMPLATE_300, v9 } from '../formats/datagram/netflow/netflow-packets';
import { send, startOrigin, type TestOrigin } from './origin-helpers';

describe('origin receiving NetFlow v9 datagrams', () => {
  let running: TestOrigin | undefined;
  afterEach(async () => {
    await running?.stop();
    running = undefined;
  });

  it('keeps templates for the life of the origin: template in one request, data in the next', async () => {
    running = await startOrigin({
      dataFormat: { format: 'datagram', datagram: { packetFormat: 'netflow' } },
    });
    const unknown = await send(running.url, { body: Buffer.from(v9(1, DATA_300)) });
    expect((unknown.json as { errorMessage: string }).errorMessage).toMatch(
      /^ORIGIN_NETFLOW_TEMPLATE_UNKNOWN - /,
    );

    const template = await send(running.url, { body: Buffer.from(v9(1, TEMPLATE_300)) });
    expect(template.status).toBe(200);

    const data = await send(running.url, { body: Buffer.from(v9(1, DATA_300)) });
    const envelope = data.json as { data: { values: Record<string, unknown> }[]; error: unknown[] };
    expect(envelope.error).toEqual([]);
    expect(envelope.data).toHaveLength(1);
    expect(envelope.data[0]?.values).toMatchObject({ IPV4_SRC_ADDR: '192.168.1.2', L4_SRC_PORT: 443 });
  });
});

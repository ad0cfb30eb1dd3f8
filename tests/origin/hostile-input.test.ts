import avro from 'avsc';
import { SendResponse, type Pipeline } from 'rest-service-origin';
import { flowset, u16, v9 } from '../formats/datagram/netflow/netflow-packets';
import { send, startOrigin, type TestOrigin } from './origin-helpers';

const sendRecords = new SendResponse();
const sendErrorRecords = SendResponse.forErrors({ statusCode: 400 });
/**
 * A pipeline whose error handling answers error records with 400: parse failures reach the pipeline as error
 * records (decision 0017), so this is the client's answer when a parser refuses hostile input.
 */
const answer400OnErrors: Pipeline = (batch) => {
  sendRecords.write(batch);
  sendErrorRecords.write(batch);
};

/** Issue 12: bodies built to hang, exhaust or crash the parser get a 4xx envelope, and the origin stays up. */
describe('origin under hostile input', () => {
  let running: TestOrigin | undefined;
  afterEach(async () => {
    await running?.stop();
    running = undefined;
  });

  it('answers 400 to an Avro header whose map count is 2^60, without hanging', async () => {
    running = await startOrigin({ dataFormat: { format: 'avro' } }, answer400OnErrors);
    const body = Buffer.concat([
      Buffer.from('Obj\x01', 'latin1'),
      Buffer.from([0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x20]),
      Buffer.alloc(20),
    ]);
    expect(body).toHaveLength(33);
    const answer = await send(running.url, { body });
    expect(answer.status).toBe(400);
    expect(answer.json).toMatchObject({ httpStatusCode: 400, data: [] });
    expect(answer.text).toContain('ORIGIN_AVRO_MALFORMED');
  });

  it('answers at once an Avro container whose schema has 2^60 paths through its named records', async () => {
    running = await startOrigin({ dataFormat: { format: 'avro' } }, answer400OnErrors);
    let schema: unknown = { type: 'record', name: 'R0', fields: [{ name: 'x', type: 'int' }] };
    for (let i = 1; i <= 60; i++) {
      const fields = [
        { name: 'a', type: schema },
        { name: 'b', type: `R${i - 1}` },
      ];
      schema = { type: 'record', name: `R${i}`, fields };
    }
    const sync = Buffer.alloc(16, 7);
    const header = avro.Type.forSchema({ type: 'map', values: 'bytes' }).toBuffer({
      'avro.schema': Buffer.from(JSON.stringify({ type: 'array', items: schema })),
    });
    // One block: one value, the empty array (count 1, size 1, the byte 0).
    const body = Buffer.concat([Buffer.from('Obj\x01', 'latin1'), header, sync, Buffer.of(2, 2, 0), sync]);
    const answer = await send(running.url, { body });
    expect(answer.status).toBe(200);
    expect(answer.json).toMatchObject({ httpStatusCode: 200, data: [[]] });
  });

  it('answers 400 to an Engine Record body with a malformed DECIMAL instead of failing at render', async () => {
    running = await startOrigin({ dataFormat: { format: 'engineRecord' } }, answer400OnErrors);
    const line = JSON.stringify({ header: {}, value: { type: 'DECIMAL', value: '12;340' } });
    const body = Buffer.concat([Buffer.of(0xa1), Buffer.from(`${line}\n`)]);
    const answer = await send(running.url, { body });
    expect(answer.status).toBe(400);
    expect(answer.json).toMatchObject({ httpStatusCode: 400, data: [] });
    expect(answer.text).toContain('ORIGIN_ENGINE_RECORD_MALFORMED');
  });

  it('answers 400 to JSON nested 10,000 deep with the length limit raised, instead of 500 at render', async () => {
    running = await startOrigin(
      { dataFormat: { format: 'json', json: { maxObjectLengthChars: 1_000_000 } } },
      answer400OnErrors,
    );
    const answer = await send(running.url, { body: '['.repeat(10_000) + ']'.repeat(10_000) });
    expect(answer.status).toBe(400);
    expect(answer.json).toMatchObject({ httpStatusCode: 400, data: [] });
    expect(answer.text).toContain('ORIGIN_JSON_TOO_DEEP');
  });

  it('answers 400 to XML nested 10,000 deep with the length limit raised, instead of 500 at render', async () => {
    running = await startOrigin(
      { dataFormat: { format: 'xml', xml: { maxRecordLengthChars: 1_000_000 } } },
      answer400OnErrors,
    );
    const answer = await send(running.url, { body: '<e>'.repeat(10_000) + '</e>'.repeat(10_000) });
    expect(answer.status).toBe(400);
    expect(answer.json).toMatchObject({ httpStatusCode: 400, data: [] });
    expect(answer.text).toContain('ORIGIN_XML_TOO_DEEP');
  });

  it('keeps at most 1,000 NetFlow templates by default, so a client cannot grow the cache without end', async () => {
    running = await startOrigin(
      { dataFormat: { format: 'datagram', datagram: { packetFormat: 'netflow' } } },
      answer400OnErrors,
    );
    const template = (id: number): number[] => flowset(0, [...u16(id), ...u16(1), ...u16(4), ...u16(1)]);
    for (let p = 0; p < 11; p++) {
      const templates = Array.from({ length: 100 }, (_, i) => template(256 + p * 100 + i));
      expect((await send(running.url, { body: Buffer.from(v9(1, ...templates)) })).status).toBe(200);
    }
    // 1,100 templates sent: the 100 used least recently were evicted.
    const evicted = await send(running.url, { body: Buffer.from(v9(1, flowset(256, [7]))) });
    expect(evicted.status).toBe(400);
    expect(evicted.text).toContain('ORIGIN_NETFLOW_TEMPLATE_UNKNOWN');
    const kept = await send(running.url, { body: Buffer.from(v9(1, flowset(1355, [7]))) });
    expect(kept.status).toBe(200);
  });
});

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DataRecord, field } from 'rest-service-origin';
import { writeEngineRecords } from '../../src/formats/engine-record/engine-record-codec';
import { injectOrigin, type ServedOrigin } from './origin-helpers';

const FIXTURES = join(__dirname, '..', 'fixtures', 'formats');

/** The `data` array of an answer, as text: `JSON.parse` would hide whether `-0.0` or `0` was written. */
function dataText(text: string): string {
  const start = text.indexOf('"data":');
  const end = text.indexOf(',"error":');
  return text.slice(start + '"data":'.length, end);
}

/**
 * Issue 15 item 3: a double or float -0.0 keeps its sign from the body through the record to the JSON response,
 * which writes it `-0.0` (decision 0060). Each body is made by the format's real producer where there is one.
 */
describe('origin keeps the sign of -0.0', () => {
  let running: ServedOrigin | undefined;
  afterEach(async () => {
    await running?.stop();
    running = undefined;
  });

  it('answers -0.0 for the doubles and floats -0.0 of a python-avro container', async () => {
    running = injectOrigin({ dataFormat: { format: 'avro' } });
    const body = readFileSync(join(FIXTURES, 'avro', 'negative-zero.input.bin'));
    const answer = await running.send({ body });
    expect(answer.status).toBe(200);
    expect(dataText(answer.text)).toBe(
      '[{"d":-0.0,"f":-0.0,"maybe":-0.0,"many":[-0.0,0,-1.5]},' +
        '{"d":0,"f":0,"maybe":null,"many":[]},' +
        '{"d":-2.5,"f":-0.5,"maybe":0,"many":[-0.0]}]',
    );
    const data = (answer.json as { data: { d: number }[] }).data;
    expect(Object.is(data[0]?.d, -0)).toBe(true);
  });

  it('answers -0.0 for the double and float -0.0 of a message protoc encoded', async () => {
    running = injectOrigin({
      dataFormat: {
        format: 'protobuf',
        protobuf: {
          resourcesDirectory: join(FIXTURES, 'protobuf'),
          protobufDescriptorFile: 'shop.desc',
          messageType: 'shop.Order',
          delimitedMessages: false,
        },
      },
    });
    const body = readFileSync(join(FIXTURES, 'protobuf', 'single-negative-zero.input.bin'));
    const answer = await running.send({ body });
    expect(answer.status).toBe(200);
    const text = dataText(answer.text);
    expect(text).toContain('{"sku":"z","quantity":1,"unit_price":-0.0}');
    expect(text).toContain('{"sku":"p","quantity":2,"unit_price":0}');
    expect(text).toContain('"weight":-0.0');
  });

  it('answers -0.0 for Engine Record DOUBLE and FLOAT -0', async () => {
    running = injectOrigin({ dataFormat: { format: 'engineRecord' } });
    const body = writeEngineRecords([
      new DataRecord({ d: field('DOUBLE', -0), f: field('FLOAT', -0), zero: field('DOUBLE', 0) }),
    ]);
    expect(body.toString('latin1')).toContain('"-0"');
    const answer = await running.send({ body });
    expect(answer.status).toBe(200);
    expect(dataText(answer.text)).toBe('[{"d":-0.0,"f":-0.0,"zero":0}]');
  });

  it('answers -0.0 for a JSON body holding -0.0, on the whole-body and the framed path', async () => {
    running = injectOrigin({ dataFormat: { format: 'json', json: { jsonContent: 'multipleObjects' } } });
    const answer = await running.send({ body: '{"x":-0.0,"y":0.0,"z":[-0.0]}' });
    expect(answer.status).toBe(200);
    expect(dataText(answer.text)).toBe('[{"x":-0.0,"y":0,"z":[-0.0]}]');
    // A run of 16 digits sends the value to the exact decoder.
    const exact = await running.send({ body: '{"x":-0.0,"big":1234567890123456789}\n{"x":-0.0}' });
    expect(exact.status).toBe(200);
    expect(dataText(exact.text)).toBe('[{"x":-0.0,"big":1234567890123456789},{"x":-0.0}]');
  });
});

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import avro from 'avsc';
import { avroFormat } from '../../../src/formats/avro/avro-format';
import { decimalText } from '../../../src/formats/avro/avro-field-value';
import { parseWhole } from '../../../src/formats/parse-helpers';
import { TypedField } from '../../../src/record/field';

const FIXTURES = join(__dirname, '..', '..', 'fixtures', 'formats', 'avro');

/** An object container file of `records` written by avsc with the given codec. */
async function containerOf(schema: avro.Schema, records: unknown[], codec = 'null'): Promise<Buffer> {
  const type = avro.Type.forSchema(schema, { wrapUnions: true });
  const encoder = new avro.streams.BlockEncoder(type, { codec });
  const parts: Buffer[] = [];
  encoder.on('data', (part: Buffer) => parts.push(part));
  const done = new Promise((resolve) => encoder.on('end', resolve));
  for (const record of records) encoder.write(record);
  encoder.end();
  await done;
  return Buffer.concat(parts);
}

describe('avro format', () => {
  it('puts the writer schema JSON of the container in the avroSchema header attribute of every record', () => {
    const input = readFileSync(join(FIXTURES, 'null-codec.input.bin'));
    const { records } = parseWhole(avroFormat, {}, input);
    expect(records).toHaveLength(6);
    for (const record of records) {
      expect(JSON.parse(record.attributes?.['avroSchema'] ?? '')).toMatchObject({
        type: 'record',
        name: 'Order',
        namespace: 'com.example',
      });
    }
  });

  it('reports an empty body as a malformed container', () => {
    const { records, failures } = parseWhole(avroFormat, {}, new Uint8Array(0));
    expect(records).toEqual([]);
    expect(failures).toMatchObject([{ code: 'ORIGIN_AVRO_MALFORMED', canContinue: false }]);
  });

  it('refuses a block over maxBlockSizeBytes and keeps no part of it', async () => {
    const input = await containerOf({ type: 'string' }, ['x'.repeat(500)]);
    const { records, failures } = parseWhole(avroFormat, { maxBlockSizeBytes: 100 }, input);
    expect(records).toEqual([]);
    expect(failures).toMatchObject([{ code: 'ORIGIN_AVRO_BLOCK_TOO_LARGE', canContinue: false }]);
  });

  it('reports corrupt deflate data as a failure instead of throwing', async () => {
    const input = await containerOf({ type: 'string' }, ['hello', 'world'], 'deflate');
    // The block data sits just before the final 16-byte sync marker.
    input.writeUInt16BE(input.readUInt16BE(input.length - 19) ^ 0xffff, input.length - 19);
    const { failures } = parseWhole(avroFormat, {}, input);
    expect(failures).toMatchObject([{ code: 'ORIGIN_AVRO_MALFORMED', canContinue: false }]);
  });

  it('never throws on garbage after a valid header', async () => {
    const header = await containerOf({ type: 'int' }, []);
    for (let seed = 0; seed < 50; seed++) {
      const garbage = Buffer.from(Array.from({ length: 40 }, (_, i) => (i * 37 + seed * 101) % 256));
      expect(() => parseWhole(avroFormat, {}, Buffer.concat([header, garbage]))).not.toThrow();
    }
  });

  it('maps unions to the branch value and floats to FLOAT fields', async () => {
    const schema: avro.Schema = {
      type: 'record',
      name: 'R',
      fields: [
        { name: 'u', type: ['null', 'string', 'float'] },
        { name: 'v', type: ['null', 'string'] },
      ],
    };
    const input = await containerOf(schema, [{ u: { float: 1.5 }, v: null }]);
    const [record] = parseWhole(avroFormat, {}, input).records;
    const fields = (record?.value as TypedField<'LIST_MAP'>).value;
    expect(fields?.get('u')).toEqual(new TypedField('FLOAT', 1.5));
    expect(fields?.get('v')).toBeNull();
  });

  it.each([
    [[0x00], 2, '0.00'],
    [[0xff], 2, '-0.01'],
    [[0x30, 0x39], 3, '12.345'],
    [[0xcf, 0xc7], 1, '-1234.5'],
    [[0x05], 0, '5'],
  ])('reads decimal bytes %j with scale %d as %s', (bytes, scale, text) => {
    expect(decimalText(Uint8Array.from(bytes), scale)).toBe(text);
  });
});

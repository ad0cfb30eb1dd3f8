import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import avro from 'avsc';
import { avroFormat } from '../../../src/formats/avro/avro-format';
import { decimalText } from '../../../src/formats/avro/avro-decoder';
import { parseWhole } from '../../../src/formats/parse-helpers';
import { TypedField } from '../../../src/record/field';
import type { ListMap } from '../../../src/record/list-map';

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

  it.each(['deflate'])(
    'refuses a %s block that decompresses past maxBlockSizeBytes as too large, not as corrupt',
    async (codec) => {
      const input = await containerOf({ type: 'string' }, ['x'.repeat(200_000)], codec);
      expect(input.length).toBeLessThan(100_000);
      const { records, failures } = parseWhole(avroFormat, { maxBlockSizeBytes: 100_000 }, input);
      expect(records).toEqual([]);
      expect(failures).toMatchObject([{ code: 'ORIGIN_AVRO_BLOCK_TOO_LARGE', canContinue: false }]);
    },
  );

  it('refuses blocks that together decompress past the source budget with a stage failure', async () => {
    const input = await containerOf({ type: 'string' }, ['x'.repeat(60_000), 'y'.repeat(60_000)], 'deflate');
    const parser = avroFormat.createParser(
      { maxBlockSizeBytes: 1_000_000 },
      { originState: new Map(), maxDecodedBytes: 100_000 },
    );
    const { records, failures } = parser.parseAll!(input);
    // avsc writes one block per record here: the first fits the budget, the second passes it.
    expect(records).toHaveLength(1);
    expect(failures).toMatchObject([{ code: 'ORIGIN_AVRO_TOO_LARGE', scope: 'stage', canContinue: false }]);
    // Within the budget, the same container is read.
    const roomy = avroFormat.createParser(
      { maxBlockSizeBytes: 1_000_000 },
      { originState: new Map(), maxDecodedBytes: 1_000_000 },
    );
    expect(roomy.parseAll!(input).records).toHaveLength(2);
  });

  it('refuses a header map count the body cannot hold without looping over it', () => {
    const magic = Buffer.from('Obj\x01', 'latin1');
    const counts = [
      // 2^60 entries in 9 bytes: past 2^53, so not even a count.
      [0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x20],
      // 2^40 entries: a valid long, far more than the bytes present.
      [0x80, 0x80, 0x80, 0x80, 0x80, 0x40],
      // -2^40 entries, then a block size of 1.
      [0xff, 0xff, 0xff, 0xff, 0xff, 0x3f, 0x02],
    ];
    for (const count of counts) {
      const input = Buffer.concat([magic, Buffer.from(count), Buffer.alloc(20)]);
      const { records, failures } = parseWhole(avroFormat, {}, input);
      expect(records).toEqual([]);
      expect(failures).toMatchObject([{ code: 'ORIGIN_AVRO_MALFORMED', canContinue: false }]);
    }
  });

  it('refuses a header string length the body cannot hold', () => {
    const magic = Buffer.from('Obj\x01', 'latin1');
    // One entry whose key claims 2^40 bytes.
    const input = Buffer.concat([
      magic,
      Buffer.from([0x02, 0x80, 0x80, 0x80, 0x80, 0x80, 0x40]),
      Buffer.alloc(30),
    ]);
    const { failures } = parseWhole(avroFormat, {}, input);
    expect(failures).toMatchObject([{ code: 'ORIGIN_AVRO_MALFORMED', canContinue: false }]);
  });

  it('reports corrupt deflate data as a failure instead of throwing', async () => {
    const input = await containerOf({ type: 'string' }, ['hello', 'world'], 'deflate');
    // The block data sits just before the final 16-byte sync marker.
    input.writeUInt16BE(input.readUInt16BE(input.length - 19) ^ 0xffff, input.length - 19);
    const { failures } = parseWhole(avroFormat, {}, input);
    expect(failures).toMatchObject([{ code: 'ORIGIN_AVRO_MALFORMED', canContinue: false }]);
  });

  it('never throws on garbage after a valid block', async () => {
    // avsc writes no header for an empty container, so the container holds one record.
    const valid = await containerOf({ type: 'int' }, [7]);
    expect(parseWhole(avroFormat, {}, valid).records.map((r) => r.value)).toEqual([7]);
    for (let seed = 0; seed < 50; seed++) {
      const garbage = Buffer.from(Array.from({ length: 40 }, (_, i) => (i * 37 + seed * 101) % 256));
      const { records, failures } = parseWhole(avroFormat, {}, Buffer.concat([valid, garbage]));
      expect(records.map((r) => r.value)).toEqual([7]);
      expect(failures).toMatchObject([{ code: 'ORIGIN_AVRO_MALFORMED', canContinue: false }]);
    }
  });

  it('reports garbage inside a block whose framing is sound as a malformed block', async () => {
    const valid = await containerOf({ type: 'record', name: 'R', fields: [{ name: 's', type: 'string' }] }, [
      { s: 'hello' },
    ]);
    const sync = valid.subarray(valid.length - 16);
    const long = avro.Type.forSchema('long');
    for (let seed = 0; seed < 50; seed++) {
      const garbage = Buffer.from(Array.from({ length: 24 }, (_, i) => (i * 37 + seed * 101) % 256));
      const block = Buffer.concat([long.toBuffer(3), long.toBuffer(garbage.length), garbage, sync]);
      const { records, failures } = parseWhole(avroFormat, {}, Buffer.concat([valid, block]));
      expect(records).toHaveLength(1);
      expect(failures).toMatchObject([{ code: 'ORIGIN_AVRO_MALFORMED', recordIndex: 1, canContinue: false }]);
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
    const fields = record?.value as ListMap;
    expect(fields.u).toEqual(new TypedField('FLOAT', 1.5));
    expect(fields.v).toBeNull();
  });

  it('reports a record the writer schema cannot read with its index in the block, keeping earlier blocks', async () => {
    const sync = Buffer.alloc(16, 0xa5);
    const metadata = avro.Type.forSchema({ type: 'map', values: 'bytes' }).toBuffer({
      'avro.schema': Buffer.from('["null","int"]'),
      'avro.codec': Buffer.from('null'),
    });
    const header = Buffer.concat([Buffer.from('Obj\x01', 'latin1'), metadata, sync]);
    const long = avro.Type.forSchema('long');
    const block = (count: number, data: number[]) =>
      Buffer.concat([long.toBuffer(count), long.toBuffer(data.length), Buffer.from(data), sync]);
    // Union branch 0 (null), branch 1 with int 3; then branch 2, which the union does not have.
    const input = Buffer.concat([header, block(2, [0, 2, 6]), block(2, [0, 4])]);
    const { records, failures } = parseWhole(avroFormat, {}, input);
    expect(records.map((r) => r.value)).toEqual([null, 3]);
    expect(failures).toMatchObject([
      {
        code: 'ORIGIN_AVRO_MALFORMED',
        recordIndex: 2,
        // The second block starts after the first: count, size, three bytes of data, sync marker.
        byteOffset: header.length + 1 + 1 + 3 + 16,
        canContinue: false,
        message: expect.stringContaining(
          'record 1 of the block cannot be decoded (union branch 2 does not exist)',
        ),
      },
    ]);
  });

  it('shares one frozen avroSchema attributes object among the records of a container', async () => {
    const input = await containerOf({ type: 'long' }, [1, 2, 3]);
    const { records } = parseWhole(avroFormat, {}, input);
    expect(records.map((r) => r.value)).toEqual([1n, 2n, 3n]);
    expect(records[1]?.attributes).toBe(records[0]?.attributes);
    expect(Object.isFrozen(records[0]?.attributes)).toBe(true);
  });

  it('gives records that share no memory with the input', async () => {
    const input = await containerOf({ type: 'record', name: 'R', fields: [{ name: 'b', type: 'bytes' }] }, [
      { b: Buffer.from('abc') },
    ]);
    const [record] = parseWhole(avroFormat, {}, input).records;
    input.fill(0);
    expect((record?.value as ListMap).b).toEqual(Uint8Array.from([97, 98, 99]));
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

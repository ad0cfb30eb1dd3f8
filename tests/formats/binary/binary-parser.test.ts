import { binaryFormat } from '../../../src/formats/binary/binary-format';
import { BinaryParser } from '../../../src/formats/binary/binary-parser';
import { resolveFormatConfig } from '../../../src/formats/format-config';

function parser(maxDataSizeBytes?: number): BinaryParser {
  const config = resolveFormatConfig(
    binaryFormat,
    maxDataSizeBytes === undefined ? {} : { maxDataSizeBytes },
  );
  return binaryFormat.createParser(config, { originState: new Map() }) as BinaryParser;
}

describe('binary parser', () => {
  it('makes one record holding a copy of the whole body as a plain Uint8Array', () => {
    const p = parser();
    const chunk = Buffer.from([1, 2, 3]);
    expect(p.push(chunk)).toEqual({ records: [], failures: [] });
    chunk.fill(9); // the caller reuses its buffer
    p.push(Buffer.from([4]));
    const { records, failures } = p.end();
    expect(failures).toEqual([]);
    expect(records).toHaveLength(1);
    const value = records[0]?.value;
    expect(Object.getPrototypeOf(value)).toBe(Uint8Array.prototype);
    expect([...(value as Uint8Array)]).toEqual([1, 2, 3, 4]);
  });

  it('copies in parseAll too', () => {
    const bytes = Buffer.from([5, 6]);
    const value = parser().parseAll(bytes).records[0]?.value as Uint8Array;
    bytes.fill(0);
    expect(Object.getPrototypeOf(value)).toBe(Uint8Array.prototype);
    expect([...value]).toEqual([5, 6]);
  });

  it('accepts a body of exactly maxDataSizeBytes', () => {
    const p = parser(4);
    p.push(new Uint8Array(3));
    p.push(new Uint8Array(1));
    expect(p.end().records).toHaveLength(1);
  });

  it('refuses a larger body as a stage failure naming its full size, and stops buffering at the limit', () => {
    const p = parser(1000);
    const chunk = new Uint8Array(600).fill(0xab);
    let maxBuffered = 0;
    for (let i = 0; i < 100; i++) {
      p.push(chunk);
      maxBuffered = Math.max(maxBuffered, p.bufferedBytes);
    }
    expect(maxBuffered).toBeLessThanOrEqual(1000);
    expect(p.bufferedBytes).toBeLessThanOrEqual(128);
    expect(p.end()).toEqual({
      records: [],
      failures: [
        {
          code: 'ORIGIN_BINARY_TOO_LARGE',
          message: 'The binary body of 60000 bytes exceeds maxDataSizeBytes 1000; no record was made.',
          scope: 'stage',
          recordIndex: 0,
          byteOffset: 0,
          excerpt: 'ab'.repeat(128),
          canContinue: false,
        },
      ],
    });
  });

  it('makes one empty record from an empty body', () => {
    const p = parser();
    expect(p.end().records).toEqual([{ value: new Uint8Array(0) }]);
  });
});

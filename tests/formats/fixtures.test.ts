import { parseWhole } from '../../src/formats/parse-helpers';
import { loadFixtureCases, parseChunks, tagged } from './fixture-cases';

const cases = loadFixtureCases();
const named = cases.map((c) => [c.name, c] as const);

describe('format fixtures', () => {
  it('finds fixture pairs for every built-in format', () => {
    const folders = new Set(cases.map((c) => c.name.split('/')[0]));
    expect([...folders].sort()).toEqual([
      'avro',
      'binary',
      'datagram',
      'delimited',
      'engine-record',
      'json',
      'protobuf',
      'xml',
    ]);
    expect(cases.length).toBeGreaterThanOrEqual(30);
  });

  it.each(named)('%s parses to its expected records and failures', (_, c) => {
    expect(tagged(parseWhole(c.format, c.options, c.input))).toEqual({
      records: c.records,
      failures: c.failures,
    });
  });

  it.each(named)('%s gives the same through one push and end as through parseAll', (_, c) => {
    expect(tagged(parseChunks(c, [c.input]))).toEqual({ records: c.records, failures: c.failures });
  });
});

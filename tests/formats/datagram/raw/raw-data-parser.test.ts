import fc from 'fast-check';
import { datagramFormat } from '../../../../src/formats/datagram/datagram-format';
import type { ParseResult } from '../../../../src/formats/data-format';
import { resolveFormatConfig } from '../../../../src/formats/format-config';
import { concatResults, parseWhole } from '../../../../src/formats/parse-helpers';

function parseChunks(chunks: Uint8Array[], options: Record<string, unknown> = {}): ParseResult {
  const parser = datagramFormat.createParser(
    resolveFormatConfig(datagramFormat, { packetFormat: 'rawData', ...options }),
    { originState: new Map() },
  );
  return concatResults([...chunks.map((c) => parser.push(c)), parser.end()]);
}

function values(result: ParseResult): unknown[] {
  return result.records.map((r) => r.value);
}

describe('raw/separated data parser', () => {
  it('makes one string record per newline-separated piece by default', () => {
    expect(values(parseWhole(datagramFormat, { packetFormat: 'rawData' }, Buffer.from('a\n\nb')))).toEqual([
      'a',
      '',
      'b',
    ]);
  });

  it('makes no record of an empty trailing piece, nor of an empty body', () => {
    expect(values(parseChunks([Buffer.from('a\nb\n')]))).toEqual(['a', 'b']);
    expect(values(parseChunks([Buffer.from('a\nb\n\n')]))).toEqual(['a', 'b', '']);
    expect(values(parseChunks([]))).toEqual([]);
    expect(values(parseChunks([Buffer.from('\n')]))).toEqual(['']);
  });

  it('emits a record as soon as its separator arrives', () => {
    const parser = datagramFormat.createParser(
      resolveFormatConfig(datagramFormat, { packetFormat: 'rawData', rawDataSeparator: '--' }),
      { originState: new Map() },
    );
    expect(values(parser.push(Buffer.from('one-')))).toEqual([]);
    expect(values(parser.push(Buffer.from('-tw')))).toEqual(['one']);
    expect(values(parser.end())).toEqual(['tw']);
  });

  it('gives the same records for any chunking of a body with a multi-byte separator', () => {
    const piece = fc.string({ unit: fc.constantFrom('a', 'é', '€', '<', '>', '😀'), maxLength: 6 });
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 6 }), fc.array(fc.nat(), { maxLength: 8 }), (pieces, cuts) => {
        const body = Buffer.from(pieces.join('<€>'), 'utf8');
        const points = [...cuts.map((c) => c % (body.length + 1))].sort((a, b) => a - b);
        const chunks: Buffer[] = [];
        let from = 0;
        for (const point of [...points, body.length]) {
          chunks.push(body.subarray(from, point));
          from = point;
        }
        const expected = pieces.length === 0 ? [] : pieces.join('<€>').split('<€>');
        if (expected.length > 0 && expected[expected.length - 1] === '') expected.pop();
        expect(values(parseChunks(chunks, { rawDataSeparator: '<€>' }))).toEqual(expected);
      }),
      { numRuns: 300 },
    );
  });

  it('throws ORIGIN_CHARSET_UNSUPPORTED from createParser for a charset Node.js cannot decode', () => {
    expect(() => parseChunks([], { charset: 'no-such-charset' })).toThrow(
      expect.objectContaining({ code: 'ORIGIN_CHARSET_UNSUPPORTED' }),
    );
  });
});

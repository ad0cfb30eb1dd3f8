import fc from 'fast-check';
import { ShortStrings, utf8Bytes } from '../../src/formats/short-strings';

const decodeAt = (strings: ShortStrings, bytes: Uint8Array, start: number, end: number): string =>
  strings.decode(bytes, utf8Bytes(bytes), start, end);

describe('ShortStrings', () => {
  it('decodes every byte string as Node decodes UTF-8, however often and in whatever order it comes', () => {
    fc.assert(
      fc.property(
        fc.array(fc.uint8Array({ maxLength: 24 }), { minLength: 1, maxLength: 200 }),
        fc.array(fc.nat(), { maxLength: 400 }),
        (distinct, picks) => {
          const strings = new ShortStrings();
          // Each value is read out of a larger buffer at an offset, as the decoders read.
          for (const pick of [...picks, ...distinct.keys()]) {
            const value = distinct[pick % distinct.length] as Uint8Array;
            const buffer = new Uint8Array([7, ...value, 9]);
            expect(decodeAt(strings, buffer, 1, 1 + value.length)).toBe(Buffer.from(value).toString('utf8'));
          }
        },
      ),
    );
  });

  it('gives the same string object for a short string seen again', () => {
    const strings = new ShortStrings();
    const first = decodeAt(strings, Buffer.from('alpha beta'), 0, 10);
    const again = decodeAt(strings, Buffer.from('xxalpha betaxx'), 2, 12);
    expect(again).toBe('alpha beta');
    expect(again).toBe(first);
  });

  it('decodes invalid UTF-8 to U+FFFD and long strings without caching', () => {
    const strings = new ShortStrings();
    expect(decodeAt(strings, new Uint8Array([0x61, 0xff, 0x62]), 0, 3)).toBe('a\ufffdb');
    const long = Buffer.from('a string longer than sixteen bytes: café');
    expect(decodeAt(strings, long, 0, long.length)).toBe(long.toString('utf8'));
    expect(decodeAt(strings, long, 0, 0)).toBe('');
  });
});

import { removeControlCharacters, TextInput } from '../../src/formats/text-input';

describe('removeControlCharacters', () => {
  it('removes exactly the ASCII control characters other than tab, LF and CR', () => {
    const all = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
    const kept = [...removeControlCharacters(all)];
    const removed = [...all].filter((b) => !kept.includes(b));
    expect(removed).toEqual([
      ...[0, 1, 2, 3, 4, 5, 6, 7, 8],
      0x0b,
      0x0c,
      ...Array.from({ length: 0x20 - 0x0e }, (_, i) => 0x0e + i),
      0x7f,
    ]);
  });

  it('returns the same buffer when there is nothing to remove', () => {
    const bytes = Buffer.from('{"a":"\t\n\r"}');
    expect(removeControlCharacters(bytes)).toBe(bytes);
  });
});

describe('TextInput', () => {
  function run(input: TextInput, chunks: number[][]): { bytes: number[]; skipped: number } {
    const out: number[] = [];
    let skipped = 0;
    for (const part of [...chunks.map((c) => input.push(Uint8Array.from(c))), input.end()]) {
      out.push(...part.bytes);
      skipped += part.skipped;
    }
    return { bytes: out, skipped };
  }

  it('skips a UTF-8 byte order mark split across chunks and reports its length', () => {
    expect(run(new TextInput('UTF-8', false), [[0xef], [0xbb], [0xbf, 0x31]])).toEqual({
      bytes: [0x31],
      skipped: 3,
    });
  });

  it('keeps bytes that only begin like a byte order mark', () => {
    expect(run(new TextInput('utf8', false), [[0xef], [0xbb, 0x31]])).toEqual({
      bytes: [0xef, 0xbb, 0x31],
      skipped: 0,
    });
    expect(run(new TextInput('utf8', false), [[0xef, 0xbb]])).toEqual({ bytes: [0xef, 0xbb], skipped: 0 });
  });

  it('skips a byte order mark only at the start', () => {
    expect(run(new TextInput('UTF-8', false), [[0x31, 0xef, 0xbb, 0xbf]]).bytes).toEqual([
      0x31, 0xef, 0xbb, 0xbf,
    ]);
  });

  it('transcodes another charset chunk by chunk, even inside a character', () => {
    const body = Buffer.from('\ufeffZoë 😀', 'utf16le');
    const chunks = [...body].map((b) => [b]);
    expect(Buffer.from(run(new TextInput('UTF-16LE', false), chunks).bytes).toString()).toBe('Zoë 😀');
  });

  it('removes control characters after transcoding', () => {
    const body = Buffer.from('a\u0001b\u007fc\td', 'utf16le');
    expect(Buffer.from(run(new TextInput('utf-16le', true), [[...body]]).bytes).toString()).toBe('abc\td');
  });
});

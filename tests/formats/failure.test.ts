import { MAX_EXCERPT_CHARS } from '../../src/formats/data-format';
import { excerptFromBytes, failure, MAX_EXCERPT_BYTES, truncateExcerpt } from '../../src/formats/failure';

describe('failure', () => {
  it('fills the message from the error table and defaults the scope to record', () => {
    expect(
      failure({
        code: 'ORIGIN_JSON_OBJECT_TOO_LONG',
        params: { offset: 12, limit: 4096 },
        recordIndex: 3,
        byteOffset: 12,
        excerpt: '{"a":',
        canContinue: true,
      }),
    ).toEqual({
      code: 'ORIGIN_JSON_OBJECT_TOO_LONG',
      message: 'The JSON object at byte 12 exceeds maxObjectLengthChars 4096.',
      scope: 'record',
      recordIndex: 3,
      byteOffset: 12,
      excerpt: '{"a":',
      canContinue: true,
    });
  });

  it('cuts a long excerpt to MAX_EXCERPT_CHARS', () => {
    const f = failure({
      code: 'ORIGIN_BINARY_TOO_LARGE',
      scope: 'stage',
      recordIndex: 0,
      byteOffset: 0,
      excerpt: 'x'.repeat(1000),
      canContinue: false,
    });
    expect(f.excerpt).toBe('x'.repeat(MAX_EXCERPT_CHARS));
    expect(f.scope).toBe('stage');
  });
});

describe('truncateExcerpt', () => {
  it('never leaves half a surrogate pair at the cut', () => {
    const text = 'a'.repeat(MAX_EXCERPT_CHARS - 1) + '😀tail';
    expect(truncateExcerpt(text)).toBe('a'.repeat(MAX_EXCERPT_CHARS - 1));
    expect(truncateExcerpt('a'.repeat(MAX_EXCERPT_CHARS - 2) + '😀tail')).toBe(
      'a'.repeat(MAX_EXCERPT_CHARS - 2) + '😀',
    );
  });
});

describe('excerptFromBytes', () => {
  it('decodes UTF-8, replacing invalid bytes', () => {
    expect(excerptFromBytes(Buffer.from([0x7b, 0xc3, 0xa9, 0xff, 0x7d]))).toBe('{é\ufffd}');
  });

  it('gives the same excerpt from a head of MAX_EXCERPT_BYTES as from the whole input', () => {
    const text = '€'.repeat(1000); // 3 bytes a character: the head cuts one in half
    const whole = Buffer.from(text);
    expect(excerptFromBytes(whole.subarray(0, MAX_EXCERPT_BYTES))).toBe(excerptFromBytes(whole));
    expect(excerptFromBytes(whole)).toBe('€'.repeat(MAX_EXCERPT_CHARS));
  });
});

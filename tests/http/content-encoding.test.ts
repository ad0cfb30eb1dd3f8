import { isOriginError } from '../../src/errors/origin-error';
import { isZlibHeader } from '../../src/http/body-reader';
import { checkContentEncoding, MAX_CONTENT_CODINGS } from '../../src/http/content-encoding';

function unsupported(headerValue: string | string[]): unknown {
  try {
    checkContentEncoding(headerValue);
  } catch (error) {
    expect(isOriginError(error, 'ORIGIN_HTTP_ENCODING_UNSUPPORTED')).toBe(true);
    return (error as { params: unknown }).params;
  }
  throw new Error(`expected ${JSON.stringify(headerValue)} to be refused`);
}

describe('checkContentEncoding', () => {
  it('means no coding when the header is absent, empty or identity', () => {
    expect(checkContentEncoding(undefined)).toEqual([]);
    expect(checkContentEncoding('')).toEqual([]);
    expect(checkContentEncoding('identity')).toEqual([]);
    expect(checkContentEncoding(' Identity , ')).toEqual([]);
  });

  it('accepts gzip, x-gzip, deflate, br, zstd and snappy, trimmed and in any case', () => {
    expect(checkContentEncoding('gzip')).toEqual(['gzip']);
    expect(checkContentEncoding('Deflate')).toEqual(['deflate']);
    expect(checkContentEncoding(' BR')).toEqual(['br']);
    expect(checkContentEncoding('zstd ')).toEqual(['zstd']);
    expect(checkContentEncoding(' GZip ')).toEqual(['gzip']);
    expect(checkContentEncoding('X-GZIP')).toEqual(['gzip']);
    expect(checkContentEncoding('SNAPPY')).toEqual(['snappy']);
  });

  it('returns a list of codings in the order they were applied, identity dropped', () => {
    expect(checkContentEncoding('gzip, identity')).toEqual(['gzip']);
    expect(checkContentEncoding('gzip,snappy')).toEqual(['gzip', 'snappy']);
    expect(checkContentEncoding(['snappy', 'gzip'])).toEqual(['snappy', 'gzip']);
    expect(checkContentEncoding('gzip, br, zstd')).toEqual(['gzip', 'br', 'zstd']);
  });

  it('refuses an unknown coding, naming it as sent', () => {
    expect(unsupported('brotli')).toEqual({ encoding: 'brotli' });
    expect(unsupported('gzip, Compress')).toEqual({ encoding: 'Compress' });
    expect(unsupported('x-compress')).toEqual({ encoding: 'x-compress' });
    expect(unsupported('lz4')).toEqual({ encoding: 'lz4' });
    expect(unsupported('__proto__')).toEqual({ encoding: '__proto__' });
  });

  it('refuses more stacked codings than MAX_CONTENT_CODINGS', () => {
    const allowed = Array.from({ length: MAX_CONTENT_CODINGS }, () => 'gzip').join(', ');
    expect(checkContentEncoding(allowed)).toHaveLength(MAX_CONTENT_CODINGS);
    expect(unsupported(`${allowed}, gzip`)).toEqual({ encoding: `${allowed}, gzip` });
  });
});

describe('isZlibHeader', () => {
  it('tells the zlib format from raw deflate by the first two bytes, as zlib itself writes them', async () => {
    const { deflateSync, deflateRawSync } = await import('node:zlib');
    const text = Buffer.from('{"a":1}\n'.repeat(100));
    for (const level of [0, 1, 6, 9]) {
      const zlib = deflateSync(text, { level });
      expect(isZlibHeader(zlib[0]!, zlib[1]!)).toBe(true);
      const raw = deflateRawSync(text, { level });
      expect(isZlibHeader(raw[0]!, raw[1]!)).toBe(false);
    }
    // A window over 32 KiB (CINFO 8) or another method than deflate is not zlib.
    expect(isZlibHeader(0x88, 0x1c)).toBe(false);
    expect(isZlibHeader(0x79, 0xda)).toBe(false);
  });
});

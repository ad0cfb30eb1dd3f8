import { isOriginError } from '../../src/errors/origin-error';
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

  it('accepts gzip, x-gzip and snappy, trimmed and in any case', () => {
    expect(checkContentEncoding('gzip')).toEqual(['gzip']);
    expect(checkContentEncoding(' GZip ')).toEqual(['gzip']);
    expect(checkContentEncoding('X-GZIP')).toEqual(['gzip']);
    expect(checkContentEncoding('SNAPPY')).toEqual(['snappy']);
  });

  it('returns a list of codings in the order they were applied, identity dropped', () => {
    expect(checkContentEncoding('gzip, identity')).toEqual(['gzip']);
    expect(checkContentEncoding('gzip,snappy')).toEqual(['gzip', 'snappy']);
    expect(checkContentEncoding(['snappy', 'gzip'])).toEqual(['snappy', 'gzip']);
  });

  it('refuses an unknown coding, naming it as sent', () => {
    expect(unsupported('br')).toEqual({ encoding: 'br' });
    expect(unsupported('gzip, Deflate')).toEqual({ encoding: 'Deflate' });
    expect(unsupported('compress')).toEqual({ encoding: 'compress' });
    expect(unsupported('__proto__')).toEqual({ encoding: '__proto__' });
  });

  it('refuses more stacked codings than MAX_CONTENT_CODINGS', () => {
    const allowed = Array.from({ length: MAX_CONTENT_CODINGS }, () => 'gzip').join(', ');
    expect(checkContentEncoding(allowed)).toHaveLength(MAX_CONTENT_CODINGS);
    expect(unsupported(`${allowed}, gzip`)).toEqual({ encoding: `${allowed}, gzip` });
  });
});

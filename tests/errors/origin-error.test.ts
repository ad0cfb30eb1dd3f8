import { ConfigError } from '../../src/errors/config-error';
import { OriginError, isOriginError } from '../../src/errors/origin-error';

type OriginErrorModule = typeof import('../../src/errors/origin-error');

/** A second, separate copy of the module, as the other build of the package (ESM vs CJS) would be. */
function otherCopy(): OriginErrorModule {
  let copy: OriginErrorModule | undefined;
  jest.isolateModules(() => {
    copy = jest.requireActual<OriginErrorModule>('../../src/errors/origin-error');
  });
  return copy!;
}

describe('isOriginError', () => {
  it('recognises an OriginError and its subclasses, optionally of one code', () => {
    expect(isOriginError(new OriginError('ORIGIN_APP_ID_MISSING'))).toBe(true);
    expect(isOriginError(new OriginError('ORIGIN_APP_ID_MISSING'), 'ORIGIN_APP_ID_MISSING')).toBe(true);
    expect(isOriginError(new OriginError('ORIGIN_APP_ID_MISSING'), 'ORIGIN_CONFIG_INVALID')).toBe(false);
    expect(isOriginError(new ConfigError([]), 'ORIGIN_CONFIG_INVALID')).toBe(true);
  });

  it('rejects other errors and values that merely look like one', () => {
    expect(isOriginError(new Error('ORIGIN_APP_ID_MISSING'))).toBe(false);
    expect(isOriginError({ name: 'OriginError', code: 'ORIGIN_APP_ID_MISSING' })).toBe(false);
    expect(isOriginError(null)).toBe(false);
    expect(isOriginError('ORIGIN_APP_ID_MISSING')).toBe(false);
  });

  it('recognises an OriginError made by another copy of the module, which instanceof does not', () => {
    const other = otherCopy();
    expect(other.OriginError).not.toBe(OriginError);
    const foreign = new other.OriginError('ORIGIN_APP_ID_MISSING');
    expect(foreign instanceof OriginError).toBe(false);
    expect(isOriginError(foreign, 'ORIGIN_APP_ID_MISSING')).toBe(true);
    expect(other.isOriginError(new OriginError('ORIGIN_APP_ID_MISSING'))).toBe(true);
  });

  it('keeps the mark out of the error’s own keys', () => {
    const error = new OriginError('ORIGIN_APP_ID_MISSING');
    expect(Object.getOwnPropertySymbols(error)).toEqual([]);
  });
});

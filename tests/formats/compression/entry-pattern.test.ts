import { entryAttributes, entryPatternMatcher } from '../../../src/formats/compression/entry-pattern';

describe('entry pattern', () => {
  it.each([
    ['*', 'a.csv', true],
    ['*', 'deep/down/a.csv', true],
    ['*.csv', 'deep/down/a.csv', true],
    ['*.csv', 'a.json', false],
    ['?.csv', 'a.csv', true],
    ['?.csv', 'ab.csv', false],
    ['orders/*.csv', 'orders/2024.csv', true],
    ['orders/*.csv', './orders/2024.csv', true],
    ['orders/*.csv', 'orders/old/2024.csv', false],
    ['orders/*.csv', 'other/orders/2024.csv', false],
    ['*/*.csv', 'orders/2024.csv', true],
    ['a.csv', 'axcsv', false],
    ['[ab].csv', '[ab].csv', true],
    ['[ab].csv', 'a.csv', false],
    ['data+(1).json', 'data+(1).json', true],
  ])('%j on %j gives %s', (pattern, name, expected) => {
    expect(entryPatternMatcher(pattern)(name)).toBe(expected);
  });

  it('splits an entry name into its directory and file name', () => {
    expect(entryAttributes('a.csv')).toEqual({ filePathInsideArchive: '', fileNameInsideArchive: 'a.csv' });
    expect(entryAttributes('../../etc/passwd')).toEqual({
      filePathInsideArchive: '../../etc',
      fileNameInsideArchive: 'passwd',
    });
  });
});

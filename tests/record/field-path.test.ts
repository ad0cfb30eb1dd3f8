import fc from 'fast-check';
import { formatFieldPath, parseFieldPath, type PathSegment } from '../../src/record/field-path';

const key = (k: string): PathSegment => ({ kind: 'key', key: k });
const index = (i: number): PathSegment => ({ kind: 'index', index: i });

describe('parseFieldPath', () => {
  it.each(['', '/'])('reads %j as the root', (path) => {
    expect(parseFieldPath(path)).toEqual([]);
  });

  it.each<[string, PathSegment[]]>([
    ['/a', [key('a')]],
    ['/a/b[0]/c', [key('a'), key('b'), index(0), key('c')]],
    ['/list[12][3]', [key('list'), index(12), index(3)]],
    ['[0]', [index(0)]],
    ['[2]/x', [index(2), key('x')]],
    ['/[2]/x', [index(2), key('x')]],
    ['/a b/c-d/é', [key('a b'), key('c-d'), key('é')]],
    ["/'a/b'", [key('a/b')]],
    ['/"x[1]"', [key('x[1]')]],
    ["/'it\\'s'", [key("it's")]],
    ['/"say \\"hi\\""', [key('say "hi"')]],
    ["/'back\\\\slash'", [key('back\\slash')]],
    ["/'a\"b'", [key('a"b')]],
    ['/"a\'b"', [key("a'b")]],
    ["/''", [key('')]],
    ["/'q'[1]/'r'", [key('q'), index(1), key('r')]],
    ['/007[007]', [key('007'), index(7)]],
  ])('reads %j', (path, segments) => {
    expect(parseFieldPath(path)).toEqual(segments);
  });

  it.each<[string, RegExp]>([
    ['a', /position 0: expected '\/' or '\['/],
    ['/a/', /position 3: empty name/],
    ['//a', /position 1: empty name/],
    ['/a[', /position 2: '\[' without a closing '\]'/],
    ['/a[x]', /position 3: index "x" is not a number/],
    ['/a[-1]', /index "-1" is not a number/],
    ['/a[]', /index "" is not a number/],
    ['/a[99999999999999999999]', /too large/],
    ["/'abc", /quoted name without a closing '/],
    ["/'abc\\", /backslash at the end/],
    ["/'a'b", /position 4: expected '\/' or '\[' after the quoted name/],
    ["/it's", /position 3: "'" in an unquoted name; quote the name/],
    ['/a]b', /"\]" in an unquoted name/],
    ['/a\\b', /in an unquoted name/],
    ['/a[0]b', /position 5: expected '\/' or '\['/],
  ])('refuses %j with a RangeError naming the path and position', (path, message) => {
    expect(() => parseFieldPath(path)).toThrow(RangeError);
    expect(() => parseFieldPath(path)).toThrow(message);
    expect(() => parseFieldPath(path)).toThrow(JSON.stringify(path));
  });

  it('returns frozen segments that repeated calls share', () => {
    const first = parseFieldPath('/shared/path[1]');
    expect(Object.isFrozen(first)).toBe(true);
    expect(parseFieldPath('/shared/path[1]')).toBe(first);
  });
});

describe('formatFieldPath', () => {
  it('writes no segments as the root', () => {
    expect(formatFieldPath([])).toBe('/');
  });

  it('writes word keys bare and indexes in brackets', () => {
    expect(formatFieldPath([key('a'), key('b_1'), index(0), key('c')])).toBe('/a/b_1[0]/c');
    expect(formatFieldPath([index(3), key('x')])).toBe('[3]/x');
  });

  it('single-quotes keys with non-word characters, escaping quote and backslash', () => {
    expect(formatFieldPath([key('a/b')])).toBe("/'a/b'");
    expect(formatFieldPath([key('x[1]')])).toBe("/'x[1]'");
    expect(formatFieldPath([key("it's")])).toBe("/'it\\'s'");
    expect(formatFieldPath([key('a\\b')])).toBe("/'a\\\\b'");
    expect(formatFieldPath([key('a"b')])).toBe("/'a\"b'");
    expect(formatFieldPath([key('')])).toBe("/''");
    expect(formatFieldPath([key('a b')])).toBe("/'a b'");
  });

  it('refuses an index that is not a non-negative safe integer', () => {
    expect(() => formatFieldPath([index(-1)])).toThrow(RangeError);
    expect(() => formatFieldPath([index(1.5)])).toThrow(RangeError);
  });

  it('round-trips any keys and indexes through format then parse', () => {
    const segment = fc.oneof(
      fc.string({ unit: 'binary' }).map(key),
      fc.constantFrom("'", '"', '\\', '/', '[', ']', '[0]', "\\'", '').map(key),
      fc.nat().map(index),
    );
    fc.assert(
      fc.property(fc.array(segment, { maxLength: 6 }), (segments) => {
        expect(parseFieldPath(formatFieldPath(segments))).toEqual(segments);
      }),
      { numRuns: 2000 },
    );
  });
});

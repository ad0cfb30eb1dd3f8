import { field, isPlainMap, isTypedField, TypedField, type FieldValue } from '../../src/record/field';
import { fieldTypeOf } from '../../src/record/field-type-of';
import {
  isListMap,
  listMapEntries,
  listMapKeys,
  listMapOf,
  listMapShapeOf,
  listMapToMap,
  ListMapShape,
  setListMapField,
  type ListMap,
} from '../../src/record/list-map';

describe('ListMapShape', () => {
  it('makes list-maps whose fields read as properties', () => {
    const shape = new ListMapShape(['name', 'first name', 'age']);
    const m = shape.create(['Ada', 'A.', 36]);
    expect(m.name).toBe('Ada');
    expect(m['first name']).toBe('A.');
    const { age } = m;
    expect(age).toBe(36);
    expect('name' in m).toBe(true);
    expect('missing' in m).toBe(false);
    expect(listMapKeys(m)).toEqual(['name', 'first name', 'age']);
  });

  it('shares one key table and prototype between the list-maps of one shape', () => {
    const shape = new ListMapShape(['a', 'b']);
    const one = shape.create([1, 2]);
    const two = shape.create([3, 4]);
    expect(Object.getPrototypeOf(one)).toBe(Object.getPrototypeOf(two));
    expect(Object.getOwnPropertySymbols(one)).toEqual([]);
    expect(shape.keys).toEqual(['a', 'b']);
    expect(Object.isFrozen(shape.keys)).toBe(true);
  });

  it('keeps the key order for integer-like keys, which JS enumerates first', () => {
    const m = new ListMapShape(['b', '10', 'a', '2']).create([1, 2, 3, 4]);
    expect(Object.keys(m)).toEqual(['2', '10', 'b', 'a']);
    expect(listMapKeys(m)).toEqual(['b', '10', 'a', '2']);
    expect(listMapEntries(m)).toEqual([
      ['b', 1],
      ['10', 2],
      ['a', 3],
      ['2', 4],
    ]);
  });

  it('holds a key named __proto__ as a field, leaving the prototype alone', () => {
    const m = new ListMapShape(['__proto__', 'x']).create([{ evil: true }, 1]);
    expect(isListMap(m)).toBe(true);
    expect(Object.getOwnPropertyDescriptor(m, '__proto__')?.value).toEqual({ evil: true });
    expect((m as unknown as { evil?: boolean }).evil).toBeUndefined();
    expect(listMapKeys(m)).toEqual(['__proto__', 'x']);
  });

  it('takes keys named like Map methods and Object.prototype members as plain fields', () => {
    const keys = ['get', 'set', 'size', 'keys', 'has', 'constructor', 'toJSON', 'hasOwnProperty', 'toString'];
    const m = new ListMapShape(keys).create(keys.map((key) => `${key}!`));
    for (const key of keys) expect(m[key]).toBe(`${key}!`);
    expect(listMapKeys(m)).toEqual(keys);
    expect(isListMap(m)).toBe(true);
    expect(fieldTypeOf(m)).toBe('LIST_MAP');
  });

  it('gives a repeated key its first position and its last value, as Map.set did', () => {
    const shape = new ListMapShape(['a', 'b', 'a']);
    expect(shape.keys).toEqual(['a', 'b']);
    expect(shape.size).toBe(3);
    const m = shape.create([1, 2, 3]);
    expect(listMapEntries(m)).toEqual([
      ['a', 3],
      ['b', 2],
    ]);
    const legacy = new Map<string, FieldValue>();
    for (const [key, value] of [
      ['a', 1],
      ['b', 2],
      ['a', 3],
    ] as const)
      legacy.set(key, value);
    expect(listMapToMap(m)).toEqual(legacy);
    expect([...listMapToMap(m)]).toEqual([...legacy]);
  });

  it('refuses a value count that differs from the key list, and undefined values', () => {
    const shape = new ListMapShape(['a', 'b']);
    expect(() => shape.create([1])).toThrow(RangeError);
    expect(() => shape.create([1, 2, 3])).toThrow(RangeError);
    expect(() => shape.create([1, undefined as unknown as FieldValue])).toThrow(RangeError);
  });

  it('copies the values out, so the array may be reused', () => {
    const shape = new ListMapShape(['a']);
    const values: FieldValue[] = [1];
    const m = shape.create(values);
    values[0] = 2;
    expect(m.a).toBe(1);
  });

  it('makes an empty list-map from an empty key list', () => {
    const m = new ListMapShape([]).create([]);
    expect(isListMap(m)).toBe(true);
    expect(listMapKeys(m)).toEqual([]);
    expect(fieldTypeOf(m)).toBe('LIST_MAP');
  });
});

describe('keys added and deleted after creation', () => {
  const make = (): ListMap => new ListMapShape(['b', '10', 'a']).create([1, 2, 3]);

  it('lists keys added later after the key table, integer-like ones first among them', () => {
    const m = make();
    m.zeta = 4;
    m['7'] = 5;
    setListMapField(m, 'alpha', 6);
    expect(listMapKeys(m)).toEqual(['b', '10', 'a', '7', 'zeta', 'alpha']);
  });

  it('drops deleted keys, and puts a re-added table key back in its table position', () => {
    const m = make();
    delete m['10'];
    expect(listMapKeys(m)).toEqual(['b', 'a']);
    m.c = 9;
    expect(listMapKeys(m)).toEqual(['b', 'a', 'c']);
    m['10'] = 7;
    expect(listMapKeys(m)).toEqual(['b', '10', 'a', 'c']);
  });

  it('drops a deleted key named like an Object.prototype member, which then reads the inherited one', () => {
    const m = new ListMapShape(['toString', '__proto__', 'constructor', 'x']).create([1, 2, 3, 4]);
    // The type checker takes these names for Object's members; at run time they are the list-map's fields.
    const fields = m as unknown as { [key: string]: unknown };
    delete fields['toString'];
    delete fields['__proto__'];
    delete fields['constructor'];
    expect(typeof m.toString).toBe('function');
    expect(listMapKeys(m)).toEqual(['x']);
  });

  it('adds a key named __proto__ as a field through setListMapField', () => {
    const m = make();
    setListMapField(m, '__proto__', 1);
    expect(isListMap(m)).toBe(true);
    expect(listMapKeys(m)).toEqual(['b', '10', 'a', '__proto__']);
  });
});

describe('listMapOf', () => {
  it('builds a list-map from pairs or a Map, in their order', () => {
    const pairs: [string, FieldValue][] = [
      ['z', 1],
      ['1', 'one'],
    ];
    expect(listMapKeys(listMapOf(pairs))).toEqual(['z', '1']);
    expect(listMapEntries(listMapOf(new Map(pairs)))).toEqual(pairs);
  });

  it('shares the shape of equal key lists', () => {
    const one = listMapOf([['a', 1]]);
    const two = listMapOf([['a', 2]]);
    expect(Object.getPrototypeOf(one)).toBe(Object.getPrototypeOf(two));
    expect(listMapShapeOf(['a'])).toBe(listMapShapeOf(['a']));
    // Keys holding the separator a naive cache key would use still get their own shape.
    expect(listMapShapeOf(['a,b'])).not.toBe(listMapShapeOf(['a', 'b']));
  });

  it('refuses an undefined value', () => {
    expect(() => listMapOf([['a', undefined as unknown as FieldValue]])).toThrow(RangeError);
  });
});

describe('listMapToMap', () => {
  it('gives a new Map in list-map order, which later changes to the list-map do not reach', () => {
    const m = listMapOf([
      ['x', 1],
      ['0', 2],
    ]);
    const map = listMapToMap(m);
    expect([...map]).toEqual([
      ['x', 1],
      ['0', 2],
    ]);
    m.x = 5;
    expect(map.get('x')).toBe(1);
  });
});

describe('telling list-maps from other values', () => {
  it('is neither a plain MAP nor a TypedField', () => {
    const m = listMapOf([['a', 1]]);
    expect(isPlainMap(m)).toBe(false);
    expect(isTypedField(m)).toBe(false);
    expect(fieldTypeOf(m)).toBe('LIST_MAP');
    // Compared and printed like the plain object of its fields (test matchers ignore key order for both).
    expect(m).toEqual({ a: 1 });
    expect(m).toStrictEqual({ a: 1 });
  });

  it.each<[string, unknown]>([
    ['a plain object', { a: 1 }],
    ['a Map', new Map()],
    ['null', null],
    ['an array', []],
    ['a LIST_MAP TypedField', field('LIST_MAP', listMapOf([]))],
    ['an object with a string-named brand', { 'rest-service-origin.ListMap': true }],
  ])('does not take %s for a list-map', (_label, value) => {
    expect(isListMap(value)).toBe(false);
  });

  it('recognises a list-map of another copy of the package by the registered brand', () => {
    const foreignBase = Object.create(Object.prototype, {
      [Symbol.for('rest-service-origin.ListMap')]: { value: true },
    }) as object;
    const foreignProto = Object.create(foreignBase, {
      [Symbol.for('rest-service-origin.listMapKeys')]: { value: Object.freeze(['b', '1']) },
    }) as object;
    const foreign = Object.assign(Object.create(foreignProto) as object, {
      b: 1,
      '1': 2,
    }) as unknown as ListMap;
    expect(isListMap(foreign)).toBe(true);
    expect(listMapKeys(foreign)).toEqual(['b', '1']);
    expect(fieldTypeOf(foreign)).toBe('LIST_MAP');
  });
});

describe('isTypedField', () => {
  it('recognises a TypedField of another copy of the package by the registered brand', () => {
    class ForeignTypedField {
      constructor(
        readonly type: string,
        readonly value: unknown,
        readonly attributes?: Readonly<Record<string, string>>,
      ) {}
    }
    Object.defineProperty(ForeignTypedField.prototype, Symbol.for('rest-service-origin.TypedField'), {
      value: true,
    });
    const foreign = new ForeignTypedField('SHORT', 3);
    expect(foreign instanceof TypedField).toBe(false);
    expect(isTypedField(foreign)).toBe(true);
    expect(fieldTypeOf(foreign as unknown as FieldValue)).toBe('SHORT');
  });

  it('does not take an object shaped like a TypedField without the brand for one', () => {
    expect(isTypedField({ type: 'SHORT', value: 3, attributes: undefined })).toBe(false);
  });
});

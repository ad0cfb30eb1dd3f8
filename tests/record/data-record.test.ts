import { DataRecord, cloneFieldValue, requestRecord } from '../../src/record/data-record';
import {
  field,
  FIELD_TYPES,
  isTypedField,
  TypedField,
  type FieldType,
  type PlainMap,
  type TypedValueOf,
} from '../../src/record/field';
import { isListMap, listMapKeys, listMapOf, listMapToMap, type ListMap } from '../../src/record/list-map';
import { RecordHeader } from '../../src/record/record-header';

const sample = (): PlainMap => ({
  name: 'Ada',
  age: 36,
  tags: ['x', 'y'],
  address: { city: 'London', 'odd/key': 1, 'x[1]': 2 },
  nothing: null,
  ordered: listMapOf([
    ['2', 'two'],
    ['1', 'one'],
  ]),
  typedList: field('LIST', [10, 20]),
  typedMap: field('MAP', { inner: true }),
});

describe('DataRecord.get / has', () => {
  const record = new DataRecord(sample());

  it('reads the root with "" and "/"', () => {
    expect(record.get('')).toBe(record.value);
    expect(record.get('/')).toBe(record.value);
  });

  it('reads keys, list positions and odd keys', () => {
    expect(record.get('/name')).toBe('Ada');
    expect(record.get('/tags[1]')).toBe('y');
    expect(record.get("/address/'odd/key'")).toBe(1);
    expect(record.get('/address/"x[1]"')).toBe(2);
  });

  it('reads LIST_MAP entries by key and by position, in key-table order', () => {
    expect(record.get('/ordered/1')).toBe('one');
    expect(record.get('/ordered[0]')).toBe('two');
    expect(record.get('/ordered[1]')).toBe('one');
    expect(record.get('/ordered[2]')).toBeUndefined();
    expect(record.get('/ordered/missing')).toBeUndefined();
  });

  it('reads a LIST_MAP field as a property, as a MAP field is read', () => {
    const ordered = (record.value as PlainMap).ordered as ListMap;
    expect(ordered['1']).toBe('one');
    expect(record.field('/ordered')?.type).toBe('LIST_MAP');
  });

  it('looks inside typed LIST and MAP wrappers', () => {
    expect(record.get('/typedList[1]')).toBe(20);
    expect(record.get('/typedMap/inner')).toBe(true);
  });

  it('returns typed fields as stored, without unwrapping them', () => {
    expect(isTypedField(record.get('/typedList'))).toBe(true);
    expect(isListMap(record.get('/ordered'))).toBe(true);
  });

  it('tells a null field from a missing one', () => {
    expect(record.get('/nothing')).toBeNull();
    expect(record.has('/nothing')).toBe(true);
    expect(record.get('/missing')).toBeUndefined();
    expect(record.has('/missing')).toBe(false);
  });

  it('finds nothing through scalars, past the end, or with the wrong kind of segment', () => {
    for (const path of [
      '/name/x',
      '/tags[5]',
      '/tags/0',
      '/address[0]',
      '/nothing/x',
      '/age[0]',
      '/toString',
    ]) {
      expect(record.has(path)).toBe(false);
    }
  });

  it('throws a RangeError for a malformed path', () => {
    expect(() => record.get('name')).toThrow(RangeError);
  });
});

describe('DataRecord.set', () => {
  it('replaces the whole value at the root', () => {
    const record = new DataRecord({ a: 1 });
    record.set('/', [1, 2]);
    expect(record.value).toEqual([1, 2]);
    record.set('', 'x');
    expect(record.value).toBe('x');
  });

  it('sets and adds keys, including odd keys', () => {
    const record = new DataRecord(sample());
    record.set('/name', 'Grace');
    record.set("/address/'new key'", 'v');
    record.set('/address/"a\\"b"', 'q');
    expect(record.get('/name')).toBe('Grace');
    expect((record.value as PlainMap).address).toMatchObject({ 'new key': 'v', 'a"b': 'q' });
  });

  it('creates missing intermediate MAPs for key segments', () => {
    const record = new DataRecord({});
    record.set('/a/b/c', 1);
    expect(record.value).toEqual({ a: { b: { c: 1 } } });
  });

  it('replaces a list item and appends at the list length, but leaves no holes', () => {
    const record = new DataRecord({ list: [1, 2] });
    record.set('/list[0]', 'first');
    record.set('/list[2]', 'appended');
    expect(record.get('/list')).toEqual(['first', 2, 'appended']);
    expect(() => record.set('/list[4]', 'x')).toThrow(/too short for \[4\]/);
  });

  it('sets LIST_MAP entries by key (appending new keys) and by position (keeping the key)', () => {
    const record = new DataRecord(sample());
    record.set('/ordered/3', 'three');
    record.set('/ordered[0]', 'TWO');
    const map = listMapToMap(record.get('/ordered') as ListMap);
    expect([...map]).toEqual([
      ['2', 'TWO'],
      ['1', 'one'],
      ['3', 'three'],
    ]);
    expect(() => record.set('/ordered[3]', 'x')).toThrow(RangeError);
    expect(() => record.set('/ordered[3]', 'x')).toThrow(/a LIST_MAP of 3, too short for \[3\]/);
  });

  it('sets a LIST_MAP key named __proto__ as a field, keeping the list-map', () => {
    const record = new DataRecord(sample());
    record.set("/ordered/'__proto__'", 'p');
    expect(isListMap(record.get('/ordered'))).toBe(true);
    expect(listMapKeys(record.get('/ordered') as ListMap)).toEqual(['2', '1', '__proto__']);
    expect(record.get("/ordered/'__proto__'")).toBe('p');
  });

  it('writes into typed LIST and MAP wrappers', () => {
    const record = new DataRecord(sample());
    record.set('/typedList[0]', 11);
    record.set('/typedMap/added', 'a');
    expect(record.get('/typedList[0]')).toBe(11);
    expect(record.get('/typedMap/added')).toBe('a');
  });

  it('sets an own key named __proto__ without changing the prototype', () => {
    const record = new DataRecord({});
    record.set("/'__proto__'", 'p');
    expect(Object.getPrototypeOf(record.value)).toBe(Object.prototype);
    expect(Object.keys(record.value as PlainMap)).toEqual(['__proto__']);
    expect(record.get("/'__proto__'")).toBe('p');
  });

  it.each<[string, RegExp]>([
    ['/name/x', /the field at \/name is of type STRING, not a container/],
    ['/nothing/x', /the field at \/nothing is null/],
    ['/tags/x', /the field at \/tags is a LIST, which takes \[n\], not a key/],
    ['/address[0]', /the field at \/address is a MAP, which takes a key, not \[n\]/],
    ['/missing[0]', /the field at \/missing is missing/],
    ['/tags[9]/x', /the field at \/tags\[9\] is missing/],
    ['/age/a/b', /the field at \/age is of type INTEGER/],
  ])('throws a RangeError setting %j when a parent is not a fitting container', (path, message) => {
    const record = new DataRecord(sample());
    expect(() => record.set(path, 1)).toThrow(RangeError);
    expect(() => record.set(path, 1)).toThrow(message);
  });

  it('throws when the root is not a container', () => {
    expect(() => new DataRecord('scalar').set('/a', 1)).toThrow(/the field at \/ is of type STRING/);
    expect(() => new DataRecord(null).set('/a', 1)).toThrow(/the field at \/ is null/);
  });
});

describe('DataRecord.delete', () => {
  it('nulls the value at the root', () => {
    const record = new DataRecord({ a: 1 });
    expect(record.delete('/')).toBe(true);
    expect(record.value).toBeNull();
    expect(record.delete('/')).toBe(false);
  });

  it('removes keys, odd keys and list items (later items move up)', () => {
    const record = new DataRecord(sample());
    expect(record.delete('/name')).toBe(true);
    expect(record.delete("/address/'odd/key'")).toBe(true);
    expect(record.delete('/tags[0]')).toBe(true);
    expect(record.has('/name')).toBe(false);
    expect(record.get('/address')).toEqual({ city: 'London', 'x[1]': 2 });
    expect(record.get('/tags')).toEqual(['y']);
  });

  it('removes LIST_MAP entries by key and by position', () => {
    const record = new DataRecord(sample());
    expect(record.delete('/ordered[1]')).toBe(true);
    expect(record.has('/ordered/1')).toBe(false);
    expect(record.delete('/ordered/2')).toBe(true);
    expect(listMapKeys(record.get('/ordered') as ListMap)).toEqual([]);
    expect(record.delete('/ordered[0]')).toBe(false);
    expect(record.delete('/ordered/2')).toBe(false);
  });

  it('returns false for paths that lead nowhere', () => {
    const record = new DataRecord(sample());
    for (const path of [
      '/missing',
      '/missing/deeper',
      '/tags[7]',
      '/name/x',
      '/tags/x',
      '/address[0]',
      '/ordered[9]',
    ]) {
      expect(record.delete(path)).toBe(false);
    }
    expect(record.value).toEqual(sample());
  });
});

describe('DataRecord.field', () => {
  const record = new DataRecord({
    plain: 5,
    big: 2 ** 40,
    decimal: field('DECIMAL', '1.50', { precision: '3', scale: '2' }),
    when: new Date(1000),
    list: [1],
  });

  it('gives a typed view of plain values', () => {
    expect(record.field('/plain')).toEqual({ type: 'INTEGER', value: 5, attributes: undefined });
    expect(record.field('/big')).toEqual({ type: 'LONG', value: 2 ** 40, attributes: undefined });
    expect(record.field('/when')).toEqual({ type: 'DATETIME', value: new Date(1000), attributes: undefined });
    expect(record.field('/list')).toEqual({ type: 'LIST', value: [1], attributes: undefined });
    expect(record.field('/')?.type).toBe('MAP');
  });

  it('unwraps typed fields and shows their field attributes', () => {
    const view = record.field('/decimal');
    expect(view).toEqual({ type: 'DECIMAL', value: '1.50', attributes: { precision: '3', scale: '2' } });
    if (view?.type === 'DECIMAL') {
      const text: string | null = view.value;
      expect(text).toBe('1.50');
    }
  });

  it('gives undefined for a missing field', () => {
    expect(record.field('/missing')).toBeUndefined();
  });
});

describe('DataRecord construction and headers', () => {
  it('builds its header from base attributes, own attributes and id', () => {
    const base = RecordHeader.freezeAttributes({ method: 'POST' });
    const record = new DataRecord({}, { baseAttributes: base, attributes: { own: '1' }, sourceId: 'r::0' });
    expect(record.header.attributes()).toEqual({ method: 'POST', own: '1' });
    expect(record.header.sourceId).toBe('r::0');
  });

  it('uses a given header as is', () => {
    const header = new RecordHeader({ sourceId: 'given' });
    expect(new DataRecord(null, { header }).header).toBe(header);
  });

  it('refuses a header combined with header parts', () => {
    expect(() => new DataRecord(null, { header: new RecordHeader(), sourceId: 'x' })).toThrow(TypeError);
  });
});

describe('requestRecord', () => {
  const source = { requestId: 'req-7', baseAttributes: RecordHeader.freezeAttributes({ method: 'POST' }) };

  it('has the header the constructor would build: shared attributes, its own, and <requestId>::<index>', () => {
    const record = requestRecord({ a: 1 }, source, 3, { own: '1' });
    expect(record).toBeInstanceOf(DataRecord);
    expect(record.value).toEqual({ a: 1 });
    expect(record.header).toBeInstanceOf(RecordHeader);
    expect(record.header.attributes()).toEqual({ method: 'POST', own: '1' });
    expect(record.header.sourceId).toBe('req-7::3');
    expect(record.header.isErrorRecord).toBe(false);
  });

  it('gives the same header object on every read, keeping changes made to it', () => {
    const record = requestRecord({}, source, 0);
    record.header.setAttribute('added', 'x');
    record.header.errorCode = 'E';
    expect(record.header).toBe(record.header);
    expect(record.header.getAttribute('added')).toBe('x');
    expect(record.header.errorCode).toBe('E');
    expect(record.header.attributes()).toEqual({ method: 'POST', added: 'x' });
  });

  it('keeps headers of records of one request independent', () => {
    const first = requestRecord({}, source, 0);
    const second = requestRecord({}, source, 1);
    first.header.setAttribute('method', 'GET');
    expect(second.header.getAttribute('method')).toBe('POST');
    expect(second.header.sourceId).toBe('req-7::1');
  });

  it('clones with the header it would have had', () => {
    const copy = requestRecord({ a: 1 }, source, 5).clone();
    expect(copy.header.sourceId).toBe('req-7::5');
    expect(copy.header.attributes()).toEqual({ method: 'POST' });
  });
});

describe('DataRecord.clone', () => {
  it('copies value and header deeply, so changing the clone leaves the original alone', () => {
    const base = RecordHeader.freezeAttributes({ method: 'POST' });
    const bytes = new Uint8Array([1, 2, 3]);
    const original = new DataRecord(
      { ...sample(), bytes, when: new Date(5), typedDate: field('DATE', new Date(7)) },
      { baseAttributes: base, sourceId: 'r::1' },
    );
    const copy = original.clone();
    expect(copy.value).toEqual(original.value);
    expect(copy.header.attributes()).toEqual({ method: 'POST' });
    expect(copy.header.sourceId).toBe('r::1');

    copy.set('/name', 'changed');
    copy.set('/tags[0]', 'changed');
    copy.set('/ordered/1', 'changed');
    copy.set('/typedMap/inner', false);
    (copy.get('/bytes') as Uint8Array)[0] = 99;
    (copy.get('/when') as Date).setTime(0);
    ((copy.get('/typedDate') as TypedField<'DATE'>).value as Date).setTime(0);
    copy.header.setAttribute('method', 'GET');

    expect(original.get('/name')).toBe('Ada');
    expect(original.get('/tags[0]')).toBe('x');
    expect(original.get('/ordered/1')).toBe('one');
    expect(original.get('/typedMap/inner')).toBe(true);
    expect(bytes[0]).toBe(1);
    expect((original.get('/when') as Date).getTime()).toBe(5);
    expect(((original.get('/typedDate') as TypedField<'DATE'>).value as Date).getTime()).toBe(7);
    expect(original.header.getAttribute('method')).toBe('POST');
  });

  it('keeps a Buffer a Buffer and a null-prototype MAP prototype-free', () => {
    const nullProto = Object.create(null) as PlainMap;
    nullProto.k = 1;
    const copy = cloneFieldValue({ buf: Buffer.from('hi'), np: nullProto }) as PlainMap;
    expect(Buffer.isBuffer(copy.buf)).toBe(true);
    expect(Object.getPrototypeOf(copy.np)).toBeNull();
    expect({ ...(copy.np as PlainMap) }).toEqual({ k: 1 });
  });

  it('copies a list-map with its key table, order, added and deleted keys', () => {
    const original = listMapOf([
      ['b', 1],
      ['2', { deep: 1 }],
      ['a', 3],
    ]);
    delete original.a;
    original['1'] = 4;
    const copy = cloneFieldValue(original) as ListMap;
    expect(Object.getPrototypeOf(copy)).toBe(Object.getPrototypeOf(original));
    expect(listMapKeys(copy)).toEqual(['b', '2', '1']);
    expect(copy['2']).toEqual({ deep: 1 });
    expect(copy['2']).not.toBe(original['2']);
  });

  const exampleOf: { [T in FieldType]: TypedValueOf[T] } = {
    BOOLEAN: true,
    CHAR: 'c',
    BYTE: -128,
    SHORT: 32767,
    INTEGER: -5,
    LONG: 9007199254740993n,
    FLOAT: Math.fround(0.1),
    DOUBLE: 0.1,
    DECIMAL: '-12.340',
    DATE: new Date(Date.UTC(2024, 0, 2)),
    DATETIME: new Date(1700000000123),
    TIME: new Date(3723004),
    ZONED_DATETIME: '2024-01-02T03:04:05.006+01:00[Europe/Paris]',
    STRING: 'text',
    BYTE_ARRAY: new Uint8Array([0, 255, 7]),
    MAP: { a: field('SHORT', 1), b: [new Date(1)] },
    LIST: [field('CHAR', 'x'), null, { z: 1n }],
    LIST_MAP: listMapOf([
      ['2', 1],
      ['1', field('BYTE', 2)],
    ]),
  };

  it.each(FIELD_TYPES)('every engine field type round-trips exactly through clone: %s', (type) => {
    const attributes = { origin: 'test' };
    const original = new DataRecord({
      f: field(type, exampleOf[type] as never, attributes),
      n: field(type, null),
    });
    const copy = original.clone();
    const copied = copy.get('/f') as TypedField;
    const source = original.get('/f') as TypedField;
    expect(copied).toBeInstanceOf(TypedField);
    expect(copied).not.toBe(source);
    expect(copied.type).toBe(type);
    expect(copied.value).toEqual(source.value);
    expect(copied.attributes).toEqual(attributes);
    expect(copy.field('/n')).toEqual({ type, value: null, attributes: undefined });
    if (typeof source.value === 'object' && source.value !== null) {
      expect(copied.value).not.toBe(source.value);
      expect(Object.getPrototypeOf(copied.value)).toBe(Object.getPrototypeOf(source.value));
    }
    if (isListMap(source.value)) {
      expect(listMapKeys(copied.value as ListMap)).toEqual(listMapKeys(source.value));
    }
  });
});

describe('DataRecord.createErrorRecord', () => {
  it('clones the original and puts the error in the header', () => {
    const original = new DataRecord({ a: 1 }, { attributes: { method: 'POST' }, sourceId: 'r::2' });
    const error = DataRecord.createErrorRecord(original, {
      code: 'ORIGIN_JSON_MALFORMED',
      message: 'ORIGIN_JSON_MALFORMED - Malformed JSON at byte 3: x.',
      stage: 'RESTServiceOrigin',
      timestamp: 1234,
    });
    expect(error).not.toBe(original);
    expect(error.value).toEqual({ a: 1 });
    expect(error.value).not.toBe(original.value);
    expect(error.header.isErrorRecord).toBe(true);
    expect(error.header.errorCode).toBe('ORIGIN_JSON_MALFORMED');
    expect(error.header.errorMessage).toBe('ORIGIN_JSON_MALFORMED - Malformed JSON at byte 3: x.');
    expect(error.header.errorStage).toBe('RESTServiceOrigin');
    expect(error.header.errorTimestamp).toBe(1234);
    expect(error.header.sourceId).toBe('r::2');
    expect(error.header.getAttribute('method')).toBe('POST');
    expect(original.header.isErrorRecord).toBe(false);
  });

  it('stamps the current time when no timestamp is given', () => {
    const before = Date.now();
    const error = DataRecord.createErrorRecord(new DataRecord(null), {
      code: 'C',
      message: 'C - m',
      stage: 's',
    });
    const after = Date.now();
    expect(error.header.errorTimestamp).toBeGreaterThanOrEqual(before);
    expect(error.header.errorTimestamp).toBeLessThanOrEqual(after);
  });
});

import { RecordHeader } from '../../src/record/record-header';

const requestAttributes = (): Readonly<Record<string, string>> =>
  RecordHeader.freezeAttributes({
    method: 'POST',
    path: '/rest/v1/user',
    queryString: '',
    'Content-Type': 'x',
  });

describe('RecordHeader attributes', () => {
  it('reads base attributes and gives undefined for a missing one (record:attribute)', () => {
    const header = new RecordHeader({ baseAttributes: requestAttributes() });
    expect(header.getAttribute('method')).toBe('POST');
    expect(header.getAttribute('Content-Type')).toBe('x');
    expect(header.getAttribute('missing')).toBeUndefined();
  });

  it('gives the fallback only when the attribute is missing, not when it is empty (record:attributeOrDefault)', () => {
    const header = new RecordHeader({ baseAttributes: requestAttributes() });
    expect(header.getAttributeOrDefault('missing', 'dflt')).toBe('dflt');
    expect(header.getAttributeOrDefault('queryString', 'dflt')).toBe('');
    expect(header.getAttributeOrDefault('method', 'dflt')).toBe('POST');
  });

  it('does not see Object.prototype members as attributes', () => {
    const header = new RecordHeader({ baseAttributes: Object.freeze({ a: '1' }) });
    for (const name of ['toString', 'constructor', '__proto__', 'hasOwnProperty']) {
      expect(header.getAttribute(name)).toBeUndefined();
      expect(header.hasAttribute(name)).toBe(false);
    }
  });

  it('keeps an attribute named __proto__ as an ordinary attribute', () => {
    const header = new RecordHeader();
    header.setAttribute('__proto__', 'p');
    expect(header.getAttribute('__proto__')).toBe('p');
    const copy = header.attributes();
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
    expect(Object.keys(copy)).toEqual(['__proto__']);
    expect(Object.getOwnPropertyDescriptor(copy, '__proto__')?.value).toBe('p');
  });

  it('lets own attributes override base attributes without touching the shared base', () => {
    const base = requestAttributes();
    const one = new RecordHeader({ baseAttributes: base });
    const two = new RecordHeader({ baseAttributes: base });
    one.setAttribute('method', 'PUT');
    one.setAttribute('extra', 'e');
    expect(one.getAttribute('method')).toBe('PUT');
    expect(one.getAttribute('extra')).toBe('e');
    expect(two.getAttribute('method')).toBe('POST');
    expect(two.hasAttribute('extra')).toBe(false);
    expect(base.method).toBe('POST');
  });

  it('deletes a base attribute from one header only', () => {
    const base = requestAttributes();
    const one = new RecordHeader({ baseAttributes: base });
    const two = new RecordHeader({ baseAttributes: base });
    expect(one.deleteAttribute('method')).toBe(true);
    expect(one.getAttribute('method')).toBeUndefined();
    expect(one.hasAttribute('method')).toBe(false);
    expect(one.attributeNames()).not.toContain('method');
    expect(one.deleteAttribute('method')).toBe(false);
    expect(two.getAttribute('method')).toBe('POST');
  });

  it('can set a deleted base attribute again', () => {
    const header = new RecordHeader({ baseAttributes: requestAttributes() });
    header.deleteAttribute('path');
    header.setAttribute('path', '/other');
    expect(header.getAttribute('path')).toBe('/other');
    expect(header.attributeNames()).toEqual(['method', 'path', 'queryString', 'Content-Type']);
  });

  it('deletes an own attribute and reports a missing one', () => {
    const header = new RecordHeader({ attributes: { own: 'o' } });
    expect(header.deleteAttribute('own')).toBe(true);
    expect(header.hasAttribute('own')).toBe(false);
    expect(header.deleteAttribute('never')).toBe(false);
  });

  it('lists names in base order, then own additions in insertion order', () => {
    const header = new RecordHeader({ baseAttributes: requestAttributes(), attributes: { avroSchema: 's' } });
    header.setAttribute('method', 'GET');
    header.setAttribute('z', '1');
    header.deleteAttribute('queryString');
    expect(header.attributeNames()).toEqual(['method', 'path', 'Content-Type', 'avroSchema', 'z']);
    expect(header.attributes()).toEqual({
      method: 'GET',
      path: '/rest/v1/user',
      'Content-Type': 'x',
      avroSchema: 's',
      z: '1',
    });
  });

  it('returns a copy from attributes() that does not write back', () => {
    const header = new RecordHeader({ baseAttributes: requestAttributes() });
    const copy = header.attributes();
    copy.method = 'CHANGED';
    copy.added = 'a';
    expect(header.getAttribute('method')).toBe('POST');
    expect(header.hasAttribute('added')).toBe(false);
  });

  it('shares a frozen base object as is and copies an unfrozen one', () => {
    const frozen = Object.freeze({ a: '1' });
    const unfrozen: Record<string, string> = { a: '1' };
    const fromUnfrozen = new RecordHeader({ baseAttributes: unfrozen });
    unfrozen.a = 'changed';
    expect(fromUnfrozen.getAttribute('a')).toBe('1');
    expect(new RecordHeader({ baseAttributes: frozen }).getAttribute('a')).toBe('1');
    expect(Object.isFrozen(unfrozen)).toBe(false);
  });

  it('makes a frozen null-prototype copy with freezeAttributes', () => {
    const frozen = RecordHeader.freezeAttributes({ a: '1' });
    expect(Object.isFrozen(frozen)).toBe(true);
    expect(Object.getPrototypeOf(frozen)).toBeNull();
    expect({ ...frozen }).toEqual({ a: '1' });
  });

  it('refuses a non-string attribute value', () => {
    const header = new RecordHeader();
    expect(() => header.setAttribute('n', 1 as unknown as string)).toThrow(TypeError);
  });
});

describe('RecordHeader identity and errors', () => {
  it('carries the record id and no error by default', () => {
    const header = new RecordHeader({ sourceId: 'req-1::0' });
    expect(header.sourceId).toBe('req-1::0');
    expect(new RecordHeader().sourceId).toBe('');
    expect(header.isErrorRecord).toBe(false);
    expect(header.errorCode).toBeUndefined();
    expect(header.errorMessage).toBeUndefined();
    expect(header.errorStage).toBeUndefined();
    expect(header.errorTimestamp).toBeUndefined();
  });

  it('is an error record once it has an error code or an error message', () => {
    const byCode = new RecordHeader();
    byCode.errorCode = 'ORIGIN_JSON_MALFORMED';
    expect(byCode.isErrorRecord).toBe(true);
    const byMessage = new RecordHeader();
    byMessage.errorMessage = 'X - broken';
    expect(byMessage.isErrorRecord).toBe(true);
  });

  it('clones into an independent header that keeps attributes, id and error fields', () => {
    const header = new RecordHeader({ baseAttributes: requestAttributes(), sourceId: 'id' });
    header.setAttribute('own', 'o');
    header.deleteAttribute('path');
    header.errorCode = 'C';
    header.errorMessage = 'C - m';
    header.errorStage = 'stage';
    header.errorTimestamp = 42;
    const copy = header.clone();
    expect(copy.attributes()).toEqual(header.attributes());
    expect([copy.sourceId, copy.errorCode, copy.errorMessage, copy.errorStage, copy.errorTimestamp]).toEqual([
      'id',
      'C',
      'C - m',
      'stage',
      42,
    ]);
    copy.setAttribute('own', 'changed');
    copy.setAttribute('path', 'back');
    copy.errorCode = 'D';
    expect(header.getAttribute('own')).toBe('o');
    expect(header.hasAttribute('path')).toBe(false);
    expect(header.errorCode).toBe('C');
  });
});

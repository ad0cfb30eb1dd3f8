import { ReservedAttributeNames } from '../../src/record/reserved-attribute-names';

describe('ReservedAttributeNames', () => {
  const names = new ReservedAttributeNames(['avroSchema', 'xmlns', 'xmlns:*', 'avroSchema']);

  it('keeps the declared names once, in order', () => {
    expect(names.names).toEqual(['avroSchema', 'xmlns', 'xmlns:*']);
  });

  it('matches exact names and prefixes given lower-cased', () => {
    expect(names.has('avroschema')).toBe(true);
    expect(names.has('xmlns')).toBe(true);
    expect(names.has('xmlns:soap')).toBe(true);
    expect(names.has('xmlnsx')).toBe(false);
    expect(names.has('avroschema2')).toBe(false);
    expect(names.has('x-tag')).toBe(false);
  });
});

import { BUILT_IN_FORMATS, defaultRegistry } from '../../src/formats/built-in';
import { resolveFormatConfig } from '../../src/formats/format-config';

describe('built-in formats', () => {
  it('registers json and binary in the default registry', () => {
    expect(BUILT_IN_FORMATS.map((f) => f.name)).toEqual(['json', 'binary']);
    expect(defaultRegistry.names()).toEqual(['json', 'binary']);
    expect(defaultRegistry.get('json')).toBe(BUILT_IN_FORMATS[0]);
  });

  it('gives every built-in format a complete config from {} with the reference defaults', () => {
    expect(resolveFormatConfig(defaultRegistry.get('json'), {})).toEqual({
      jsonContent: 'multipleObjects',
      maxObjectLengthChars: 4096,
      charset: 'UTF-8',
      ignoreControlCharacters: false,
    });
    expect(resolveFormatConfig(defaultRegistry.get('binary'), {})).toEqual({ maxDataSizeBytes: 1024 });
  });

  it('describes every option of every built-in format for the docs', () => {
    for (const format of BUILT_IN_FORMATS) {
      const properties = format.configSchema['properties'] as Record<string, Record<string, unknown>>;
      for (const [name, schema] of Object.entries(properties)) {
        expect([format.name, name, typeof schema['description'], 'default' in schema]).toEqual([
          format.name,
          name,
          'string',
          true,
        ]);
      }
    }
  });
});

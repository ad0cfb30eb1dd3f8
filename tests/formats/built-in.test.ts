import { BUILT_IN_FORMATS, defaultRegistry } from '../../src/formats/built-in';
import { resolveFormatConfig } from '../../src/formats/format-config';

describe('built-in formats', () => {
  it('registers json, binary, xml, delimited, avro, protobuf, datagram and engineRecord in the default registry', () => {
    expect(BUILT_IN_FORMATS.map((f) => f.name)).toEqual([
      'json',
      'binary',
      'xml',
      'delimited',
      'avro',
      'protobuf',
      'datagram',
      'engineRecord',
    ]);
    expect(defaultRegistry.names()).toEqual([
      'json',
      'binary',
      'xml',
      'delimited',
      'avro',
      'protobuf',
      'datagram',
      'engineRecord',
    ]);
    expect(defaultRegistry.get('json')).toBe(BUILT_IN_FORMATS[0]);
  });

  it('gives every built-in format a complete config from {} with the reference defaults', () => {
    expect(resolveFormatConfig(defaultRegistry.get('json'), {})).toEqual({
      jsonContent: 'multipleObjects',
      maxObjectLengthChars: 4096,
      maxNestingDepth: 500,
      charset: 'UTF-8',
      ignoreControlCharacters: false,
    });
    expect(resolveFormatConfig(defaultRegistry.get('binary'), {})).toEqual({ maxDataSizeBytes: 1024 });
    expect(resolveFormatConfig(defaultRegistry.get('engineRecord'), {})).toEqual({});
    expect(resolveFormatConfig(defaultRegistry.get('avro'), {})).toEqual({ maxBlockSizeBytes: 16_777_216 });
    expect(resolveFormatConfig(defaultRegistry.get('protobuf'), {})).toEqual({
      protobufDescriptorFile: '',
      messageType: '',
      delimitedMessages: true,
      resourcesDirectory: '',
    });
    expect(resolveFormatConfig(defaultRegistry.get('xml'), {})).toEqual({
      delimiterElement: '',
      preserveRootElement: true,
      includeFieldXpaths: false,
      namespaces: [],
      outputFieldAttributes: false,
      maxRecordLengthChars: 4096,
      maxNestingDepth: 250,
      maxAttributesPerElement: 1000,
      maxTokenLengthChars: 65536,
      charset: 'UTF-8',
      ignoreControlCharacters: false,
    });
    expect(resolveFormatConfig(defaultRegistry.get('delimited'), {})).toMatchObject({
      headerLine: 'noHeader',
      csvParser: 'standard',
      delimiterFormatType: 'csv',
      multiCharacterFieldDelimiter: '||',
      delimiterCharacter: '|',
      maxColumns: 1000,
      maxCharactersPerColumn: 1000,
      extraColumnPrefix: '_extra_',
      maxRecordLengthChars: 1024,
      rootFieldType: 'listMap',
      nullConstant: '\\N',
    });
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

import { datagramFormat } from '../../../src/formats/datagram/datagram-format';
import { CollectdParser } from '../../../src/formats/datagram/collectd/collectd-parser';
import { RawDataParser } from '../../../src/formats/datagram/raw/raw-data-parser';
import { resolveFormatConfig } from '../../../src/formats/format-config';

describe('datagram format', () => {
  it('completes an empty config with the defaults of every option', () => {
    expect(resolveFormatConfig(datagramFormat, {})).toEqual({
      packetFormat: 'syslog',
      typesDbFile: '',
      authFile: '',
      convertHiResTimeAndInterval: false,
      excludeInterval: true,
      recordGenerationMode: 'rawAndInterpreted',
      maxTemplatesInCache: 1000,
      templateCacheTimeoutMs: -1,
      charset: 'UTF-8',
      ignoreControlCharacters: false,
      rawDataSeparator: '\n',
      syslogFraming: 'auto',
    });
  });

  it('gives every option a description for docs/config.md', () => {
    const properties = datagramFormat.configSchema['properties'] as Record<string, Record<string, unknown>>;
    for (const [name, schema] of Object.entries(properties)) {
      expect([name, typeof schema['description']]).toEqual([name, 'string']);
      expect(schema).toHaveProperty('default');
    }
  });

  it('refuses an unknown packet format with ORIGIN_CONFIG_INVALID', () => {
    expect(() => resolveFormatConfig(datagramFormat, { packetFormat: 'ipfix' })).toThrow(
      expect.objectContaining({ code: 'ORIGIN_CONFIG_INVALID' }),
    );
  });

  it('makes the parser of the configured packet format', () => {
    const make = (packetFormat: string) =>
      datagramFormat.createParser(resolveFormatConfig(datagramFormat, { packetFormat }), {
        originState: new Map(),
      });
    expect(make('collectd')).toBeInstanceOf(CollectdParser);
    expect(make('rawData')).toBeInstanceOf(RawDataParser);
    for (const other of ['netflow', 'syslog']) {
      const parser = make(other);
      expect(parser).not.toBeInstanceOf(CollectdParser);
      expect(parser).not.toBeInstanceOf(RawDataParser);
      expect(typeof parser.push).toBe('function');
    }
  });
});

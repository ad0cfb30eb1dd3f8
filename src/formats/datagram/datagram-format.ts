import { readFileSync } from 'node:fs';
import { TextDecoder } from 'node:util';
import { OriginError } from '../../errors/origin-error';
import type { DataFormat, ParseSource, Parser } from '../data-format';
import { parseAuthFile } from './collectd/auth-file';
import { CollectdParser } from './collectd/collectd-parser';
import { defaultTypesDb, parseTypesDb, type TypesDb } from './collectd/types-db';
import { createNetflowParser } from './netflow/netflow-parser';
import { RawDataParser } from './raw/raw-data-parser';
import { createSyslogParser } from './syslog/syslog-parser';
import { DATAGRAM_FORMAT_SCHEMA, type DatagramFormatConfig } from './datagram-options';

/**
 * The built-in `datagram` format: the body is the raw payload of one datagram (the bytes a UDP packet carries),
 * parsed as `packetFormat` says. See the parsers for each record shape: `CollectdParser`,
 * `createNetflowParser`, `createSyslogParser` and `RawDataParser`.
 *
 * `createParser` throws `OriginError('ORIGIN_DATAGRAM_FILE_UNREADABLE')` when `typesDbFile` or `authFile` cannot
 * be read, and `OriginError('ORIGIN_CHARSET_UNSUPPORTED')` for a charset this Node.js build cannot decode. Both
 * files are read on the first parser an origin makes and kept in the origin's state for its life, so a change
 * to them takes effect when the origin is made again.
 */
export const datagramFormat: DataFormat<DatagramFormatConfig> = {
  name: 'datagram',
  description:
    'Datagram: the body is one datagram payload (collectd, NetFlow v5/v9, syslog) or separated raw data.',
  configSchema: DATAGRAM_FORMAT_SCHEMA,
  createParser: (config, source) => createDatagramParser(config, source),
};

function createDatagramParser(config: DatagramFormatConfig, source: ParseSource): Parser {
  switch (config.packetFormat) {
    case 'collectd':
      checkCharset(config.charset);
      return new CollectdParser({
        typesDb:
          config.typesDbFile === ''
            ? defaultTypesDb()
            : cached(source, 'typesDbFile', config.typesDbFile, parseTypesDb),
        users:
          config.authFile === '' ? undefined : cached(source, 'authFile', config.authFile, parseAuthFile),
        convertHiResTimeAndInterval: config.convertHiResTimeAndInterval,
        excludeInterval: config.excludeInterval,
        charset: config.charset,
        ignoreControlCharacters: config.ignoreControlCharacters,
      });
    case 'netflow':
      return createNetflowParser(
        {
          recordGenerationMode: config.recordGenerationMode,
          maxTemplatesInCache: config.maxTemplatesInCache,
          templateCacheTimeoutMs: config.templateCacheTimeoutMs,
          ignoreControlCharacters: config.ignoreControlCharacters,
        },
        source,
      );
    case 'syslog':
      return createSyslogParser({
        charset: config.charset,
        ignoreControlCharacters: config.ignoreControlCharacters,
        framing: config.syslogFraming,
      });
    case 'rawData':
      return new RawDataParser(config.charset, config.ignoreControlCharacters, config.rawDataSeparator);
  }
}

/** The parsed content of a file named by an option, read once per origin (per `originState`) and path. */
function cached<T extends TypesDb | ReadonlyMap<string, string>>(
  source: ParseSource,
  option: 'typesDbFile' | 'authFile',
  path: string,
  parse: (text: string) => T,
): T {
  const key = `datagram.${option}:${path}`;
  const known = source.originState.get(key);
  if (known !== undefined) return known as T;
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new OriginError('ORIGIN_DATAGRAM_FILE_UNREADABLE', { option, path, reason }, { cause: error });
  }
  const parsed = parse(text);
  source.originState.set(key, parsed);
  return parsed;
}

function checkCharset(charset: string): void {
  try {
    new TextDecoder(charset);
  } catch (error) {
    throw new OriginError('ORIGIN_CHARSET_UNSUPPORTED', { charset }, { cause: error });
  }
}

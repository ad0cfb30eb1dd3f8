import { readFileSync } from 'node:fs';
import { TextDecoder } from 'node:util';
import { OriginError } from '../../errors/origin-error';
import type { DataFormat, JsonSchema, ParseSource, Parser } from '../data-format';
import { parseAuthFile } from './collectd/auth-file';
import { CollectdParser } from './collectd/collectd-parser';
import { defaultTypesDb, parseTypesDb, type TypesDb } from './collectd/types-db';
import { createNetflowParser } from './netflow/netflow-parser';
import { RawDataParser } from './raw/raw-data-parser';
import { createSyslogParser } from './syslog/syslog-parser';

/** The packet formats a datagram body can hold. */
export type DatagramPacketFormat = 'collectd' | 'netflow' | 'syslog' | 'rawData';

/** What NetFlow v9 records carry: raw field bytes, interpreted values, or both. */
export type RecordGenerationMode = 'rawOnly' | 'interpretedOnly' | 'rawAndInterpreted';

/** The Datagram format's options (`dataFormat.datagram`) with defaults applied. */
export interface DatagramFormatConfig {
  /** Which protocol the body's bytes are. */
  readonly packetFormat: DatagramPacketFormat;
  /** collectd: path of a types.db replacing the bundled one; `''` for the bundled one. */
  readonly typesDbFile: string;
  /** collectd: path of an AuthFile (`user: password` lines) for signed and encrypted packets; `''` for none. */
  readonly authFile: string;
  /** collectd: store high-resolution time and interval as UNIX milliseconds under `time`/`interval`. */
  readonly convertHiResTimeAndInterval: boolean;
  /** collectd: leave the interval out of the records. */
  readonly excludeInterval: boolean;
  /** NetFlow v9: which values a record carries. */
  readonly recordGenerationMode: RecordGenerationMode;
  /** NetFlow v9: most templates kept per origin; -1 for no limit. */
  readonly maxTemplatesInCache: number;
  /** NetFlow v9: a template unused this long is evicted; -1 keeps templates forever. */
  readonly templateCacheTimeoutMs: number;
  /** Charset of text: syslog messages, raw data pieces, collectd strings (a WHATWG encoding label). */
  readonly charset: string;
  /** syslog and raw data: remove ASCII control characters other than tab, LF and CR. */
  readonly ignoreControlCharacters: boolean;
  /** Raw data: the text that separates records (an addition to the spec); `''` makes the body one record. */
  readonly rawDataSeparator: string;
}

/** JSON Schema of {@link DatagramFormatConfig}; every option has a default. */
export const DATAGRAM_FORMAT_SCHEMA: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    packetFormat: {
      type: 'string',
      enum: ['collectd', 'netflow', 'syslog', 'rawData'],
      default: 'syslog',
      description:
        'Datagram Packet Format: collectd (binary network protocol), netflow (flow-export v5 and v9), syslog (RFC 5424, RFC 3164 and common variants), or rawData (the body split by rawDataSeparator).',
    },
    typesDbFile: {
      type: 'string',
      default: '',
      description:
        'TypesDB File (collectd): path of a types.db that replaces the bundled one and names the values of each data set; empty for the bundled one.',
    },
    authFile: {
      type: 'string',
      default: '',
      description:
        'Auth File (collectd): path of a file of "user: password" lines that checks signed packets and decrypts encrypted ones; empty for none.',
    },
    convertHiResTimeAndInterval: {
      type: 'boolean',
      default: false,
      description:
        'Convert Hi-Res Time & Interval (collectd): store high-resolution time and interval as UNIX milliseconds under time and interval instead of raw 2^-30 s counts under time_hires and interval_hires.',
    },
    excludeInterval: {
      type: 'boolean',
      default: true,
      description: 'Exclude Interval (collectd): leave interval and interval_hires out of the records.',
    },
    recordGenerationMode: {
      type: 'string',
      enum: ['rawOnly', 'interpretedOnly', 'rawAndInterpreted'],
      default: 'rawAndInterpreted',
      description:
        'Record Generation Mode (NetFlow v9): rawOnly = the raw bytes of each field, interpretedOnly = the interpreted values, rawAndInterpreted = both.',
    },
    maxTemplatesInCache: {
      type: 'integer',
      minimum: -1,
      default: -1,
      description:
        'Max Templates in Cache (NetFlow v9): most templates kept for the life of the origin; -1 for no limit.',
    },
    templateCacheTimeoutMs: {
      type: 'integer',
      minimum: -1,
      default: -1,
      description:
        'Template Cache Timeout (ms) (NetFlow v9): a template unused for longer is evicted; -1 keeps templates forever.',
    },
    charset: {
      type: 'string',
      minLength: 1,
      default: 'UTF-8',
      description:
        'Charset of the text in packets: syslog messages, raw data pieces and collectd strings (a WHATWG encoding label such as UTF-8 or ISO-8859-1).',
    },
    ignoreControlCharacters: {
      type: 'boolean',
      default: false,
      description:
        'Ignore Control Characters (syslog, raw data): remove ASCII control characters except tab, line feed and carriage return.',
    },
    rawDataSeparator: {
      type: 'string',
      default: '\n',
      description:
        'Raw data separator (an addition): the text between records of rawData; an empty trailing piece makes no record; empty makes the whole body one record.',
    },
  },
};

/**
 * The built-in `datagram` format: the body is the raw payload of one datagram (the bytes a UDP packet carries),
 * parsed as `packetFormat` says. See the parsers for each record shape: {@link CollectdParser},
 * `createNetflowParser`, `createSyslogParser` and {@link RawDataParser}.
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
      });
    case 'netflow':
      return createNetflowParser(
        {
          recordGenerationMode: config.recordGenerationMode,
          maxTemplatesInCache: config.maxTemplatesInCache,
          templateCacheTimeoutMs: config.templateCacheTimeoutMs,
        },
        source,
      );
    case 'syslog':
      return createSyslogParser({
        charset: config.charset,
        ignoreControlCharacters: config.ignoreControlCharacters,
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

import type { JsonSchema } from '../data-format';
import type { SyslogFraming } from './syslog/syslog-parser';

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
  /** NetFlow v9: most templates kept per origin (default 1,000, least recently used evicted); -1 for no limit. */
  readonly maxTemplatesInCache: number;
  /** NetFlow v9: a template unused this long is evicted; -1 keeps templates forever. */
  readonly templateCacheTimeoutMs: number;
  /** Charset of text: syslog messages, raw data pieces, collectd strings (a WHATWG encoding label). */
  readonly charset: string;
  /** Every packet format's text (syslog, raw data, collectd strings, NetFlow names): remove ASCII control characters other than tab, LF and CR. */
  readonly ignoreControlCharacters: boolean;
  /** Raw data: the text that separates records (an addition to the spec); `''` makes the body one record. */
  readonly rawDataSeparator: string;
  /** syslog: how a body splits into messages (an addition to the spec). */
  readonly syslogFraming: SyslogFraming;
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
      default: 1000,
      description:
        'Max Templates in Cache (NetFlow v9): most templates kept for the life of the origin, the least recently used evicted past it; -1 for no limit. Departs from the reference engine, whose default is -1: see docs/decisions/0021-netflow-template-cache-bounded-by-default.md.',
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
        'Ignore Control Characters: remove ASCII control characters except tab, line feed and carriage return from the text of every packet format: syslog messages, raw data, collectd string parts (host, plugin, type, instances, message) and NetFlow v9 name fields.',
    },
    rawDataSeparator: {
      type: 'string',
      default: '\n',
      description:
        'Raw data separator (an addition): the text between records of rawData; an empty trailing piece makes no record; empty makes the whole body one record.',
    },
    syslogFraming: {
      type: 'string',
      enum: ['auto', 'octetCounting', 'nonTransparent'],
      default: 'auto',
      description:
        'Syslog framing (an addition): auto = octet counting (RFC 6587) when the body starts with a digit, otherwise the body is one message, line feeds included; octetCounting = every body is octet-counted; nonTransparent = one message per line. See docs/decisions/0055-one-syslog-datagram-is-one-message.md.',
    },
  },
};

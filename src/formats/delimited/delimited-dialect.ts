import type { DelimitedFormatConfig, DelimiterFormatType } from './delimited-options';
import type { TokenizerSettings } from './delimited-tokenizer';

type Preset = Pick<
  TokenizerSettings,
  'fieldDelimiter' | 'lineDelimiter' | 'quote' | 'escape' | 'escapeStyle' | 'ignoreEmptyLines' | 'trimSpaces'
>;

// The Apache Commons CSV presets the reference engine uses for each Delimiter Format Type, except `mysql`, which
// reads what MySQL and MariaDB write (docs/decisions/0056-mysql-dialect-reads-what-mariadb-writes.md).
const PRESETS: Record<Exclude<DelimiterFormatType, 'custom' | 'multiCharacter'>, Preset> = {
  csv: {
    lineDelimiter: undefined,
    fieldDelimiter: ',',
    quote: '"',
    escape: '',
    escapeStyle: 'commons',
    ignoreEmptyLines: true,
    trimSpaces: false,
  },
  rfc4180: {
    lineDelimiter: undefined,
    fieldDelimiter: ',',
    quote: '"',
    escape: '',
    escapeStyle: 'commons',
    ignoreEmptyLines: false,
    trimSpaces: false,
  },
  excel: {
    lineDelimiter: undefined,
    fieldDelimiter: ',',
    quote: '"',
    escape: '',
    escapeStyle: 'commons',
    ignoreEmptyLines: false,
    trimSpaces: false,
  },
  mysql: {
    fieldDelimiter: '\t',
    // MySQL ends lines at LF only and writes a CR in a value raw: a CR is text, not a line break.
    lineDelimiter: '\n',
    quote: '',
    escape: '\\',
    escapeStyle: 'mysql',
    ignoreEmptyLines: false,
    trimSpaces: false,
  },
  tdf: {
    lineDelimiter: undefined,
    fieldDelimiter: '\t',
    quote: '"',
    escape: '',
    escapeStyle: 'commons',
    ignoreEmptyLines: true,
    trimSpaces: true,
  },
  postgresCsv: {
    lineDelimiter: undefined,
    fieldDelimiter: ',',
    quote: '"',
    escape: '"',
    escapeStyle: 'commons',
    ignoreEmptyLines: false,
    trimSpaces: false,
  },
  postgresText: {
    lineDelimiter: undefined,
    fieldDelimiter: '\t',
    quote: '',
    escape: '\\',
    escapeStyle: 'postgresText',
    ignoreEmptyLines: false,
    trimSpaces: false,
  },
};

/** `\uNNNN` → the character it names; any other value is the character itself. */
export function delimiterCharacterOf(text: string): string {
  const escaped = /^\\u([0-9A-Fa-f]{4})$/.exec(text);
  return escaped?.[1] ? String.fromCharCode(parseInt(escaped[1], 16)) : text;
}

/** The tokenizer settings the delimited config stands for (parser, format type and limits resolved). */
export function dialectOf(config: DelimitedFormatConfig): TokenizerSettings {
  const common = {
    nullConstant: config.parseNulls ? config.nullConstant : undefined,
    linesToSkip: config.linesToSkip,
  };
  if (config.csvParser === 'wideFile') {
    const line = config.lineSeparator;
    return {
      ...common,
      fieldDelimiter: config.fieldSeparator,
      lineDelimiter: line === '\n' || line === '\r\n' ? undefined : line,
      quote: config.quoteCharacter,
      escape: config.escapeCharacter,
      escapeStyle: 'quoteOnly',
      comment: config.allowComments ? config.commentCharacter : '',
      ignoreEmptyLines: config.skipEmptyLines,
      trimSpaces: false,
      maxRecordChars: Infinity,
      maxColumns: config.maxColumns,
      maxColumnChars: config.maxCharactersPerColumn,
    };
  }
  const limits = {
    maxRecordChars: config.maxRecordLengthChars,
    maxColumns: Infinity,
    maxColumnChars: Infinity,
  };
  const type = config.delimiterFormatType;
  if (type === 'custom' || type === 'multiCharacter') {
    const multi = type === 'multiCharacter';
    return {
      ...common,
      ...limits,
      fieldDelimiter: multi
        ? config.multiCharacterFieldDelimiter
        : delimiterCharacterOf(config.delimiterCharacter),
      lineDelimiter: multi ? config.multiCharacterLineDelimiter : undefined,
      quote: config.quoteCharacter,
      escape: config.escapeCharacter,
      escapeStyle: 'commons',
      comment: !multi && config.enableComments ? config.commentMarker : '',
      ignoreEmptyLines: config.ignoreEmptyLines,
      trimSpaces: false,
    };
  }
  return { ...common, ...limits, ...PRESETS[type], comment: '' };
}

import type { DelimitedFormatConfig, DelimiterFormatType } from './delimited-options';
import type { TokenizerSettings } from './delimited-tokenizer';

type Preset = Pick<
  TokenizerSettings,
  'fieldDelimiter' | 'quote' | 'escape' | 'escapeStyle' | 'ignoreEmptyLines' | 'trimSpaces'
>;

// The Apache Commons CSV presets the reference engine uses for each Delimiter Format Type.
const PRESETS: Record<Exclude<DelimiterFormatType, 'custom' | 'multiCharacter'>, Preset> = {
  csv: {
    fieldDelimiter: ',',
    quote: '"',
    escape: '',
    escapeStyle: 'commons',
    ignoreEmptyLines: true,
    trimSpaces: false,
  },
  rfc4180: {
    fieldDelimiter: ',',
    quote: '"',
    escape: '',
    escapeStyle: 'commons',
    ignoreEmptyLines: false,
    trimSpaces: false,
  },
  excel: {
    fieldDelimiter: ',',
    quote: '"',
    escape: '',
    escapeStyle: 'commons',
    ignoreEmptyLines: false,
    trimSpaces: false,
  },
  mysql: {
    fieldDelimiter: '\t',
    quote: '',
    escape: '\\',
    escapeStyle: 'commons',
    ignoreEmptyLines: false,
    trimSpaces: false,
  },
  tdf: {
    fieldDelimiter: '\t',
    quote: '"',
    escape: '',
    escapeStyle: 'commons',
    ignoreEmptyLines: true,
    trimSpaces: true,
  },
  postgresCsv: {
    fieldDelimiter: ',',
    quote: '"',
    escape: '"',
    escapeStyle: 'commons',
    ignoreEmptyLines: false,
    trimSpaces: false,
  },
  postgresText: {
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
  return { ...common, ...limits, ...PRESETS[type], lineDelimiter: undefined, comment: '' };
}

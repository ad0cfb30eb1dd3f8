import type { JsonSchema } from '../data-format';
import { TEXT_INPUT_OPTIONS_SCHEMA } from '../text-input';

/** Delimiter Format Type of the standard parser (Apache Commons CSV presets, custom and multi-character). */
export type DelimiterFormatType =
  | 'csv'
  | 'rfc4180'
  | 'excel'
  | 'mysql'
  | 'tdf'
  | 'postgresCsv'
  | 'postgresText'
  | 'custom'
  | 'multiCharacter';

/** The delimited format's options (`dataFormat.delimited`) with defaults applied. See `docs/formats/delimited.md`. */
export interface DelimitedFormatConfig {
  readonly headerLine: 'noHeader' | 'ignoreHeader' | 'withHeader';
  readonly csvParser: 'standard' | 'wideFile';
  readonly delimiterFormatType: DelimiterFormatType;
  readonly multiCharacterFieldDelimiter: string;
  readonly multiCharacterLineDelimiter: string;
  /** One character, or `\uNNNN`. */
  readonly delimiterCharacter: string;
  readonly fieldSeparator: string;
  /** One character, or `''` for none. */
  readonly escapeCharacter: string;
  /** One character, or `''` for none. */
  readonly quoteCharacter: string;
  readonly lineSeparator: string;
  readonly allowComments: boolean;
  readonly commentCharacter: string;
  readonly enableComments: boolean;
  readonly commentMarker: string;
  readonly linesToSkip: number;
  readonly maxColumns: number;
  readonly maxCharactersPerColumn: number;
  readonly skipEmptyLines: boolean;
  readonly allowExtraColumns: boolean;
  readonly extraColumnPrefix: string;
  readonly maxRecordLengthChars: number;
  readonly ignoreEmptyLines: boolean;
  readonly rootFieldType: 'listMap' | 'list';
  readonly parseNulls: boolean;
  readonly nullConstant: string;
  readonly charset: string;
  readonly ignoreControlCharacters: boolean;
}

const CHARACTER = { type: 'string', minLength: 1, maxLength: 1 };
const CHARACTER_OR_NONE = { type: 'string', maxLength: 1 };

/** JSON Schema of {@link DelimitedFormatConfig}; every option has a default. */
export const DELIMITED_FORMAT_SCHEMA: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    headerLine: {
      type: 'string',
      enum: ['noHeader', 'ignoreHeader', 'withHeader'],
      default: 'noHeader',
      description:
        'Header Line: noHeader = every line is data; ignoreHeader = the first line is skipped; withHeader = the first line names the columns.',
    },
    csvParser: {
      type: 'string',
      enum: ['standard', 'wideFile'],
      default: 'standard',
      description:
        'CSV Parser: standard (Delimiter Format Type, Max Record Length) or wideFile (Field Separator, Line Separator, Max Columns, Max Character per Column; for files with hundreds of columns).',
    },
    delimiterFormatType: {
      type: 'string',
      enum: [
        'csv',
        'rfc4180',
        'excel',
        'mysql',
        'tdf',
        'postgresCsv',
        'postgresText',
        'custom',
        'multiCharacter',
      ],
      default: 'csv',
      description:
        'Delimiter Format Type (standard parser): csv (ignores empty lines), rfc4180, excel, mysql (tab, backslash escapes, no quotes), tdf (tab, spaces trimmed), postgresCsv, postgresText (tab, PostgreSQL backslash escapes), custom, multiCharacter.',
    },
    multiCharacterFieldDelimiter: {
      type: 'string',
      minLength: 1,
      default: '||',
      description: 'Multi Character Field Delimiter (multiCharacter): the characters between columns.',
    },
    multiCharacterLineDelimiter: {
      type: 'string',
      minLength: 1,
      default: '\n',
      description: 'Multi Character Line Delimiter (multiCharacter): the characters that end a record.',
    },
    delimiterCharacter: {
      type: 'string',
      pattern: '^(?:[\\s\\S]|\\\\u[0-9A-Fa-f]{4})$',
      default: '|',
      description:
        'Delimiter Character (custom): one character, or a Unicode control character written as \\uNNNN (e.g. \\u0001).',
    },
    fieldSeparator: {
      type: 'string',
      minLength: 1,
      default: ',',
      description: 'Field Separator (wide-file parser): one or more characters between columns.',
    },
    escapeCharacter: {
      ...CHARACTER_OR_NONE,
      default: '\\',
      description: 'Escape Character (custom, multiCharacter, wide-file parser); an empty string for none.',
    },
    quoteCharacter: {
      ...CHARACTER_OR_NONE,
      default: '"',
      description: 'Quote Character (custom, multiCharacter, wide-file parser); an empty string for none.',
    },
    lineSeparator: {
      type: 'string',
      minLength: 1,
      maxLength: 2,
      default: '\n',
      description:
        'Line Separator (wide-file parser): one or two characters; "\\n" and "\\r\\n" both accept LF, CR and CRLF.',
    },
    allowComments: {
      type: 'boolean',
      default: false,
      description: 'Allow Comments (wide-file parser): skip lines that start with Comment Character.',
    },
    commentCharacter: {
      ...CHARACTER,
      default: '#',
      description: 'Comment Character (wide-file parser, when Allow Comments is on).',
    },
    enableComments: {
      type: 'boolean',
      default: false,
      description: 'Enable Comments (custom): skip lines that start with Comment Marker.',
    },
    commentMarker: {
      ...CHARACTER,
      default: '#',
      description: 'Comment Marker (custom, when Enable Comments is on).',
    },
    linesToSkip: {
      type: 'integer',
      minimum: 0,
      default: 0,
      description: 'Lines to Skip: physical lines skipped at the start of the body, before the header.',
    },
    maxColumns: {
      type: 'integer',
      minimum: 1,
      default: 1000,
      description: 'Max Columns (wide-file parser): a record with more columns is a failure.',
    },
    maxCharactersPerColumn: {
      type: 'integer',
      minimum: 1,
      default: 1000,
      description: 'Max Character per Column (wide-file parser): a record with a longer value is a failure.',
    },
    skipEmptyLines: {
      type: 'boolean',
      default: true,
      description: 'Skip Empty Lines (wide-file parser).',
    },
    allowExtraColumns: {
      type: 'boolean',
      default: false,
      description:
        'Allow Extra Columns (withHeader): accept records with more columns than the header; otherwise such a record is a failure.',
    },
    extraColumnPrefix: {
      type: 'string',
      default: '_extra_',
      description:
        'Extra Column Prefix: extra columns are named <prefix>1, <prefix>2, … (the spec form; the reference engine writes _extra_01).',
    },
    maxRecordLengthChars: {
      type: 'integer',
      minimum: 1,
      default: 1024,
      description:
        'Max Record Length (chars) (standard parser): a longer record (line delimiter excluded) is not read; it is a failure and parsing goes on.',
    },
    ignoreEmptyLines: {
      type: 'boolean',
      default: true,
      description: 'Ignore Empty Lines (custom, multiCharacter).',
    },
    rootFieldType: {
      type: 'string',
      enum: ['listMap', 'list'],
      default: 'listMap',
      description:
        'Root Field Type: listMap = a LIST_MAP keyed by header name (or column index "0", "1", …); list = a list of { header, value } maps.',
    },
    parseNulls: {
      type: 'boolean',
      default: false,
      description: 'Parse NULLs: an unquoted value equal to NULL Constant (before unescaping) becomes null.',
    },
    nullConstant: {
      type: 'string',
      default: '\\N',
      description:
        'NULL Constant (when Parse NULLs is on); an empty string makes unquoted empty values null.',
    },
    ...TEXT_INPUT_OPTIONS_SCHEMA,
  },
};

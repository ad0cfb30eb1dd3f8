import type { JsonSchema } from '../data-format';
import type { JsonContent } from './json-framer';
import { TEXT_INPUT_OPTIONS_SCHEMA } from '../text-input';

/** The JSON format's options (`dataFormat.json`) with defaults applied. */
export interface JsonFormatConfig {
  /** `multipleObjects`: whitespace-separated values, one record each; `arrayOfObjects`: one record per element. */
  readonly jsonContent: JsonContent;
  /** Longest record text in characters; a longer one is an `ORIGIN_JSON_OBJECT_TOO_LONG` failure. */
  readonly maxObjectLengthChars: number;
  /** Deepest nesting of arrays and objects a record may have; a deeper one is an `ORIGIN_JSON_TOO_DEEP` failure. */
  readonly maxNestingDepth: number;
  /** Charset of the body, as a WHATWG encoding label. */
  readonly charset: string;
  /** Remove ASCII control characters other than tab, LF and CR before parsing. */
  readonly ignoreControlCharacters: boolean;
}

/** JSON Schema of {@link JsonFormatConfig}; every option has a default. */
export const JSON_FORMAT_SCHEMA: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    jsonContent: {
      type: 'string',
      enum: ['arrayOfObjects', 'multipleObjects'],
      default: 'multipleObjects',
      description:
        'JSON Content: multipleObjects = a series of whitespace-separated JSON values, one record each; arrayOfObjects = one top-level array, one record per element.',
    },
    maxObjectLengthChars: {
      type: 'integer',
      minimum: 1,
      default: 4096,
      description:
        'Max Object Length (chars): a record whose JSON text is longer is not parsed; it goes to the stage error handling.',
    },
    maxNestingDepth: {
      type: 'integer',
      minimum: 1,
      default: 500,
      description:
        'Addition: deepest nesting of arrays and objects one record may have (`{}` is 1); a deeper record is not decoded and goes to the stage error handling (ORIGIN_JSON_TOO_DEEP). The default keeps every later step (copies, JSON and XML responses, Engine Record) well within the call stack.',
    },
    ...TEXT_INPUT_OPTIONS_SCHEMA,
  },
};

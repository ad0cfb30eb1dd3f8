import type { DataFormat } from '../data-format';
import { JsonParser } from './json-parser';
import { JSON_FORMAT_SCHEMA, type JsonFormatConfig } from './json-options';

/**
 * The built-in `json` format. `createParser` throws `OriginError('ORIGIN_CHARSET_UNSUPPORTED')` when the
 * configured charset has no decoder in this Node.js build; everything else about the input is reported as
 * failures by the parser (see `JsonParser`).
 */
export const jsonFormat: DataFormat<JsonFormatConfig> = {
  name: 'json',
  description: 'JSON: one record per top-level value, or per element of one top-level array.',
  configSchema: JSON_FORMAT_SCHEMA,
  createParser: (config) => new JsonParser(config),
};

import type { DataFormat } from '../data-format';
import { DelimitedParser } from './delimited-parser';
import { DELIMITED_FORMAT_SCHEMA, type DelimitedFormatConfig } from './delimited-options';

/**
 * The built-in `delimited` format: one record per delimited line. `createParser` throws
 * `OriginError('ORIGIN_CHARSET_UNSUPPORTED')` when the charset has no decoder in this Node.js build; everything
 * about the input is reported as failures by the parser (see `DelimitedParser`).
 */
export const delimitedFormat: DataFormat<DelimitedFormatConfig> = {
  name: 'delimited',
  description: 'Delimited (CSV, TSV, database exports, custom): one record per delimited line.',
  configSchema: DELIMITED_FORMAT_SCHEMA,
  createParser: (config) => new DelimitedParser(config),
};

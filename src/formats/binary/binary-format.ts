import type { DataFormat, JsonSchema } from '../data-format';
import { BinaryParser } from './binary-parser';

/** The Binary format's options (`dataFormat.binary`) with defaults applied. */
export interface BinaryFormatConfig {
  /** Largest body that becomes a record; a larger one is refused as a whole (`ORIGIN_BINARY_TOO_LARGE`). */
  readonly maxDataSizeBytes: number;
}

/** JSON Schema of {@link BinaryFormatConfig}; every option has a default. */
export const BINARY_FORMAT_SCHEMA: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    maxDataSizeBytes: {
      type: 'integer',
      minimum: 1,
      default: 1024,
      description:
        'Max Data Size (bytes): a larger body makes no record and no error record; the request is refused with a stage error.',
    },
  },
};

/** The built-in `binary` format: the whole body is one record whose root is a byte array (see {@link BinaryParser}). */
export const binaryFormat: DataFormat<BinaryFormatConfig> = {
  name: 'binary',
  description: 'Binary: the whole body is one record with a byte-array root.',
  configSchema: BINARY_FORMAT_SCHEMA,
  createParser: (config) => new BinaryParser(config.maxDataSizeBytes),
};

import type { JsonSchema } from '../data-format';

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

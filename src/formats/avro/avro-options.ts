import type { JsonSchema } from '../data-format';

/** The Avro format's options (`dataFormat.avro`) with defaults applied. */
export interface AvroFormatConfig {
  /** Largest block, compressed or uncompressed, the parser holds; a larger one ends the input with a failure. */
  readonly maxBlockSizeBytes: number;
}

/** JSON Schema of {@link AvroFormatConfig}; every option has a default. */
export const AVRO_FORMAT_SCHEMA: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    maxBlockSizeBytes: {
      type: 'integer',
      minimum: 1,
      default: 16_777_216,
      description:
        'Addition: largest Avro block (compressed or uncompressed) the parser holds in memory; a larger block ends the body with ORIGIN_AVRO_BLOCK_TOO_LARGE, keeping the records of the blocks before it.',
    },
  },
};

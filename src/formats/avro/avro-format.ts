import type { DataFormat, JsonSchema } from '../data-format';
import { AvroParser } from './avro-parser';

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

/**
 * The built-in `avro` format: the body is an Avro object container file (codec null, deflate or snappy) and each
 * Avro record becomes a record with header attribute `avroSchema` (see {@link AvroParser}).
 */
export const avroFormat: DataFormat<AvroFormatConfig> = {
  name: 'avro',
  description: 'Avro: an object container file; one record per Avro record, writer schema in avroSchema.',
  configSchema: AVRO_FORMAT_SCHEMA,
  createParser: (config) => new AvroParser(config.maxBlockSizeBytes),
};

import type { DataFormat } from '../data-format';
import { AvroParser } from './avro-parser';
import { AVRO_FORMAT_SCHEMA, type AvroFormatConfig } from './avro-options';

/**
 * The built-in `avro` format: the body is an Avro object container file (any codec of the Avro specification) and
 * each Avro record becomes a record with header attribute `avroSchema` (see `AvroParser`). What the blocks
 * decompress to, all together, is held to the source's `maxDecodedBytes`.
 */
export const avroFormat: DataFormat<AvroFormatConfig> = {
  name: 'avro',
  description: 'Avro: an object container file; one record per Avro record, writer schema in avroSchema.',
  configSchema: AVRO_FORMAT_SCHEMA,
  headerAttributes: ['avroSchema'],
  createParser: (config, source) =>
    new AvroParser(config.maxBlockSizeBytes, source.maxDecodedBytes ?? Number.POSITIVE_INFINITY),
};

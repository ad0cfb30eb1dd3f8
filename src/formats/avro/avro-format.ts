import type { DataFormat } from '../data-format';
import { AvroParser } from './avro-parser';
import { AVRO_FORMAT_SCHEMA, type AvroFormatConfig } from './avro-options';

/**
 * The built-in `avro` format: the body is an Avro object container file (codec null, deflate or snappy) and each
 * Avro record becomes a record with header attribute `avroSchema` (see {@link AvroParser}).
 */
export const avroFormat: DataFormat<AvroFormatConfig> = {
  name: 'avro',
  description: 'Avro: an object container file; one record per Avro record, writer schema in avroSchema.',
  configSchema: AVRO_FORMAT_SCHEMA,
  headerAttributes: ['avroSchema'],
  createParser: (config) => new AvroParser(config.maxBlockSizeBytes),
};

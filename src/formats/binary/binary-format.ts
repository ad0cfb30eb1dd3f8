import type { DataFormat } from '../data-format';
import { BinaryParser } from './binary-parser';
import { BINARY_FORMAT_SCHEMA, type BinaryFormatConfig } from './binary-options';

/** The built-in `binary` format: the whole body is one record whose root is a byte array (see `BinaryParser`). */
export const binaryFormat: DataFormat<BinaryFormatConfig> = {
  name: 'binary',
  description: 'Binary: the whole body is one record with a byte-array root.',
  configSchema: BINARY_FORMAT_SCHEMA,
  createParser: (config) => new BinaryParser(config.maxDataSizeBytes),
};

import { avroFormat } from './avro/avro-format';
import { binaryFormat } from './binary/binary-format';
import type { DataFormat } from './data-format';
import { datagramFormat } from './datagram/datagram-format';
import { delimitedFormat } from './delimited/delimited-format';
import { engineRecordFormat } from './engine-record/engine-record-format';
import { FormatRegistry } from './format-registry';
import { jsonFormat } from './json/json-format';
import { protobufFormat } from './protobuf/protobuf-format';
import { xmlFormat } from './xml/xml-format';

/** The formats that ship with the library, in the order the registry lists them. A new format is one line here. */
export const BUILT_IN_FORMATS: readonly DataFormat[] = [
  jsonFormat,
  binaryFormat,
  xmlFormat,
  delimitedFormat,
  avroFormat,
  protobufFormat,
  datagramFormat,
  engineRecordFormat,
];

/**
 * A registry holding {@link BUILT_IN_FORMATS}. It is shared: a host that adds formats of its own should
 * `defaultRegistry.clone()` and register on the clone, so that other origins in the process are not affected.
 */
export const defaultRegistry = new FormatRegistry(BUILT_IN_FORMATS);

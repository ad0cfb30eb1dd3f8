/**
 * rest-service-origin/formats: the data formats on their own, for a host or a tool that parses bodies without an
 * origin: the `DataFormat` and `Parser` contracts, the format registry and the built-in formats with their option
 * types and schemas, the parse helpers and the failure helpers. Everything here is also exported from the package
 * root.
 */

export type {
  DataFormat,
  Parser,
  ParseResult,
  ParseFailure,
  ParsedRecord,
  ParsedRecordError,
  ParseSource,
  JsonSchema,
} from './data-format';
export { MAX_EXCERPT_CHARS } from './data-format';
export type { DeferredBytes, DeferredValue } from '../record/deferred-record';
export { deferredText } from '../record/deferred-record';
export { FormatRegistry } from './format-registry';
export { BUILT_IN_FORMATS, defaultRegistry } from './built-in';
export { parseWhole, parseStream, type ParsePacking } from './parse-helpers';
export { resolveFormatConfig } from './format-config';
export { failure, truncateExcerpt, excerptFromBytes, MAX_EXCERPT_BYTES, type FailureInit } from './failure';
export { jsonFormat } from './json/json-format';
export { JSON_FORMAT_SCHEMA, type JsonFormatConfig } from './json/json-options';
export type { JsonContent } from './json/json-framer';
export { binaryFormat } from './binary/binary-format';
export { BINARY_FORMAT_SCHEMA, type BinaryFormatConfig } from './binary/binary-options';
export { delimitedFormat } from './delimited/delimited-format';
export {
  DELIMITED_FORMAT_SCHEMA,
  type DelimitedFormatConfig,
  type DelimiterFormatType,
} from './delimited/delimited-options';
export { xmlFormat } from './xml/xml-format';
export { XML_FORMAT_SCHEMA, type XmlFormatConfig } from './xml/xml-options';
export type { XmlNamespace } from './xml/xml-delimiter';
export { avroFormat } from './avro/avro-format';
export { AVRO_FORMAT_SCHEMA, type AvroFormatConfig } from './avro/avro-options';
export { protobufFormat } from './protobuf/protobuf-format';
export { PROTOBUF_FORMAT_SCHEMA, type ProtobufFormatConfig } from './protobuf/protobuf-options';
export { engineRecordFormat, readEngineRecords } from './engine-record/engine-record-format';
export {
  ENGINE_RECORD_FORMAT_SCHEMA,
  type EngineRecordFormatConfig,
} from './engine-record/engine-record-options';
export { writeEngineRecords, ENGINE_RECORD_MAGIC_JSON_V1 } from './engine-record/engine-record-codec';
export { datagramFormat } from './datagram/datagram-format';
export {
  DATAGRAM_FORMAT_SCHEMA,
  type DatagramFormatConfig,
  type DatagramPacketFormat,
  type RecordGenerationMode,
} from './datagram/datagram-options';
export type { SyslogFraming } from './datagram/syslog/syslog-parser';
export { createCompressionParser, type CompressionLimits } from './compression/compression-parser';
export type { CompressionConfig } from './compression/compression-options';

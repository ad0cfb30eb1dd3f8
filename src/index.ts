/**
 * rest-service-origin: the public surface. Everything a host engine, a custom format or a test needs is exported
 * here; anything not exported is internal and may change.
 */

// The origin and its configuration.
export { Origin, type OriginEvents, type OriginOptions, type OriginState } from './origin/origin';
export type { OriginMetricsSnapshot } from './origin/origin-metrics';
export { resolveConfig } from './origin/config';
export { buildConfigSchema } from './origin/config-schema';
export type {
  OriginConfig,
  OriginConfigInput,
  GeneralConfig,
  HttpConfig,
  DataFormatConfig,
  TlsConfig,
} from './origin/config';
export type { HttpResponseConfig } from './response/response-options';

// Records.
export { FIELD_TYPES, TypedField, field, doubleValue, isTypedField, isPlainMap } from './record/field';
export type { FieldType, FieldValue, FieldAttributes, PlainMap, TypedValueOf } from './record/field';
export { fieldTypeOf } from './record/field-type-of';
export { parseFieldPath, formatFieldPath, type PathSegment } from './record/field-path';
export { RecordHeader, type HeaderAttributes, type RecordHeaderInit } from './record/record-header';
export {
  DataRecord,
  cloneFieldValue,
  type FieldView,
  type DataRecordInit,
  type RecordError,
} from './record/data-record';
export { fieldValueToJson, fieldValuesToJsonArray } from './record/json-text';

// Data formats.
export type {
  DataFormat,
  Parser,
  ParseResult,
  ParseFailure,
  ParsedRecord,
  ParsedRecordError,
  ParseSource,
  JsonSchema,
} from './formats/data-format';
export { MAX_EXCERPT_CHARS } from './formats/data-format';
export { FormatRegistry } from './formats/format-registry';
export { BUILT_IN_FORMATS, defaultRegistry } from './formats/built-in';
export { parseWhole, parseStream, type ParsePacking } from './formats/parse-helpers';
export { resolveFormatConfig } from './formats/format-config';
export {
  failure,
  truncateExcerpt,
  excerptFromBytes,
  MAX_EXCERPT_BYTES,
  type FailureInit,
} from './formats/failure';
export { jsonFormat } from './formats/json/json-format';
export { JSON_FORMAT_SCHEMA, type JsonFormatConfig } from './formats/json/json-options';
export { binaryFormat } from './formats/binary/binary-format';
export { BINARY_FORMAT_SCHEMA, type BinaryFormatConfig } from './formats/binary/binary-options';
export { delimitedFormat } from './formats/delimited/delimited-format';
export {
  DELIMITED_FORMAT_SCHEMA,
  type DelimitedFormatConfig,
  type DelimiterFormatType,
} from './formats/delimited/delimited-options';
export { xmlFormat } from './formats/xml/xml-format';
export { XML_FORMAT_SCHEMA, type XmlFormatConfig } from './formats/xml/xml-options';
export type { XmlNamespace } from './formats/xml/xml-delimiter';
export { avroFormat } from './formats/avro/avro-format';
export { AVRO_FORMAT_SCHEMA, type AvroFormatConfig } from './formats/avro/avro-options';
export { protobufFormat } from './formats/protobuf/protobuf-format';
export { PROTOBUF_FORMAT_SCHEMA, type ProtobufFormatConfig } from './formats/protobuf/protobuf-options';
export { engineRecordFormat, readEngineRecords } from './formats/engine-record/engine-record-format';
export {
  ENGINE_RECORD_FORMAT_SCHEMA,
  type EngineRecordFormatConfig,
} from './formats/engine-record/engine-record-options';
export { writeEngineRecords, ENGINE_RECORD_MAGIC_JSON_V1 } from './formats/engine-record/engine-record-codec';
export { datagramFormat } from './formats/datagram/datagram-format';
export {
  DATAGRAM_FORMAT_SCHEMA,
  type DatagramFormatConfig,
  type DatagramPacketFormat,
  type RecordGenerationMode,
} from './formats/datagram/datagram-options';
export { createCompressionParser, type CompressionLimits } from './formats/compression/compression-parser';
export type { CompressionConfig } from './formats/compression/compression-options';

// Pipeline runners.
export { createRequestBatch, createIdleBatch, type Batch, type RequestInfo } from './pipeline/batch';
export type { RunnerPool, Pipeline, PipelineContext } from './pipeline/runner-pool';
export { InProcessRunnerPool, type InProcessRunnerPoolOptions } from './pipeline/in-process-runner-pool';
export { echoPipeline } from './cli/echo-pipeline';

// Responses.
export { SendResponse, SendErrorResponse, type SendResponseOptions } from './response/send-response';
export type { ResponseSink } from './pipeline/response-sink';
export { BufferedResponseSink } from './response/buffered-response-sink';
export { responseStatus } from './response/status-rule';
export {
  renderJsonResponse,
  renderJsonEnvelopeError,
  renderedBodyLength,
  type JsonResponseConfig,
  type RenderedResponse,
} from './response/json-response';
export {
  renderXmlResponse,
  renderXmlEnvelopeError,
  validateXmlDocument,
  type XmlResponseConfig,
} from './response/xml-response';

// Errors.
export {
  ERROR_TABLE,
  describeError,
  type ErrorCode,
  type ErrorCategory,
  type ErrorSpec,
} from './errors/error-table';
export { OriginError, isOriginError } from './errors/origin-error';
export { ConfigError, type ConfigProblem } from './errors/config-error';

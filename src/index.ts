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
  CompressionConfig,
  TlsConfig,
  HttpResponseConfig,
} from './origin/config';

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
export { jsonFormat, JSON_FORMAT_SCHEMA, type JsonFormatConfig } from './formats/json/json-format';
export { binaryFormat, BINARY_FORMAT_SCHEMA, type BinaryFormatConfig } from './formats/binary/binary-format';
export {
  delimitedFormat,
  DELIMITED_FORMAT_SCHEMA,
  type DelimitedFormatConfig,
  type DelimiterFormatType,
} from './formats/delimited/delimited-format';
export { xmlFormat, XML_FORMAT_SCHEMA, type XmlFormatConfig } from './formats/xml/xml-format';
export type { XmlNamespace } from './formats/xml/xml-delimiter';
export { avroFormat, AVRO_FORMAT_SCHEMA, type AvroFormatConfig } from './formats/avro/avro-format';
export {
  protobufFormat,
  PROTOBUF_FORMAT_SCHEMA,
  type ProtobufFormatConfig,
} from './formats/protobuf/protobuf-format';
export {
  engineRecordFormat,
  ENGINE_RECORD_FORMAT_SCHEMA,
  readEngineRecords,
  type EngineRecordFormatConfig,
} from './formats/engine-record/engine-record-format';
export { writeEngineRecords, ENGINE_RECORD_MAGIC_JSON_V1 } from './formats/engine-record/engine-record-codec';
export {
  datagramFormat,
  DATAGRAM_FORMAT_SCHEMA,
  type DatagramFormatConfig,
  type DatagramPacketFormat,
  type RecordGenerationMode,
} from './formats/datagram/datagram-format';
export { createCompressionParser, type CompressionLimits } from './formats/compression/compression-parser';

// Pipeline runners.
export { createRequestBatch, createIdleBatch, type Batch, type RequestInfo } from './pipeline/batch';
export type { RunnerPool, Pipeline, PipelineContext } from './pipeline/runner-pool';
export { InProcessRunnerPool, type InProcessRunnerPoolOptions } from './pipeline/in-process-runner-pool';
export { echoPipeline } from './pipeline/echo-pipeline';

// Responses.
export { SendResponse, SendErrorResponse, type SendResponseOptions } from './response/send-response';
export { ResponseSink } from './response/response-sink';
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

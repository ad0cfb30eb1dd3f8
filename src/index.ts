/**
 * rest-service-origin: the public surface. Everything a host engine, a custom format or a test needs is exported
 * here; anything not exported is internal and may change.
 */

// The origin and its configuration.
export {
  Origin,
  type OriginDescription,
  type OriginEvents,
  type OriginOptions,
  type OriginState,
} from './origin/origin';
export type { AuthenticationMethod } from './auth/authenticator';
export { IDENTITY_ATTRIBUTES } from './auth/identity-attributes';
export type { OriginMetricsSnapshot, ParseFailureAction, RequestOutcome } from './origin/origin-metrics';
// Metrics as mergeable snapshots, Prometheus / OpenMetrics text, the prom-client bridge (docs/metrics.md).
export {
  mergeMetricsSnapshots,
  type CounterFamily,
  type GaugeFamily,
  type HistogramFamily,
  type HistogramSample,
  type MetricFamily,
  type MetricLabels,
  type MetricsSnapshot,
  type ValueSample,
} from './metrics/metrics-snapshot';
export {
  OPENMETRICS_CONTENT_TYPE,
  PROMETHEUS_CONTENT_TYPE,
  metricsTextFormatFor,
  renderPrometheusText,
  type MetricsTextFormat,
} from './metrics/prometheus-text';
export {
  registerPromClientMetrics,
  type MetricsSource,
  type PromClientRegistry,
  type SnapshotSource,
} from './metrics/prom-client-bridge';
export {
  DIAGNOSTICS_CHANNELS,
  type BatchMessage,
  type RecordFailureMessage,
  type RejectionMessage,
  type RequestEndMessage,
  type RequestStartMessage,
} from './origin/diagnostics-channels';
export type {
  GatewayApi,
  GatewayRegistration,
  GatewayService,
  ServiceGateway,
} from './origin/gateway-service';
export { Gateway, type GatewayOptions } from './gateway/gateway';
export type { RemoteService } from './gateway/remote-service';
export type { AuthenticationRequest } from './auth/authenticator';
export type {
  GatewayAuthenticated,
  GatewayAuthentication,
  GatewayAuthenticator,
  GatewayRejected,
  GatewayUser,
} from './gateway/gateway-authenticator';
export { ANY, EVERYONE_READS, InMemoryAcl, type GatewayAuthorizer } from './gateway/authorizer';
export { ROLE_PROFILES, type RoleProfile } from './gateway/roles';
export { resolveConfig } from './origin/config';
export { buildConfigSchema } from './origin/config-schema';
export { RATE_LIMIT_KEYS } from './origin/rate-limit-options';
export type { ConcurrencyPerKey, RateLimitKey, RateLimitRule } from './origin/rate-limit-options';
export { startRateLimiterClusterPrimary } from './origin/rate-limits';
export type {
  OriginConfig,
  OriginConfigInput,
  GeneralConfig,
  HttpConfig,
  DataFormatConfig,
  DataFormatConfigInput,
  TlsConfig,
} from './origin/config';
export type { ForwardedHeaderName } from './http/client-address';
export type { BasicAuthenticationUser, CredentialFunction, TlsCredentials } from './tls/tls-options';
export type { HttpResponseConfig } from './response/response-options';
export type { CorsConfig } from './http/cors';
export type { TraceContextMode } from './origin/trace-context';

// Records.
export { FIELD_TYPES, TypedField, field, doubleValue, isTypedField, isPlainMap } from './record/field';
export type { FieldType, FieldValue, FieldAttributes, PlainMap, TypedValueOf } from './record/field';
export {
  ListMapShape,
  isListMap,
  listMapKeys,
  listMapEntries,
  listMapToMap,
  listMapOf,
  listMapShapeOf,
  setListMapField,
  type ListMap,
} from './record/list-map';
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

// Data formats: the `rest-service-origin/formats` entry point, re-exported whole.
export * from './formats/index';

// Pipeline runners.
export {
  createRequestBatch,
  createIdleBatch,
  type Batch,
  type RequestBatchInit,
  type RequestInfo,
  type TraceContext,
} from './pipeline/batch';
export type { RunnerPool, RunProgress, Pipeline, PipelineContext } from './pipeline/runner-pool';
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
export type { XmlSchemaFile } from './response/xml-schema';

// Idempotency keys (http.idempotency, docs/idempotency.md): the store contract and its two implementations.
export type {
  IdempotencyStore,
  IdempotencyAcquisition,
  IdempotencyEntry,
  StoredResponse,
} from './idempotency/idempotency-store';
export { MemoryIdempotencyStore } from './idempotency/memory-idempotency-store';
export {
  RedisIdempotencyStore,
  type RedisIdempotencyStoreOptions,
} from './idempotency/redis-idempotency-store';
export type {
  IdempotencyConfig,
  IdempotencyConfigInput,
  IdempotencyStoreConfig,
} from './idempotency/idempotency-options';

// Errors.
export {
  ERROR_TABLE,
  describeError,
  type ErrorCode,
  type ErrorCategory,
  type ErrorSpec,
  type ErrorParams,
} from './errors/error-table';
export { OriginError, isOriginError } from './errors/origin-error';
export { ConfigError, type ConfigProblem } from './errors/config-error';

// Gateway authenticators (the file realm, LDAP; their contract is exported with the gateway above).
export {
  FileRealmAuthenticator,
  hashPassword,
  DEFAULT_SCRYPT_PARAMETERS,
  type FileRealmEntry,
  type FileRealmOptions,
  type FileRealmSource,
  type ScryptParameters,
} from './gateway/file-realm-authenticator';
export {
  LdapAuthenticator,
  escapeDnValue,
  escapeFilterValue,
  type LdapAuthenticatorOptions,
  type LdapGroupSearch,
  type LdapUserSearch,
} from './gateway/ldap-authenticator';

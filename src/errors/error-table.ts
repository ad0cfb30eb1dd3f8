/**
 * The one table of stable error codes. Every error the library raises or answers with is a row here: its
 * category, the HTTP status a client sees when the error ends a request, and a one-sentence message template
 * whose `{name}` placeholders are filled from the error's parameters.
 *
 * Codes are never renumbered, renamed or reused; a retired code stays in the table marked as such.
 * `docs/errors.md` is generated from this table (`npm run docs:generate`) and a test keeps the two in step.
 */

/** What part of the system an error belongs to. */
export type ErrorCategory =
  | 'config'
  | 'lifecycle'
  | 'request'
  | 'auth'
  | 'limit'
  | 'encoding'
  | 'parse'
  | 'pipeline'
  | 'response'
  | 'internal';

/** One row of the error table. */
export interface ErrorSpec {
  readonly category: ErrorCategory;
  /** HTTP status of the answer when this error ends a request. */
  readonly httpStatus: number;
  /** One sentence; `{name}` placeholders are filled from the error's parameters. */
  readonly message: string;
}

/**
 * Every error the origin raises, by its stable `ORIGIN_*` code: category, HTTP status and message template
 * (docs/errors.md is generated from it). Codes are never renamed or reused; clients may match on them.
 */
export const ERROR_TABLE = {
  // Configuration and lifecycle: raised by constructors and start(), never sent to a client.
  ORIGIN_CONFIG_INVALID: {
    category: 'config',
    httpStatus: 500,
    message: 'The configuration has {count} problem(s): {problems}.',
  },
  ORIGIN_FORMAT_UNKNOWN: {
    category: 'config',
    httpStatus: 500,
    message: "Data format '{format}' is not registered; registered formats: {known}.",
  },
  ORIGIN_FORMAT_DUPLICATE: {
    category: 'config',
    httpStatus: 500,
    message: "Data format '{format}' is already registered.",
  },
  ORIGIN_FORMAT_NAME_RESERVED: {
    category: 'config',
    httpStatus: 500,
    message: "Data format name '{format}' is reserved: {reserved} are option keys of dataFormat.",
  },
  ORIGIN_CHARSET_UNSUPPORTED: {
    category: 'config',
    httpStatus: 500,
    message: "Charset '{charset}' is not supported by this Node.js build.",
  },
  ORIGIN_DATAGRAM_FILE_UNREADABLE: {
    category: 'config',
    httpStatus: 500,
    message: "The datagram option {option} names the file '{path}', which cannot be read: {reason}.",
  },
  ORIGIN_STATE_INVALID: {
    category: 'lifecycle',
    httpStatus: 500,
    message: "Cannot {action} an origin that is '{state}'.",
  },
  ORIGIN_LISTEN_PORT_IN_USE: {
    category: 'lifecycle',
    httpStatus: 500,
    message: 'Port {port} on {host} is already in use by another process.',
  },
  ORIGIN_GATEWAY_SERVICE_TAKEN: {
    category: 'lifecycle',
    httpStatus: 500,
    message: "Gateway service name '{service}' is already registered by another origin.",
  },
  ORIGIN_GATEWAY_NOT_LISTENING: {
    category: 'lifecycle',
    httpStatus: 500,
    message:
      "Cannot register service '{service}': the gateway is '{state}'; start the gateway before its origins.",
  },
  ORIGIN_GATEWAY_AUTHENTICATOR_MISSING: {
    category: 'lifecycle',
    httpStatus: 500,
    message: "Service '{service}' requires gateway authentication, but the gateway has no authenticator.",
  },
  ORIGIN_LISTEN_PORT_SHARED: {
    category: 'lifecycle',
    httpStatus: 500,
    message:
      "Port {port} is already used by origin '{other}'; a port is shared only by origins whose application ID lists are non-empty and disjoint and whose TLS settings are identical ({reason}).",
  },
  ORIGIN_LISTEN_FAILED: {
    category: 'lifecycle',
    httpStatus: 500,
    message: 'Could not listen on {host}:{port}: {detail}.',
  },
  ORIGIN_TLS_FILE_OUTSIDE_RESOURCES: {
    category: 'config',
    httpStatus: 500,
    message:
      "tls.{option} '{path}' leads outside resourcesDirectory '{directory}'; a relative path must name a file inside it.",
  },
  ORIGIN_TLS_FILE_UNREADABLE: {
    category: 'config',
    httpStatus: 500,
    message: "tls.{option} '{path}' cannot be read: {detail}.",
  },
  ORIGIN_TLS_STORE_INVALID: {
    category: 'config',
    httpStatus: 500,
    message: 'The {store} ({type}) cannot be used: {detail}.',
  },
  ORIGIN_TLS_CREDENTIAL_FAILED: {
    category: 'config',
    httpStatus: 500,
    message: 'The credential function for tls.{option} failed: {detail}.',
  },
  ORIGIN_TLS_MATERIAL_REFUSED: {
    category: 'config',
    httpStatus: 500,
    message: 'The TLS key, certificates or settings were refused by OpenSSL: {detail}.',
  },
  ORIGIN_TLS_NOT_ENABLED: {
    category: 'lifecycle',
    httpStatus: 500,
    message: 'reloadTls() needs tls.useTls; this origin serves plain HTTP.',
  },
  ORIGIN_AUTH_KERBEROS_UNAVAILABLE: {
    category: 'config',
    httpStatus: 500,
    message:
      "Kerberos with SPNEGO needs the optional package 'kerberos' (a native addon built against the MIT Kerberos library libkrb5, Debian libkrb5-dev), which cannot be loaded: {detail}.",
  },
  ORIGIN_AUTH_KEYTAB_UNREADABLE: {
    category: 'config',
    httpStatus: 500,
    message: "http.keytabFile '{path}' cannot be read: {detail}.",
  },
  ORIGIN_AUTH_SPNEGO_UNUSABLE: {
    category: 'config',
    httpStatus: 500,
    message: "The SPNEGO service principal '{principal}' cannot be used with keytab '{path}': {detail}.",
  },
  ORIGIN_AUTH_KEYTAB_CONFLICT: {
    category: 'lifecycle',
    httpStatus: 500,
    message:
      "http.keytabFile '{path}' differs from the keytab '{other}' that another origin of this process uses; GSSAPI reads one keytab per process (KRB5_KTNAME), so the origins of one process that use SPNEGO must share one keytab.",
  },
  ORIGIN_GATEWAY_AUTH_USERS_UNREADABLE: {
    category: 'config',
    httpStatus: 500,
    message: "The gateway users file '{path}' cannot be read: {detail}.",
  },
  ORIGIN_GATEWAY_AUTH_USERS_INVALID: {
    category: 'config',
    httpStatus: 500,
    message: 'The gateway users of {source} are invalid: {detail}.',
  },
  ORIGIN_GATEWAY_AUTH_LDAP_OPTIONS_INVALID: {
    category: 'config',
    httpStatus: 500,
    message: 'The LDAP authenticator options are invalid: {detail}.',
  },
  ORIGIN_GATEWAY_AUTH_DIRECTORY_UNAVAILABLE: {
    category: 'auth',
    httpStatus: 503,
    message: "The LDAP directory '{url}' cannot be used to authenticate the request: {detail}.",
  },

  // Rejections of a request before it reaches the pipeline.
  ORIGIN_HTTP_METHOD_NOT_ALLOWED: {
    category: 'request',
    httpStatus: 405,
    message: "Method '{method}' is not accepted; TRACE, TRACK and CONNECT are refused.",
  },
  ORIGIN_APP_ID_MISSING: {
    category: 'auth',
    httpStatus: 403,
    message: 'The request carries no application ID; send header X-ENGINE-APPLICATION-ID{urlHint}.',
  },
  ORIGIN_APP_ID_INVALID: {
    category: 'auth',
    httpStatus: 403,
    message: 'The application ID of the request is not in the configured list of application IDs.',
  },
  ORIGIN_CORS_PREFLIGHT_REFUSED: {
    category: 'request',
    httpStatus: 403,
    message: 'The CORS preflight is refused: {detail}.',
  },
  ORIGIN_AUTH_CREDENTIALS_MISSING: {
    category: 'auth',
    httpStatus: 401,
    message: 'The request carries no {scheme} credentials; send them in the Authorization header.',
  },
  ORIGIN_AUTH_CREDENTIALS_INVALID: {
    category: 'auth',
    httpStatus: 401,
    message: 'The {scheme} credentials of the request are malformed or were not accepted.',
  },
  ORIGIN_AUTH_NEGOTIATE_FAILED: {
    category: 'auth',
    httpStatus: 401,
    message: 'The Kerberos SPNEGO token of the request was refused: {detail}.',
  },
  ORIGIN_AUTH_REALM_REFUSED: {
    category: 'auth',
    httpStatus: 403,
    message: "Kerberos principal '{principal}' is not of kerberosRealm '{realm}'.",
  },
  ORIGIN_GATEWAY_SERVICE_NOT_FOUND: {
    category: 'request',
    httpStatus: 404,
    message: "No service '{service}' is registered on the gateway's {api} API.",
  },
  ORIGIN_GATEWAY_PATH_UNKNOWN: {
    category: 'request',
    httpStatus: 404,
    message: 'The gateway serves /rest/v1/gateway/<service>… and /public-rest/v1/gateway/<service>… only.',
  },
  ORIGIN_GATEWAY_REQUESTED_BY_MISSING: {
    category: 'request',
    httpStatus: 400,
    message: 'A {method} request through the gateway must carry an X-Requested-By header (any value).',
  },
  ORIGIN_GATEWAY_ROLE_MISSING: {
    category: 'auth',
    httpStatus: 403,
    message: "The user holds none of the roles the gateway's secure API requires ({roles}).",
  },
  ORIGIN_GATEWAY_PERMISSION_DENIED: {
    category: 'auth',
    httpStatus: 403,
    message: "The user may not read pipeline '{pipeline}'.",
  },
  ORIGIN_GATEWAY_SECRET_INVALID: {
    category: 'auth',
    httpStatus: 403,
    message: 'The request did not come through the gateway this origin is registered with.',
  },
  ORIGIN_GATEWAY_UPSTREAM_FAILED: {
    category: 'request',
    httpStatus: 502,
    message: "The gateway could not reach service '{service}': {detail}.",
  },
  ORIGIN_GATEWAY_AUTHENTICATOR_FAILED: {
    category: 'auth',
    httpStatus: 503,
    message: "The gateway's authenticator failed: {detail}.",
  },
  ORIGIN_HTTP_BODY_TOO_LARGE: {
    category: 'limit',
    httpStatus: 413,
    message: 'The {which} request body exceeds maxRequestSizeMb {limitMb} ({limitBytes} bytes).',
  },
  ORIGIN_HTTP_ENCODING_UNSUPPORTED: {
    category: 'encoding',
    httpStatus: 415,
    message:
      "Content-Encoding '{encoding}' is not supported; use gzip, x-gzip, deflate, br, zstd, snappy or identity, at most three stacked.",
  },
  ORIGIN_HTTP_BODY_CORRUPT: {
    category: 'encoding',
    httpStatus: 400,
    message: 'The {encoding} request body could not be decoded: {detail}.',
  },
  ORIGIN_HTTP_BODY_ABORTED: {
    category: 'request',
    httpStatus: 400,
    message: 'The client closed the connection before the request body was complete.',
  },
  ORIGIN_HTTP_BODY_TIMEOUT: {
    category: 'limit',
    httpStatus: 408,
    message:
      'The request body arrived too slowly: {bytes} bytes in {elapsedMs} ms, beyond bodyReadTimeoutMs {timeoutMs} plus one second per minBodyBytesPerSecond {minBytesPerSecond} bytes received.',
  },
  ORIGIN_HTTP_TOO_MANY_RECORDS: {
    category: 'limit',
    httpStatus: 413,
    message: 'The request body holds more than maxRecordsPerRequest {limit} records (failures included).',
  },
  ORIGIN_HTTP_OVERLOADED: {
    category: 'limit',
    httpStatus: 503,
    message: 'All {slots} request slots are busy and the wait queue of {queueSize} is full; retry later.',
  },
  ORIGIN_HTTP_QUEUE_TIMEOUT: {
    category: 'limit',
    httpStatus: 503,
    message: 'No request slot became free within queueTimeoutMs {timeoutMs}; retry later.',
  },
  ORIGIN_HTTP_RATE_LIMITED: {
    category: 'limit',
    httpStatus: 429,
    message:
      'Over the rate limit of its {key} (http.rateLimits, policy "{policy}"); retry after {retryAfterSeconds} s.',
  },
  ORIGIN_HTTP_TENANT_BUSY: {
    category: 'limit',
    httpStatus: 429,
    message:
      'Its {key} holds its {limit} request slots (http.maxConcurrentRequestsPerKey) and has {limit} requests waiting; retry later.',
  },
  ORIGIN_HTTP_RATE_LIMITER_UNAVAILABLE: {
    category: 'limit',
    httpStatus: 503,
    message: 'The rate limiter did not answer ({detail}); retry later.',
  },
  ORIGIN_HTTP_LOW_MEMORY: {
    category: 'limit',
    httpStatus: 503,
    message:
      'The process heap is {usedPercent}% used, above maxHeapUsagePercent {limitPercent}; the request was not processed, retry later.',
  },
  ORIGIN_HTTP_TOO_MANY_CONNECTIONS: {
    category: 'limit',
    httpStatus: 503,
    message: 'The origin already has maxConnections {maxConnections} connections open; retry later.',
  },
  ORIGIN_HTTP_CLOSING: {
    category: 'lifecycle',
    httpStatus: 503,
    message: 'The origin is shutting down and accepts no new requests.',
  },

  // Idempotency keys (http.idempotency, docs/idempotency.md): decided before the request reaches the pipeline.
  ORIGIN_IDEMPOTENCY_KEY_MISSING: {
    category: 'request',
    httpStatus: 400,
    message:
      'A {method} request must carry an idempotency key in header {header} (http.idempotency.required); see docs/idempotency.md.',
  },
  ORIGIN_IDEMPOTENCY_KEY_INVALID: {
    category: 'request',
    httpStatus: 400,
    message:
      'The idempotency key in header {header} is not usable: {detail}; send one key of 1 to 255 visible ASCII characters, such as a UUID.',
  },
  ORIGIN_IDEMPOTENCY_KEY_IN_FLIGHT: {
    category: 'request',
    httpStatus: 409,
    message:
      'A request with the same idempotency key is still being processed; retry once it has been answered to get its response.',
  },
  ORIGIN_IDEMPOTENCY_KEY_REUSED: {
    category: 'request',
    httpStatus: 422,
    message:
      'The idempotency key was already used for a different request (method, path or body differ); use a new key for a new request.',
  },
  ORIGIN_IDEMPOTENCY_STORE_UNAVAILABLE: {
    category: 'limit',
    httpStatus: 503,
    message:
      'The idempotency store ({store}) did not answer within {timeoutMs} ms: {detail}; the request was not processed, retry later.',
  },

  // Parsing the body into records. As failures these are data (one per bad record); a request that cannot be
  // parsed at all is answered with the status below.
  // For formats a host registers: their parsers have no codes of their own in this table.
  ORIGIN_FORMAT_RECORD_MALFORMED: {
    category: 'parse',
    httpStatus: 400,
    message: 'The {format} record at byte {offset} is malformed: {detail}.',
  },
  ORIGIN_FORMAT_RECORD_TOO_LONG: {
    category: 'parse',
    httpStatus: 400,
    message: 'The {format} record at byte {offset} is longer than {option} {limit}.',
  },
  ORIGIN_JSON_MALFORMED: {
    category: 'parse',
    httpStatus: 400,
    message: 'Malformed JSON at byte {offset}: {detail}.',
  },
  ORIGIN_JSON_OBJECT_TOO_LONG: {
    category: 'parse',
    httpStatus: 400,
    message: 'The JSON object at byte {offset} exceeds maxObjectLengthChars {limit}.',
  },
  ORIGIN_JSON_TOO_DEEP: {
    category: 'limit',
    httpStatus: 400,
    message: 'The JSON value at byte {offset} nests deeper than maxNestingDepth {limit}.',
  },
  ORIGIN_JSON_ARRAY_EXPECTED: {
    category: 'parse',
    httpStatus: 400,
    message: "jsonContent is arrayOfObjects but the body starts with '{found}' instead of '['.",
  },
  ORIGIN_DELIMITED_MALFORMED: {
    category: 'parse',
    httpStatus: 400,
    message: 'Malformed delimited record at line {line}: {detail}.',
  },
  ORIGIN_DELIMITED_RECORD_TOO_LONG: {
    category: 'parse',
    httpStatus: 400,
    message:
      'The delimited record at line {line} is {length} characters long and exceeds maxRecordLengthChars {limit}; it was not read.',
  },
  ORIGIN_DELIMITED_COLUMNS_MISMATCH: {
    category: 'parse',
    httpStatus: 400,
    message:
      'The delimited record at line {line} has {count} columns but the header has {expected}, and allowExtraColumns is off.',
  },
  ORIGIN_DELIMITED_TOO_MANY_COLUMNS: {
    category: 'parse',
    httpStatus: 400,
    message: 'The delimited record at line {line} has more columns than maxColumns {limit}.',
  },
  ORIGIN_DELIMITED_COLUMN_TOO_LONG: {
    category: 'parse',
    httpStatus: 400,
    message: 'A value of the delimited record at line {line} is longer than maxCharactersPerColumn {limit}.',
  },
  ORIGIN_XML_MALFORMED: {
    category: 'parse',
    httpStatus: 400,
    message: 'Malformed XML at line {line}, column {column}: {detail}.',
  },
  ORIGIN_XML_TOO_DEEP: {
    category: 'limit',
    httpStatus: 400,
    message: 'The XML record at byte {offset} nests elements deeper than maxNestingDepth {limit}.',
  },
  ORIGIN_XML_TOO_MANY_ATTRIBUTES: {
    category: 'limit',
    httpStatus: 400,
    message:
      'An XML element at line {line} has more than maxAttributesPerElement {limit} attributes; the rest of the body is not read.',
  },
  ORIGIN_XML_TOKEN_TOO_LONG: {
    category: 'limit',
    httpStatus: 400,
    message:
      'An XML {token} at line {line} is longer than {limit} characters (the larger of maxTokenLengthChars and maxRecordLengthChars); the rest of the body is not read.',
  },
  ORIGIN_XML_RECORD_TOO_LONG: {
    category: 'parse',
    httpStatus: 400,
    message:
      'The XML record at byte {offset} is {length} characters long and exceeds maxRecordLengthChars {limit}.',
  },
  ORIGIN_ENGINE_RECORD_MAGIC_INVALID: {
    category: 'parse',
    httpStatus: 400,
    message: 'The body does not start with an Engine Record magic byte: {detail}.',
  },
  ORIGIN_ENGINE_RECORD_VERSION_UNSUPPORTED: {
    category: 'parse',
    httpStatus: 400,
    message:
      'The Engine Record magic byte {magic} names a version this library does not read (it reads {supported}).',
  },
  ORIGIN_ENGINE_RECORD_MALFORMED: {
    category: 'parse',
    httpStatus: 400,
    message: 'The Engine Record at byte {offset} is malformed: {detail}.',
  },
  ORIGIN_ENGINE_RECORD_TRUNCATED: {
    category: 'parse',
    httpStatus: 400,
    message: 'The Engine Record body ends inside a record that starts at byte {offset}.',
  },
  ORIGIN_ARCHIVE_MALFORMED: {
    category: 'parse',
    httpStatus: 400,
    message: 'The {container} body is malformed or truncated: {detail}.',
  },
  ORIGIN_ARCHIVE_NOT_RECOGNIZED: {
    category: 'parse',
    httpStatus: 400,
    message: 'The body is not {expected} (compression format {mode}); its first bytes are {head}.',
  },
  ORIGIN_ARCHIVE_TOO_LARGE: {
    category: 'limit',
    httpStatus: 413,
    message:
      'The decompressed body exceeds maxRequestSizeMb {limitMb} ({limitBytes} bytes); decompression stopped there.',
  },
  ORIGIN_BINARY_TOO_LARGE: {
    category: 'limit',
    httpStatus: 413,
    message: 'The binary body of {size} bytes exceeds maxDataSizeBytes {limit}; no record was made.',
  },
  ORIGIN_COLLECTD_MALFORMED: {
    category: 'parse',
    httpStatus: 400,
    message: 'The collectd packet is malformed at byte {offset}: {detail}.',
  },
  ORIGIN_COLLECTD_USER_UNKNOWN: {
    category: 'parse',
    httpStatus: 400,
    message: "The collectd packet is {mode} by user '{user}', who is not listed in authFile.",
  },
  ORIGIN_COLLECTD_SIGNATURE_INVALID: {
    category: 'parse',
    httpStatus: 400,
    message: "The collectd packet signed by user '{user}' has an HMAC-SHA-256 signature that does not match.",
  },
  ORIGIN_COLLECTD_DECRYPTION_FAILED: {
    category: 'parse',
    httpStatus: 400,
    message: "The collectd packet encrypted by user '{user}' fails its SHA-1 check after decryption.",
  },
  ORIGIN_COLLECTD_AUTH_FILE_MISSING: {
    category: 'parse',
    httpStatus: 400,
    message: "The collectd packet is encrypted by user '{user}' but no authFile is configured to decrypt it.",
  },
  ORIGIN_AVRO_MALFORMED: {
    category: 'parse',
    httpStatus: 400,
    message: 'The Avro object container file is malformed at byte {offset}: {detail}.',
  },
  ORIGIN_AVRO_CODEC_UNSUPPORTED: {
    category: 'parse',
    httpStatus: 400,
    message:
      "The Avro container uses codec '{codec}'; supported codecs are null, deflate, snappy, bzip2, xz and zstandard.",
  },
  ORIGIN_AVRO_TOO_LARGE: {
    category: 'limit',
    httpStatus: 413,
    message:
      'The Avro container decompresses to more than maxRequestSizeMb {limitMb} ({limitBytes} bytes) in all; decompression stopped at the block at byte {offset}.',
  },
  ORIGIN_AVRO_BLOCK_TOO_LARGE: {
    category: 'limit',
    httpStatus: 400,
    message: 'The Avro block at byte {offset} holds {size} bytes and exceeds maxBlockSizeBytes {limit}.',
  },
  ORIGIN_PROTOBUF_MALFORMED: {
    category: 'parse',
    httpStatus: 400,
    message: 'The protobuf message at byte {offset} cannot be read as {messageType}: {detail}.',
  },
  ORIGIN_PROTOBUF_TOO_LARGE: {
    category: 'limit',
    httpStatus: 400,
    message:
      'The protobuf message at byte {offset} holds {size} bytes and exceeds the limit of {limit} bytes.',
  },
  ORIGIN_NETFLOW_VERSION_UNSUPPORTED: {
    category: 'parse',
    httpStatus: 400,
    message: 'The flow-export packet has version {version}; only NetFlow versions 5 and 9 are read.',
  },
  ORIGIN_NETFLOW_MALFORMED: {
    category: 'parse',
    httpStatus: 400,
    message: 'The NetFlow v{version} packet is malformed at byte {offset}: {detail}.',
  },
  ORIGIN_NETFLOW_TEMPLATE_UNKNOWN: {
    category: 'parse',
    httpStatus: 400,
    message:
      'The NetFlow v9 data flowset at byte {offset} uses template {templateId} (exporter {exporter}, source ID {sourceId}), which is not in the template cache.',
  },
  ORIGIN_SYSLOG_MALFORMED: {
    category: 'parse',
    httpStatus: 400,
    message: 'The syslog message at byte {offset} is malformed: {detail}.',
  },

  // The pipeline and the response.
  ORIGIN_PIPELINE_FAILED: {
    category: 'pipeline',
    httpStatus: 500,
    message: 'The pipeline failed while processing the batch: {detail}.',
  },
  ORIGIN_PIPELINE_TIMEOUT: {
    category: 'pipeline',
    httpStatus: 504,
    message:
      'The pipeline did not finish the batch within responseTimeoutMs {timeoutMs}; it may have been processed in part or in whole, so do not resend it blindly.',
  },
  ORIGIN_PIPELINE_STOPPED: {
    category: 'pipeline',
    httpStatus: 500,
    message: 'A record failed and onRecordError is stopPipeline, so the origin stops: {detail}.',
  },
  ORIGIN_PIPELINE_NOT_STARTED: {
    category: 'limit',
    httpStatus: 503,
    message:
      'No runner took the batch within responseTimeoutMs {timeoutMs}, so it was withdrawn before reaching the pipeline; retry later.',
  },
  ORIGIN_PIPELINE_ABANDONED: {
    category: 'pipeline',
    httpStatus: 504,
    message:
      'The origin was destroyed while the pipeline ran the batch; it may have been processed in part or in whole, so do not resend it blindly.',
  },
  ORIGIN_RUNNER_POOL_OPTION_INVALID: {
    category: 'config',
    httpStatus: 500,
    message: 'Runner pool option {option} is {value}; it must be {expected}.',
  },
  ORIGIN_RUNNER_POOL_CLOSED: {
    category: 'lifecycle',
    httpStatus: 503,
    message: 'The runner pool is closed and runs no more batches.',
  },
  ORIGIN_INTERNAL_ERROR: {
    category: 'internal',
    httpStatus: 500,
    message: 'The origin failed unexpectedly while handling the request: {detail}.',
  },
  ORIGIN_RESPONSE_RENDER_FAILED: {
    category: 'response',
    httpStatus: 500,
    message: 'The response could not be rendered: {detail}.',
  },
  ORIGIN_RESPONSE_STATUS_INVALID: {
    category: 'response',
    httpStatus: 500,
    message: 'Response status code {statusCode} is not an integer from 100 to 999.',
  },
  ORIGIN_RESPONSE_HEADER_INVALID: {
    category: 'response',
    httpStatus: 500,
    message: "Response header '{name}' cannot be sent: {detail}.",
  },
  ORIGIN_RESPONSE_SCHEMA_INVALID: {
    category: 'response',
    httpStatus: 500,
    message: 'The XML response does not validate against xmlSchema and was not sent: {detail}.',
  },
  ORIGIN_RESPONSE_CHARSET_UNSUPPORTED: {
    category: 'config',
    httpStatus: 500,
    message: "Response charset '{charset}' is not supported; use UTF-8, UTF-16LE, ISO-8859-1 or US-ASCII.",
  },
} as const satisfies Record<string, ErrorSpec>;

/** A stable error code: a key of {@link ERROR_TABLE}. */
export type ErrorCode = keyof typeof ERROR_TABLE;

/** Parameters that fill a message template. */
export type ErrorParams = Readonly<Record<string, string | number | bigint | boolean>>;

/** Fills `{name}` placeholders of `template` from `params`; unknown placeholders stay visible as `{name}`. */
export function formatMessage(template: string, params: ErrorParams): string {
  return template.replace(/\{(\w+)\}/g, (whole, name: string) =>
    Object.prototype.hasOwnProperty.call(params, name) ? String(params[name]) : whole,
  );
}

/** The message of `code` with `params` filled in, prefixed by the code: `"<CODE> - <message>"`. */
export function describeError(code: ErrorCode, params: ErrorParams = {}): string {
  return `${code} - ${formatMessage(ERROR_TABLE[code].message, params)}`;
}

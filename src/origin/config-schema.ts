import { OriginError } from '../errors/origin-error';
import type { DataFormat, JsonSchema } from '../formats/data-format';
import { COMPRESSION_FORMATS } from '../formats/compression/compression-options';
import type { FormatRegistry } from '../formats/format-registry';
import {
  RESPONSE_CHARSET_ALIASES,
  RESPONSE_CHARSETS,
  RESPONSE_DATA_FORMATS,
  RESPONSE_JSON_CONTENTS,
} from '../response/response-options';
import { FORWARDED_HEADER_NAMES } from '../http/client-address';
import { rateLimitOptionsSchema } from './rate-limit-options';
import { corsSchema } from '../http/cors';
import { traceContextSchema } from './trace-context';
import { DEFAULT_COMPRESS_MIN_BYTES } from '../response/response-compression';
import { DEFAULT_TLS_PROTOCOLS, KEYSTORE_TYPES, TLS_PROTOCOLS } from '../tls/tls-options';
import { idempotencySchema } from '../idempotency/idempotency-options';

/** Values of `general.onRecordError`. */
export const ON_RECORD_ERROR_VALUES = ['discard', 'sendToError', 'stopPipeline'] as const;
/** Keys of `dataFormat` that are not format names, so no format may be registered under them. */
export const RESERVED_DATA_FORMAT_KEYS: readonly string[] = ['format', 'compression'];

/** A rule that ties keys of one tab together: when `flag` is true, each key of `required` must be non-blank. */
export interface RequiredWhenRule {
  readonly tab: 'general' | 'http' | 'dataFormat' | 'tls' | 'httpResponse';
  readonly flag: string;
  readonly required: readonly string[];
}

/**
 * The cross-field rules JSON Schema cannot state with a readable message; `resolveConfig` checks them on the
 * defaulted config and `docs/config.md` lists them.
 */
export const REQUIRED_WHEN_RULES: readonly RequiredWhenRule[] = [
  { tab: 'http', flag: 'useApiGateway', required: ['gatewayServiceName'] },
  {
    tab: 'http',
    flag: 'useKerberosWithSpnego',
    required: ['kerberosRealm', 'httpSpnegoPrincipal', 'keytabFile'],
  },
  { tab: 'httpResponse', flag: 'validateSchema', required: ['xmlSchema'] },
];

/** A feature of the spec whose options exist in the schema but which this version does not do yet. */
export interface NotYetBuilt {
  /** The switch that turns it on; `new Origin` refuses the config while it is on. */
  readonly flag: string;
  /** Every option of the feature, the switch included, as `<tab>.<key>`. */
  readonly options: readonly string[];
  /** The issue that builds it. */
  readonly issue: number;
}

/**
 * Features not built yet, marked in `docs/config.md` so that nobody configures them expecting them to work.
 * Remove an entry when its feature lands (tests/docs/not-yet-built.test.ts checks that each flag is refused).
 */
export const NOT_YET_BUILT: readonly NotYetBuilt[] = [];

// Node turns a timer delay above 2^31 - 1 ms into 1 ms, so a longer timeout would fire at once.
const MAX_TIMER_MS = 2_147_483_647;

function bool(defaultValue: boolean, description: string): JsonSchema {
  return { type: 'boolean', default: defaultValue, description };
}

function text(defaultValue: string, description: string): JsonSchema {
  return { type: 'string', default: defaultValue, description };
}

function integer(
  defaultValue: number,
  minimum: number,
  maximum: number | undefined,
  description: string,
): JsonSchema {
  const upper = maximum === undefined ? {} : { maximum };
  return { type: 'integer', default: defaultValue, minimum, ...upper, description };
}

function oneOf(values: readonly string[], defaultValue: string, description: string): JsonSchema {
  return { type: 'string', enum: values, default: defaultValue, description };
}

function list(items: JsonSchema, defaultValue: readonly unknown[], description: string): JsonSchema {
  return { type: 'array', items, uniqueItems: true, default: defaultValue, description };
}

function group(title: string, description: string, properties: Record<string, JsonSchema>): JsonSchema {
  return { type: 'object', title, description, default: {}, additionalProperties: false, properties };
}

const NON_EMPTY_STRING: JsonSchema = { type: 'string', minLength: 1 };

function generalSchema(): JsonSchema {
  return group('General', 'The stage itself.', {
    name: text(
      'REST Service 1',
      'Name: the stage name. Also the realm of Basic authentication challenges and the name shown with the endpoint.',
    ),
    description: text('', 'Description: free text about the stage.'),
    resourcesDirectory: text(
      '',
      "(addition) The engine's resources directory: relative paths of files the origin reads (tls.keystoreFile, tls.truststoreFile, the imports of httpResponse.xmlSchema) resolve against it and may not lead outside it, after symbolic links are followed; absolute paths are used as they are. '' is the process's working directory.",
    ),
    onRecordError: oneOf(
      ON_RECORD_ERROR_VALUES,
      'sendToError',
      "On Record Error: what happens to a record the data format cannot parse. discard drops it; sendToError adds it to the batch's error records for the pipeline's error handling; stopPipeline answers the request with 500 and stops the origin.",
    ),
  });
}

function httpSchema(): JsonSchema {
  return group('HTTP', 'How requests reach the origin, who may send them, and the limits that protect it.', {
    useApiGateway: bool(
      false,
      "Use API Gateway: receive requests through the engine's API gateway (by gatewayServiceName) instead of listening on a port.",
    ),
    gatewayServiceName: text(
      '',
      'Gateway Service Name: the service name that routes gateway requests to this origin (`/rest/v1/gateway/<name>` or `/public-rest/v1/gateway/<name>`). Required when useApiGateway is true.',
    ),
    requireGatewayAuthentication: bool(
      false,
      'Require Gateway Authentication: the gateway authenticates the user of every request and the service is reached through the secure `/rest` API; off: through the public `/public-rest` API. Gateway mode only; when on, the Kerberos and Basic authentication options of this stage are ignored.',
    ),
    port: integer(
      8000,
      0,
      65535,
      'HTTP Listening Port: the TCP port to listen on. 0 asks the system for a free (ephemeral) port, reported by start() (addition, used by tests). Unused in gateway mode.',
    ),
    host: {
      type: 'string',
      minLength: 1,
      description:
        '(addition) The address to bind, e.g. `127.0.0.1` or `::1`. Unset: all interfaces, as the reference engine does.',
    },
    applicationIds: list(
      NON_EMPTY_STRING,
      [],
      'List of Application IDs: when non-empty, a request must carry one of these IDs (header `X-ENGINE-APPLICATION-ID`, or query parameter `engineApplicationId` when applicationIdInUrl is on) or it is answered 403. Compared exactly (case-sensitive) in constant time. Empty: no check. Origins in one process may share a port when their lists are non-empty and disjoint.',
    ),
    applicationIdInUrl: bool(
      false,
      'Application ID in URL: also accept the application ID from the `engineApplicationId` query parameter, for clients that cannot set headers. The header wins when both are sent.',
    ),
    maxConcurrentRequests: integer(
      10,
      1,
      200,
      'Max Concurrent Requests: how many requests are processed at one time (request slots; also the number of pipeline runners the host should supply). Further requests wait in a queue of queueSize.',
    ),
    maxRequestSizeMb: integer(
      100,
      1,
      100000,
      'Max Request Size (MB): the largest request body processed, in MB of 10^6 bytes, checked on the body as received and again after Content-Encoding is decoded. A larger body is answered 413.',
    ),
    maxRecordsPerRequest: integer(
      1_000_000,
      1,
      undefined,
      '(addition) The most records (parse failures included) one request body may hold; counted while the body is parsed, which stops at the first record beyond it: the request is answered 413 and nothing reaches the pipeline. Bounds the memory of a body of tiny values (100 MB of `{}` is 50 million records).',
    ),
    maxHeapUsagePercent: integer(
      85,
      1,
      100,
      "(addition) New requests are answered 503 with Retry-After while the process's V8 heap is more than this percent used (of its limit less the 48 MiB young generation, where a process really runs out); a body being read stops with the same answer when the heap passes halfway from this percent to full. 100: no check.",
    ),
    releaseMemoryAfterMb: integer(
      32,
      0,
      undefined,
      '(addition) After the answer to a request whose decoded body passed this many MB (10^6 bytes), once no other such request is being read or answered, the origin asks V8 for one full garbage collection, so that the process gives the memory of the body and its records back to the operating system instead of holding it until its next collection, which an idle process may not reach for a long time (decision 0091). 0: never.',
    ),
    useKerberosWithSpnego: bool(
      false,
      'Use Kerberos with SPNEGO Authentication: clients authenticate with Kerberos over HTTP (`Authorization: Negotiate`); a request without a valid ticket is answered 401. Ignored when gateway authentication is on; when on, basicAuthenticationUsers are ignored.',
    ),
    kerberosRealm: text(
      '',
      'Kerberos Realm: the realm of the SPNEGO service; a client principal of another realm is answered 403. Required when useKerberosWithSpnego is true.',
    ),
    httpSpnegoPrincipal: text(
      '',
      'HTTP-SPNEGO Principal: the service principal in the keytab, `HTTP/<fully qualified host name>@<realm>`, with the host name clients call and the realm of kerberosRealm. Required when useKerberosWithSpnego is true.',
    ),
    keytabFile: text(
      '',
      'Keytab File: the keytab that holds the principal, an absolute path or one relative to general.resourcesDirectory. GSSAPI reads it through the process-wide KRB5_KTNAME, so the origins of one process with SPNEGO share one keytab. Required when useKerberosWithSpnego is true.',
    ),
    queueSize: integer(
      100,
      0,
      100000,
      '(addition) How many requests may wait for a free request slot when all maxConcurrentRequests slots are busy. A request beyond it is answered 503 with Retry-After. 0: no waiting.',
    ),
    queueTimeoutMs: integer(
      30000,
      1,
      MAX_TIMER_MS,
      '(addition) The longest a request waits in the queue for a free slot, in milliseconds; then it is answered 503 with Retry-After.',
    ),
    ...rateLimitOptionsSchema(),
    responseTimeoutMs: integer(
      60000,
      1,
      MAX_TIMER_MS,
      "(addition) How long the pipeline may take on one batch, in milliseconds; then the batch's abort signal fires and the request is answered 503 ORIGIN_PIPELINE_NOT_STARTED with Retry-After when no runner had taken the batch (it is withdrawn), else 504 ORIGIN_PIPELINE_TIMEOUT (it may have been processed).",
    ),
    requestTimeoutMs: integer(
      300000,
      1,
      MAX_TIMER_MS,
      "(addition) How long a client may take to send the whole request (headers and body), in milliseconds (Node's `server.requestTimeout`); then it is answered 408 and the connection is closed.",
    ),
    headersTimeoutMs: integer(
      20000,
      1,
      MAX_TIMER_MS,
      "(addition) How long a client may take to send the request line and headers, in milliseconds (Node's `server.headersTimeout`, at most requestTimeoutMs); then it is answered 408 and the connection is closed. Guards against slowloris clients, which hold a connection but no request slot.",
    ),
    bodyReadTimeoutMs: integer(
      20000,
      0,
      MAX_TIMER_MS,
      '(addition) How long a request body may take to arrive beyond what its bytes earn at minBodyBytesPerSecond, in milliseconds, counted from when the request gets its slot: a body that falls behind is answered 408 and its slot freed. 0: no body timeout (requestTimeoutMs still applies).',
    ),
    minBodyBytesPerSecond: integer(
      500,
      0,
      undefined,
      '(addition) Every this many body bytes received give the body one more second beyond bodyReadTimeoutMs (the rule of Apache mod_reqtimeout, `body=20,MinRate=500`): a client that keeps up this rate is never cut off by bodyReadTimeoutMs. 0: bodyReadTimeoutMs bounds the whole body.',
    ),
    clientReadTimeoutMs: integer(
      20000,
      0,
      MAX_TIMER_MS,
      '(addition) How long a client may go without reading any of its answer while the answer is being sent, in milliseconds; then the connection is closed, so a client that never reads a large answer does not hold its memory. 0: no timeout.',
    ),
    keepAliveTimeoutMs: integer(
      5000,
      0,
      MAX_TIMER_MS,
      "(addition) How long an idle keep-alive connection stays open after a response, in milliseconds (Node's `server.keepAliveTimeout`; 0: no timeout).",
    ),
    maxConnections: integer(
      1000,
      1,
      1000000,
      "(addition) The most connections the port keeps open at once, idle keep-alive ones included. A connection beyond it is answered 503 ORIGIN_HTTP_TOO_MANY_CONNECTIONS with Retry-After and Connection: close as soon as it is accepted, and closed; its request is not read. On a shared port the first origin's value applies.",
    ),
    retryAfterSeconds: integer(
      1,
      0,
      undefined,
      '(addition) The `Retry-After` header of 503 answers (overload, queue timeout, shutting down), in seconds.',
    ),
    copyAuthorizationHeaders: bool(
      false,
      '(addition) Copy the `Authorization` and `Proxy-Authorization` request headers into record header attributes. Off keeps credentials out of records.',
    ),
    copyApplicationId: bool(
      false,
      '(addition) Copy the application ID into record header attributes: the `X-ENGINE-APPLICATION-ID` request header, and the `engineApplicationId` parameter in the `queryString` attribute. Off keeps the application ID, a shared secret, out of records.',
    ),
    copyCookieHeaders: bool(
      false,
      '(addition) Copy the `Cookie` request header into record header attributes. Off keeps session cookies out of records.',
    ),
    trustedProxies: list(
      NON_EMPTY_STRING,
      [],
      '(addition) The load balancers and reverse proxies in front of the origin, as IPv4 or IPv6 addresses or CIDR ranges (`127.0.0.1`, `10.0.0.0/8`, `fd00::/8`). Only when the TCP peer is one of them does trustedProxyHeader decide the client address (the `remoteHost` attribute, and the address NetFlow v9 keys its templates by): it is walked from the right, trusted hops skipped. Empty: the TCP peer is the client, and forwarding headers are plain headers (docs/deployment.md).',
    ),
    trustedProxyHeader: oneOf(
      FORWARDED_HEADER_NAMES,
      'xForwardedFor',
      '(addition) The header the trusted proxies maintain: xForwardedFor (`X-Forwarded-For`, what nginx `$proxy_add_x_forwarded_for` and most balancers append) or forwarded (RFC 7239 `Forwarded`, its `for=` parameters). Only this one is read: a header the proxy does not maintain could be a client forgery.',
    ),
    ...operationalPathsSchema(),
    idempotency: idempotencySchema(),
    cors: corsSchema(),
    traceContext: traceContextSchema(),
    http2: bool(
      false,
      '(addition) Serve HTTP/2 beside HTTP/1.1 on the same port: with TLS, ALPN offers `h2` and `http/1.1`; without TLS, a connection that opens with the HTTP/2 connection preface is served HTTP/2 with prior knowledge (h2c). Each stream is one request, with the same checks, limits and answers as an HTTP/1.1 request. See docs/http2.md.',
    ),
    http2MaxConcurrentStreams: integer(
      100,
      1,
      1000,
      '(addition) With http2: the most streams (requests) one HTTP/2 connection may have open at once (the SETTINGS_MAX_CONCURRENT_STREAMS the origin announces); a client opening more has them refused. Admission (maxConcurrentRequests, queueSize) still counts every stream of every connection.',
    ),
  });
}

/** The metrics, health and readiness paths of the http tab (decisions 0080, 0081; docs/metrics.md). */
function operationalPathsSchema(): Record<string, JsonSchema> {
  const path = (description: string): JsonSchema => ({ ...text('', description), pattern: '^(/[^?#]*)?$' });
  const common =
    'Answered by the origin itself on its port for GET and HEAD, before authentication and the application ID check, and never sent to the pipeline (decision 0080); TLS applies as to every request. Empty: off, the path goes to the pipeline as any other.';
  return {
    metricsPath: path(
      `(addition) A path, e.g. \`/metrics\`, that answers the origin's metrics as Prometheus text (OpenMetrics when the scraper's Accept header asks for it); names and labels in docs/metrics.md. ${common}`,
    ),
    healthPath: path(
      `(addition) A path, e.g. \`/healthz\`, that answers 200 while the origin is open and 503 once it is closing. ${common}`,
    ),
    readinessPath: path(
      `(addition) A path, e.g. \`/readyz\`, that answers 200 while the origin would take a request, and 503 while it is closing, its admission queue is full, or the runner pool's ready() says no (decision 0081). ${common}`,
    ),
  };
}

function compressionSchema(): JsonSchema {
  return group(
    'Compression',
    'How the body is packed, for every format that reads files (all but Avro and Datagram). Independent of the Content-Encoding header, which is always decoded first.',
    {
      format: oneOf(
        COMPRESSION_FORMATS,
        'none',
        'Compression Format: none: the body is the data itself; compressedFile: the body is one file in a supported compression format; archive: the body is an archive in a supported archive format, whose entries matching filePattern are parsed; compressedArchive: a compressed archive, likewise.',
      ),
      filePattern: text(
        '*',
        'File Name Pattern within Compressed Directory: a UNIX-style pattern (`*`, `?`; neither crosses `/`) choosing the archive entries to parse, for archive and compressedArchive. Without `/` it is matched against the file name of the entry, with `/` against its whole path. `*`: every entry.',
      ),
    },
  );
}

/**
 * A format's schema as a `dataFormat` sub-object: defaulting to `{}` lets the format's own defaults fill it, and
 * `$schema` is dropped because only the root of a schema may name the dialect.
 */
function formatOptionsSchema(format: DataFormat): JsonSchema {
  const { $schema: _dialect, ...rest } = format.configSchema;
  const description = `Options of the ${format.name} format, used when dataFormat.format is '${format.name}'. ${format.description}`;
  return { description, ...rest, default: {} };
}

function dataFormatSchema(registry: FormatRegistry): JsonSchema {
  const names = registry.names();
  // JSON Schema has no empty enum; resolveConfig reports a format chosen from an empty registry itself.
  const choices = names.length > 0 ? { enum: names } : {};
  const properties: Record<string, JsonSchema> = {
    format: {
      type: 'string',
      ...choices,
      description: `Data Format: the registered data format that parses request bodies (${names.join(', ') || 'none registered'}). Required: the only option without a default.`,
    },
    compression: compressionSchema(),
  };
  for (const format of registry.formats()) {
    if (RESERVED_DATA_FORMAT_KEYS.includes(format.name)) {
      throw new OriginError('ORIGIN_FORMAT_NAME_RESERVED', {
        format: format.name,
        reserved: RESERVED_DATA_FORMAT_KEYS.join(', '),
      });
    }
    properties[format.name] = formatOptionsSchema(format);
  }
  return {
    type: 'object',
    title: 'Data Format',
    description:
      'The format of request bodies, and the options of each registered format under its registry name (used when that format is chosen).',
    additionalProperties: false,
    required: ['format'],
    properties,
  };
}

function tlsSchema(): JsonSchema {
  return group(
    'TLS',
    'HTTPS, client certificates, and Basic authentication. In gateway mode with gateway authentication, these secure only the connection between the gateway and the origin.',
    {
      useTls: bool(false, 'Use TLS: serve HTTPS instead of HTTP.'),
      requireClientAuthentication: bool(
        false,
        'Require Client Authentication: mutual TLS; a client must present a certificate that the truststore trusts.',
      ),
      useRemoteKeystore: bool(
        false,
        'Use Remote Keystore: take the server key and certificates from privateKey and certificateChain (values or credential-store contents) instead of keystoreFile.',
      ),
      privateKey: text('', 'Private Key: the PEM text of the server private key, for the remote keystore.'),
      certificateChain: list(
        NON_EMPTY_STRING,
        [],
        'Certificate Chain: PEM certificates, the server certificate first, for the remote keystore.',
      ),
      keystoreFile: text(
        '',
        'Keystore File: the path of the local keystore holding the server key and certificate. Empty: no keystore.',
      ),
      keystoreType: oneOf(
        KEYSTORE_TYPES,
        'jks',
        'Keystore Type: jks (Java KeyStore), pkcs12 (PKCS #12), or pem (a PEM file holding the key and certificates; addition).',
      ),
      keystorePassword: text('', 'Keystore Password: the password of the keystore and its key. Empty: none.'),
      keystoreKeyAlgorithm: text(
        '',
        "Keystore Key Algorithm: the key manager algorithm. Empty: the platform's default (X.509).",
      ),
      useRemoteTruststore: bool(
        false,
        'Use Remote Truststore: take the trusted certificates from trustedCertificates instead of truststoreFile.',
      ),
      trustedCertificates: list(
        NON_EMPTY_STRING,
        [],
        'Trusted Certificates: PEM certificates trusted to sign client certificates, for the remote truststore.',
      ),
      truststoreFile: text(
        '',
        "Truststore File: the path of the local truststore. Empty: no truststore (the platform's default CAs).",
      ),
      truststoreType: oneOf(
        KEYSTORE_TYPES,
        'jks',
        'Truststore Type: jks (Java KeyStore), pkcs12 (PKCS #12), or pem (a PEM file of certificates; addition).',
      ),
      truststorePassword: text('', 'Truststore Password: the password of the truststore. Empty: none.'),
      truststoreTrustAlgorithm: text(
        '',
        "Truststore Trust Algorithm: the trust manager algorithm. Empty: the platform's default (X.509).",
      ),
      useDefaultProtocols: bool(
        true,
        "Use Default Protocols: accept the platform's default TLS versions (TLSv1.2 and later). Clear to choose transportProtocols.",
      ),
      transportProtocols: list(
        { type: 'string', enum: TLS_PROTOCOLS },
        DEFAULT_TLS_PROTOCOLS,
        'Transport Protocols accepted when useDefaultProtocols is false. Protocols older than TLSv1.2 are less secure.',
      ),
      useDefaultCipherSuites: bool(
        true,
        "Use Default Cipher Suites: the platform's default cipher suites. Clear to choose cipherSuites.",
      ),
      cipherSuites: list(
        NON_EMPTY_STRING,
        [],
        'Cipher Suites used when useDefaultCipherSuites is false, in OpenSSL naming (e.g. `ECDHE-RSA-AES128-GCM-SHA256`, `TLS_AES_128_GCM_SHA256`).',
      ),
      basicAuthenticationUsers: list(
        {
          type: 'object',
          additionalProperties: false,
          required: ['user', 'password'],
          properties: {
            user: { type: 'string', minLength: 1, description: 'User name.' },
            password: { type: 'string', minLength: 1, description: 'Password.' },
          },
        },
        [],
        'Basic Authentication Users: `{ user, password }` pairs, both non-empty. When TLS is on and the list is non-empty, every request must carry HTTP Basic credentials of one of them or it is answered 401. Ignored when gateway authentication or Kerberos with SPNEGO is on.',
      ),
    },
  );
}

function httpResponseSchema(): JsonSchema {
  return group('HTTP Response', 'The response generated from the records the pipeline sends back.', {
    sendRawResponse: bool(
      false,
      'Send Raw Response: send the records themselves instead of the envelope `{ httpStatusCode, data, error, errorMessage }`. When error records exist, only they are sent.',
    ),
    dataFormat: oneOf(RESPONSE_DATA_FORMATS, 'json', 'Data Format of the response body: json or xml.'),
    jsonContent: oneOf(
      RESPONSE_JSON_CONTENTS,
      'multipleObjects',
      'JSON Content of a raw JSON response: arrayOfObjects sends one JSON array; multipleObjects sends one JSON value per line. The envelope is always one object. JSON only.',
    ),
    charset: {
      type: 'string',
      enum: RESPONSE_CHARSETS,
      default: 'UTF-8',
      description: `Charset of the response body: ${RESPONSE_CHARSETS.join(', ')} (the encodings Node's Buffer writes). Matched case-insensitively; the aliases ${Object.values(
        RESPONSE_CHARSET_ALIASES,
      )
        .flat()
        .join(', ')} are accepted too and resolve to the canonical name.`,
    },
    prettyFormat: bool(true, 'Pretty Format: indent XML responses. XML only.'),
    validateSchema: bool(
      false,
      'Validate Schema: validate XML responses against xmlSchema before they are sent. XML only.',
    ),
    xmlSchema: text(
      '',
      'XML Schema: the XSD text XML responses are validated against. Required when validateSchema is true. Compiled at start(): a schema that does not compile is a ConfigError. Its imports and includes are read from files: a relative schemaLocation resolves against general.resourcesDirectory (and against the importing file for nested ones) and may not lead outside it; URLs are refused, nothing is fetched.',
    ),
    sendErrorDetails: bool(
      false,
      "(addition) Send Error Details: answer a failed batch (ORIGIN_PIPELINE_FAILED), an unexpected failure (ORIGIN_INTERNAL_ERROR) and a response that could not be rendered or validated (ORIGIN_RESPONSE_RENDER_FAILED, ORIGIN_RESPONSE_SCHEMA_INVALID) with the underlying error's message word for word. Off: the client gets the code, a generic text and the request ID; the message still reaches the origin's rejection event. Such messages can carry paths, queries or secrets.",
    ),
    compress: bool(
      false,
      "(addition) Compress responses with br or gzip, whichever the client's Accept-Encoding rates higher (br on a tie; q-values, identity;q=0 and * honoured), when the body has at least compressMinBytes bytes; every response with a body then carries Vary: Accept-Encoding. A response the pipeline gave a Content-Encoding of its own is left alone. See docs/content-encoding.md.",
    ),
    compressMinBytes: integer(
      DEFAULT_COMPRESS_MIN_BYTES,
      0,
      undefined,
      '(addition) With compress: the smallest response body, in bytes as rendered, that is compressed; smaller ones are sent as they are unless the client refused identity.',
    ),
  });
}

/**
 * The JSON Schema (draft 2020-12) of the whole origin configuration, grouped by the spec's tabs: `general`,
 * `http`, `dataFormat`, `tls`, `httpResponse`. Every key has a `default` and a `description` (descriptions say
 * the meaning and units, and mark options beyond the spec with "(addition)"); the only required key is
 * `dataFormat.format`, an enum of `registry.names()`. Each registered format's `configSchema` is the schema of
 * `dataFormat.<name>`, defaulting to `{}`, so a format's schema must accept `{}` (its own defaults fill it) even
 * when another format is chosen. Every object forbids unknown keys.
 *
 * Cross-field rules (e.g. `gatewayServiceName` when `useApiGateway`) are not in the schema; `resolveConfig`
 * checks them. A new schema object is built on every call; the caller may keep or change it.
 *
 * @throws OriginError `ORIGIN_FORMAT_NAME_RESERVED` when a format is registered as `format` or `compression`.
 */
export function buildConfigSchema(registry: FormatRegistry): JsonSchema {
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    title: 'REST Service origin configuration',
    type: 'object',
    additionalProperties: false,
    required: ['dataFormat'],
    properties: {
      general: generalSchema(),
      http: httpSchema(),
      dataFormat: dataFormatSchema(registry),
      tls: tlsSchema(),
      httpResponse: httpResponseSchema(),
    },
  };
}

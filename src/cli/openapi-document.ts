import { authenticationMethodOf } from '../auth/authentication-method';
import { ERROR_TABLE, type ErrorCode } from '../errors/error-table';
import type { OriginConfig } from '../origin/config';

/** An OpenAPI 3.1 document as plain JSON data. */
export type OpenApiDocument = { readonly [key: string]: unknown };

/** The methods the origin hands to the pipeline (TRACE is refused with 405; TRACK and CONNECT are not OpenAPI's). */
const OPERATIONS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch'] as const;
const WITH_BODY: ReadonlySet<string> = new Set(['post', 'put', 'patch']);

/**
 * The media types a request body of each built-in format is usually sent as. The origin parses every body with
 * the configured format whatever its Content-Type, so these say what to send, not what is checked.
 */
const FORMAT_MEDIA_TYPES: Readonly<Record<string, readonly string[]>> = {
  json: ['application/json', 'application/x-ndjson'],
  delimited: ['text/csv', 'text/tab-separated-values', 'text/plain'],
  xml: ['application/xml', 'text/xml'],
  avro: ['application/avro', 'avro/binary'],
  protobuf: ['application/x-protobuf'],
  binary: ['application/octet-stream'],
  engineRecord: ['application/octet-stream'],
  datagram: ['application/octet-stream'],
};

const COMPRESSION_MEDIA_TYPES: Readonly<Record<string, readonly string[]>> = {
  compressedFile: ['application/gzip', 'application/x-bzip2', 'application/x-xz', 'application/zstd'],
  archive: ['application/zip', 'application/x-tar'],
  compressedArchive: ['application/gzip', 'application/zip'],
};

/** The statuses a rejection may have, with what causes each (from the error table), for this config. */
function rejectionStatuses(config: OriginConfig): Map<number, ErrorCode[]> {
  const statuses = new Map<number, ErrorCode[]>();
  const method = authenticationMethodOf(config);
  for (const [code, spec] of Object.entries(ERROR_TABLE) as [ErrorCode, (typeof ERROR_TABLE)[ErrorCode]][]) {
    // Configuration and lifecycle errors never reach a client.
    if (spec.category === 'config' || spec.category === 'lifecycle') continue;
    if (spec.httpStatus === 401 && method !== 'basic' && method !== 'spnego') continue;
    if (code.startsWith('ORIGIN_GATEWAY_') && !config.http.useApiGateway) continue;
    if (code.startsWith('ORIGIN_APP_ID_') && config.http.applicationIds.length === 0) continue;
    if (code.startsWith('ORIGIN_CORS_') && !config.http.cors.enabled) continue;
    const codes = statuses.get(spec.httpStatus) ?? [];
    codes.push(code);
    statuses.set(spec.httpStatus, codes);
  }
  return new Map([...statuses].sort(([a], [b]) => a - b));
}

/**
 * An OpenAPI 3.1 document of what an origin made from `config` serves (`rest-origin openapi`): its server, every
 * path (`/` and `/{path}`: the origin takes any path) with the methods it hands to the pipeline, the request body's
 * media types for the configured format, the authentication in force as security schemes (HTTP Basic, Negotiate
 * for SPNEGO, mutual TLS, the application ID as an API key in the header or the query), the response envelope
 * (JSON or XML) of the pipeline's answers and the rejection envelope of every status a client may get, each with
 * the `ORIGIN_*` codes behind it. Plain data, no secret (user names and keys are never mentioned).
 */
export function openApiDocument(config: OriginConfig, version: string): OpenApiDocument {
  const { general, http, tls } = config;
  const security = securityOf(config);
  // Every operation answers alike: the responses are written once, as components, and referred to.
  const responses = responsesOf(config);
  const operation = (method: string): Record<string, unknown> => ({
    operationId: `${method}Records`,
    summary: `${method.toUpperCase()}: the request becomes one batch of records`,
    description:
      'Every authorized request becomes one batch of records for the pipeline; the answer is what the pipeline sent back through SendResponse (207 when its records carry several status codes).',
    parameters: [
      { $ref: '#/components/parameters/traceparent' },
      { $ref: '#/components/parameters/tracestate' },
    ],
    ...(WITH_BODY.has(method) ? { requestBody: { $ref: '#/components/requestBodies/Records' } } : {}),
    responses: Object.fromEntries(
      Object.keys(responses).map((status) => [status, { $ref: `#/components/responses/Status${status}` }]),
    ),
    ...(security.requirements.length > 0 ? { security: security.requirements } : {}),
  });
  const pathItem: Record<string, unknown> = {};
  for (const method of OPERATIONS) pathItem[method] = operation(method);
  const anyPath = {
    ...Object.fromEntries(
      OPERATIONS.map((method) => [method, { ...operation(method), operationId: `${method}RecordsAtPath` }]),
    ),
    parameters: [
      {
        name: 'path',
        in: 'path',
        required: true,
        description:
          'Any path: the origin serves every path, and passes it on as the `path` record header attribute.',
        schema: { type: 'string' },
      },
    ],
  };
  return {
    openapi: '3.1.0',
    info: {
      title: general.name,
      version,
      description: [
        general.description,
        `The REST Service origin '${general.name}' (rest-service-origin): request bodies in the ${config.dataFormat.format} format become records; generated by \`rest-origin openapi\` from its config.`,
      ]
        .filter((text) => text !== '')
        .join('\n\n'),
    },
    servers: [serverOf(config)],
    paths: { '/': pathItem, '/{path}': anyPath },
    components: {
      parameters: {
        traceparent: {
          name: 'traceparent',
          in: 'header',
          required: false,
          description:
            'W3C Trace Context: continued with a span of the origin, echoed as the response traceparent (docs/trace-context.md).',
          schema: { type: 'string', pattern: '^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}(-.*)?$' },
        },
        tracestate: {
          name: 'tracestate',
          in: 'header',
          required: false,
          description: 'W3C Trace Context vendor state, kept with a valid traceparent.',
          schema: { type: 'string' },
        },
      },
      requestBodies: { Records: requestBodyOf(config) },
      responses: Object.fromEntries(
        Object.entries(responses).map(([status, response]) => [`Status${status}`, response]),
      ),
      headers: {
        traceparent: {
          description: "The origin's span of the request (with a traceparent on the request).",
          schema: { type: 'string' },
        },
        'Retry-After': {
          description: `Seconds to wait before retrying (${http.retryAfterSeconds}).`,
          schema: { type: 'integer' },
        },
        'WWW-Authenticate': { description: 'The authentication challenge.', schema: { type: 'string' } },
        Allow: { description: 'The methods the origin serves.', schema: { type: 'string' } },
      },
      schemas: schemasOf(config),
      ...(Object.keys(security.schemes).length > 0 ? { securitySchemes: security.schemes } : {}),
    },
    'x-rest-origin': {
      maxRequestSizeMb: http.maxRequestSizeMb,
      maxConcurrentRequests: http.maxConcurrentRequests,
      tls: tls.useTls,
    },
  };
}

function serverOf(config: OriginConfig): Record<string, unknown> {
  const { http, tls } = config;
  if (http.useApiGateway) {
    const api = http.requireGatewayAuthentication ? 'rest' : 'public-rest';
    return {
      url: `{gateway}/${api}/v1/gateway/${http.gatewayServiceName}`,
      description: "Through the engine's API gateway.",
      variables: { gateway: { default: 'http://localhost:18630', description: 'The gateway URL.' } },
    };
  }
  const host =
    http.host === undefined || http.host === '0.0.0.0' || http.host === '::' ? 'localhost' : http.host;
  return {
    url: `${tls.useTls ? 'https' : 'http'}://{host}:${http.port}`,
    variables: {
      host: { default: host.includes(':') ? `[${host}]` : host, description: 'The host the origin runs on.' },
    },
  };
}

function requestBodyOf(config: OriginConfig): Record<string, unknown> {
  const { format, compression } = config.dataFormat;
  const types =
    compression.format === 'none'
      ? (FORMAT_MEDIA_TYPES[format] ?? ['application/octet-stream'])
      : (COMPRESSION_MEDIA_TYPES[compression.format] ?? ['application/octet-stream']);
  const schema =
    format === 'json' && compression.format === 'none' ? {} : { type: 'string', contentMediaType: types[0] };
  return {
    required: false,
    description: `The records, in the ${format} format${compression.format === 'none' ? '' : ` (${compression.format})`}; parsed whatever the Content-Type. Content-Encoding gzip, snappy or identity; at most ${config.http.maxRequestSizeMb} MB raw and decoded. An empty body is one placeholder record.`,
    content: Object.fromEntries(types.map((type) => [type, { schema }])),
  };
}

function responsesOf(config: OriginConfig): Record<string, unknown> {
  const type = config.httpResponse.dataFormat === 'xml' ? 'application/xml' : 'application/json';
  const envelope = { [type]: { schema: { $ref: '#/components/schemas/Envelope' } } };
  const rejection = { [type]: { schema: { $ref: '#/components/schemas/Rejection' } } };
  const traced = { traceparent: { $ref: '#/components/headers/traceparent' } };
  const responses: Record<string, unknown> = {
    '200': {
      description: 'The pipeline answered (its records, or an empty envelope when it sent none).',
      headers: traced,
      content: config.httpResponse.sendRawResponse ? rawContent(config) : envelope,
    },
    '207': {
      description: "The pipeline's records carry several status codes.",
      headers: traced,
      content: config.httpResponse.sendRawResponse ? rawContent(config) : envelope,
    },
  };
  for (const [status, codes] of rejectionStatuses(config)) {
    const headers: Record<string, unknown> = { ...traced };
    if (status === 503) headers['Retry-After'] = { $ref: '#/components/headers/Retry-After' };
    if (status === 401) headers['WWW-Authenticate'] = { $ref: '#/components/headers/WWW-Authenticate' };
    if (status === 405) headers['Allow'] = { $ref: '#/components/headers/Allow' };
    responses[String(status)] = {
      description: `Refused or failed: ${codes.join(', ')} (docs/errors.md).`,
      headers,
      content: rejection,
    };
  }
  return responses;
}

function rawContent(config: OriginConfig): Record<string, unknown> {
  if (config.httpResponse.dataFormat === 'xml') {
    return { 'application/xml': { schema: { type: 'object', xml: { name: 'records' } } } };
  }
  return config.httpResponse.jsonContent === 'arrayOfObjects'
    ? { 'application/json': { schema: { type: 'array' } } }
    : { 'application/x-ndjson': { schema: {} } };
}

function schemasOf(config: OriginConfig): Record<string, unknown> {
  const xml = config.httpResponse.dataFormat === 'xml';
  const codes = Object.keys(ERROR_TABLE);
  return {
    Envelope: {
      type: 'object',
      description:
        "The response envelope (docs/response.md): the status, the pipeline's data records, its error records, and the first error record's message.",
      required: xml ? ['httpStatusCode'] : ['httpStatusCode', 'data', 'error', 'errorMessage'],
      properties: {
        httpStatusCode: { type: 'integer', minimum: 100, maximum: 599 },
        data: { type: 'array', items: {}, ...(xml ? { xml: { wrapped: false } } : {}) },
        error: { type: 'array', items: {}, ...(xml ? { xml: { wrapped: false } } : {}) },
        errorMessage: { type: xml ? 'string' : ['string', 'null'] },
      },
      ...(xml ? { xml: { name: 'response' } } : {}),
    },
    Rejection: {
      description:
        'The envelope of a request the origin refused or that failed: no records, and errorMessage "<CODE> - <message>".',
      allOf: [{ $ref: '#/components/schemas/Envelope' }],
      type: 'object',
      properties: {
        data: { type: 'array', maxItems: 0 },
        error: { type: 'array', maxItems: 0 },
        errorMessage: { type: 'string', pattern: '^ORIGIN_[A-Z0-9_]+ - ' },
      },
    },
    ErrorCode: {
      type: 'string',
      description: 'The stable codes at the start of a rejection errorMessage (docs/errors.md).',
      enum: codes,
    },
  };
}

function securityOf(config: OriginConfig): {
  schemes: Record<string, unknown>;
  requirements: Record<string, string[]>[];
} {
  const { http, tls } = config;
  const schemes: Record<string, unknown> = {};
  const method = authenticationMethodOf(config);
  const base: Record<string, string[]> = {};
  if (method === 'basic') {
    schemes['basic'] = {
      type: 'http',
      scheme: 'basic',
      description: `HTTP Basic over TLS, realm '${config.general.name}'.`,
    };
    base['basic'] = [];
  } else if (method === 'spnego') {
    schemes['spnego'] = {
      type: 'http',
      scheme: 'negotiate',
      description: `Kerberos with SPNEGO (RFC 4559), realm ${http.kerberosRealm}.`,
    };
    base['spnego'] = [];
  } else if (method === 'gateway') {
    schemes['gateway'] = {
      type: 'http',
      scheme: 'basic',
      description: "The API gateway's users (file realm or LDAP) with a role and read permission.",
    };
    base['gateway'] = [];
  }
  if (tls.useTls && tls.requireClientAuthentication) {
    schemes['mutualTls'] = {
      type: 'mutualTLS',
      description: 'A client certificate chained to the truststore.',
    };
    base['mutualTls'] = [];
  }
  if (http.applicationIds.length === 0) {
    return { schemes, requirements: Object.keys(base).length > 0 ? [base] : [] };
  }
  schemes['applicationId'] = {
    type: 'apiKey',
    in: 'header',
    name: 'X-ENGINE-APPLICATION-ID',
    description: 'One of the configured application IDs (compared exactly, in constant time).',
  };
  const requirements: Record<string, string[]>[] = [{ ...base, applicationId: [] }];
  if (http.applicationIdInUrl) {
    schemes['applicationIdInUrl'] = {
      type: 'apiKey',
      in: 'query',
      name: 'engineApplicationId',
      description: 'The application ID as a query parameter (http.applicationIdInUrl).',
    };
    requirements.push({ ...base, applicationIdInUrl: [] });
  }
  return { schemes, requirements };
}

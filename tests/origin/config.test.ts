import { ConfigError, type ConfigProblem } from '../../src/errors/config-error';
import { isOriginError } from '../../src/errors/origin-error';
import { defaultRegistry } from '../../src/formats/built-in';
import type { DataFormat, JsonSchema } from '../../src/formats/data-format';
import { FormatRegistry } from '../../src/formats/format-registry';
import { resolveConfig, type OriginConfig } from '../../src/origin/config';
import { buildConfigSchema } from '../../src/origin/config-schema';

function fakeFormat(name: string, configSchema: JsonSchema): DataFormat {
  return {
    name,
    description: `The ${name} test format.`,
    configSchema,
    createParser: () => ({
      push: () => ({ records: [], failures: [] }),
      end: () => ({ records: [], failures: [] }),
    }),
  };
}

const linesFormat = fakeFormat('lines', {
  type: 'object',
  additionalProperties: false,
  properties: {
    maxLineChars: { type: 'integer', minimum: 1, default: 80, description: 'Longest line, in characters.' },
    separator: { type: 'string', enum: ['lf', 'crlf'], default: 'lf', description: 'Line separator.' },
  },
});

const blobFormat = fakeFormat('blob', {
  type: 'object',
  additionalProperties: false,
  properties: { maxBytes: { type: 'integer', minimum: 1, default: 1024, description: 'Largest body.' } },
});

function registry(): FormatRegistry {
  return new FormatRegistry([linesFormat, blobFormat]);
}

/** The problems of the ConfigError `run` throws; fails the test when it throws anything else or nothing. */
function problemsOf(run: () => unknown): readonly ConfigProblem[] {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).problems;
  }
  throw new Error('expected a ConfigError, but nothing was thrown');
}

function problemsFor(input: unknown): readonly ConfigProblem[] {
  return problemsOf(() => resolveConfig(input, registry()));
}

function withFormat(rest: Record<string, unknown>): Record<string, unknown> {
  return { dataFormat: { format: 'lines' }, ...rest };
}

const DOCUMENTED_DEFAULTS: OriginConfig = {
  general: { name: 'REST Service 1', description: '', resourcesDirectory: '', onRecordError: 'sendToError' },
  http: {
    useApiGateway: false,
    gatewayServiceName: '',
    requireGatewayAuthentication: false,
    port: 8000,
    applicationIds: [],
    applicationIdInUrl: false,
    maxConcurrentRequests: 10,
    maxRequestSizeMb: 100,
    maxRecordsPerRequest: 1_000_000,
    maxHeapUsagePercent: 85,
    releaseMemoryAfterMb: 32,
    useKerberosWithSpnego: false,
    kerberosRealm: '',
    httpSpnegoPrincipal: '',
    keytabFile: '',
    queueSize: 100,
    queueTimeoutMs: 30000,
    rateLimits: [],
    maxConcurrentRequestsPerKey: null,
    responseTimeoutMs: 60000,
    requestTimeoutMs: 300000,
    headersTimeoutMs: 20000,
    bodyReadTimeoutMs: 20000,
    minBodyBytesPerSecond: 500,
    clientReadTimeoutMs: 20000,
    keepAliveTimeoutMs: 5000,
    maxConnections: 1000,
    retryAfterSeconds: 1,
    copyAuthorizationHeaders: false,
    copyApplicationId: false,
    copyCookieHeaders: false,
    trustedProxies: [],
    trustedProxyHeader: 'xForwardedFor',
    metricsPath: '',
    healthPath: '',
    readinessPath: '',
    cors: {
      enabled: false,
      allowedOrigins: [],
      allowedMethods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'],
      allowedHeaders: [
        'Content-Type',
        'Content-Encoding',
        'X-ENGINE-APPLICATION-ID',
        'Authorization',
        'traceparent',
        'tracestate',
      ],
      exposedHeaders: [],
      allowCredentials: false,
      maxAgeSeconds: 600,
    },
    traceContext: 'continue',
    http2: false,
    http2MaxConcurrentStreams: 100,
  },
  dataFormat: {
    format: 'lines',
    compression: { format: 'none', filePattern: '*' },
    lines: { maxLineChars: 80, separator: 'lf' },
    blob: { maxBytes: 1024 },
  },
  tls: {
    useTls: false,
    requireClientAuthentication: false,
    useRemoteKeystore: false,
    privateKey: '',
    certificateChain: [],
    keystoreFile: '',
    keystoreType: 'jks',
    keystorePassword: '',
    keystoreKeyAlgorithm: '',
    useRemoteTruststore: false,
    trustedCertificates: [],
    truststoreFile: '',
    truststoreType: 'jks',
    truststorePassword: '',
    truststoreTrustAlgorithm: '',
    useDefaultProtocols: true,
    transportProtocols: ['TLSv1.2', 'TLSv1.3'],
    useDefaultCipherSuites: true,
    cipherSuites: [],
    basicAuthenticationUsers: [],
  },
  httpResponse: {
    sendRawResponse: false,
    dataFormat: 'json',
    jsonContent: 'multipleObjects',
    charset: 'UTF-8',
    prettyFormat: true,
    validateSchema: false,
    xmlSchema: '',
    sendErrorDetails: false,
    compress: false,
    compressMinBytes: 1024,
  },
};

describe('resolveConfig defaults', () => {
  it('resolves the minimal config to the full documented defaults', () => {
    expect(resolveConfig({ dataFormat: { format: 'lines' } }, registry())).toStrictEqual(DOCUMENTED_DEFAULTS);
  });

  it('leaves http.host unset unless given, and keeps it when given', () => {
    expect(resolveConfig(withFormat({}), registry()).http).not.toHaveProperty('host');
    expect(resolveConfig(withFormat({ http: { host: '127.0.0.1' } }), registry()).http.host).toBe(
      '127.0.0.1',
    );
  });

  it('keeps given values and fills the rest of the same tab', () => {
    const config = resolveConfig(withFormat({ http: { port: 0, applicationIds: ['a', 'b'] } }), registry());
    expect(config.http.port).toBe(0);
    expect(config.http.applicationIds).toEqual(['a', 'b']);
    expect(config.http.maxConcurrentRequests).toBe(10);
  });

  it('lists keys in schema order, whatever order the input used', () => {
    const config = resolveConfig(
      { httpResponse: { xmlSchema: '', sendRawResponse: true }, dataFormat: { format: 'lines' } },
      registry(),
    );
    expect(Object.keys(config)).toEqual(['general', 'http', 'dataFormat', 'tls', 'httpResponse']);
    expect(Object.keys(config.httpResponse).slice(0, 2)).toEqual(['sendRawResponse', 'dataFormat']);
  });

  it('accepts the bounds of every limited option', () => {
    const low = {
      port: 0,
      maxConcurrentRequests: 1,
      maxRequestSizeMb: 1,
      queueSize: 0,
      keepAliveTimeoutMs: 0,
    };
    const high = { port: 65535, maxConcurrentRequests: 200, maxRequestSizeMb: 100000, queueSize: 100000 };
    expect(resolveConfig(withFormat({ http: low }), registry()).http).toMatchObject(low);
    expect(resolveConfig(withFormat({ http: high }), registry()).http).toMatchObject(high);
  });
});

describe('resolveConfig problems', () => {
  it('reports the example of the issue as one ConfigError naming every path', () => {
    let thrown: unknown;
    try {
      resolveConfig({ http: { port: 70000, maxConcurrentRequests: 0 } }, registry());
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ConfigError);
    const error = thrown as ConfigError;
    expect(error.code).toBe('ORIGIN_CONFIG_INVALID');
    expect(error.problems).toEqual(
      expect.arrayContaining([
        { path: '/http/port', message: 'must be <= 65535' },
        { path: '/http/maxConcurrentRequests', message: 'must be >= 1' },
        { path: '/dataFormat', message: 'is required' },
      ]),
    );
    expect(error.problems).toHaveLength(3);
    expect(error.message).toContain('/http/port must be <= 65535');
  });

  it('lists every problem of every tab, not only the first', () => {
    const problems = problemsFor({
      general: { onRecordError: 'explode' },
      http: { port: -1, maxRequestSizeMb: 100001, queueTimeoutMs: 0 },
      dataFormat: { format: 'lines', lines: { maxLineChars: 0 } },
      tls: { keystoreType: 'p12' },
      httpResponse: { prettyFormat: 'yes' },
    });
    expect(problems.map((p) => p.path)).toEqual([
      '/general/onRecordError',
      '/http/port',
      '/http/maxRequestSizeMb',
      '/http/queueTimeoutMs',
      '/dataFormat/lines/maxLineChars',
      '/tls/keystoreType',
      '/httpResponse/prettyFormat',
    ]);
  });

  it('names a missing dataFormat.format', () => {
    expect(problemsFor({ dataFormat: {} })).toEqual([{ path: '/dataFormat/format', message: 'is required' }]);
  });

  it('rejects values of the wrong type with the expected type', () => {
    expect(problemsFor(withFormat({ http: { port: '8000', useTls: 1 } }))).toEqual(
      expect.arrayContaining([{ path: '/http/port', message: 'must be integer' }]),
    );
    expect(problemsFor(withFormat({ http: { maxConcurrentRequests: 2.5 } }))).toEqual([
      { path: '/http/maxConcurrentRequests', message: 'must be integer' },
    ]);
    expect(problemsFor(withFormat({ tls: { certificateChain: 'PEM' } }))).toEqual([
      { path: '/tls/certificateChain', message: 'must be array' },
    ]);
  });

  it('rejects an input that is not an object at the root path', () => {
    for (const input of [null, undefined, 'json', 42, []]) {
      expect(problemsFor(input)).toEqual([{ path: '', message: 'must be object' }]);
    }
  });

  it('rejects an input that is not plain data', () => {
    const problems = problemsFor(withFormat({ general: { name: () => 'x' } }));
    expect(problems).toHaveLength(1);
    expect(problems[0]?.path).toBe('');
    expect(problems[0]?.message).toMatch(/^must hold only plain data/);
  });

  it('rejects empty and repeated application IDs', () => {
    expect(problemsFor(withFormat({ http: { applicationIds: ['a', ''] } }))).toEqual([
      { path: '/http/applicationIds/1', message: 'must not be empty' },
    ]);
    const repeated = problemsFor(withFormat({ http: { applicationIds: ['a', 'a'] } }));
    expect(repeated.map((p) => p.path)).toEqual(['/http/applicationIds']);
    expect(repeated[0]?.message).toMatch(/duplicate/);
  });

  it('rejects timeouts beyond what a Node timer can wait', () => {
    expect(problemsFor(withFormat({ http: { responseTimeoutMs: 2 ** 31 } }))).toEqual([
      { path: '/http/responseTimeoutMs', message: 'must be <= 2147483647' },
    ]);
  });
});

describe('resolveConfig unknown keys', () => {
  it('names the unknown key in the path, at every level', () => {
    const problems = problemsFor({
      htpp: {},
      http: { prot: 8000 },
      dataFormat: { format: 'lines', compression: { pattern: '*' }, lines: { maxLine: 1 } },
    });
    expect(problems.map((p) => p.path)).toEqual([
      '/htpp',
      '/http/prot',
      '/dataFormat/compression/pattern',
      '/dataFormat/lines/maxLine',
    ]);
    expect(problems.every((p) => p.message.startsWith('is not a known option'))).toBe(true);
  });

  it('suggests the nearest known key when one is close', () => {
    expect(problemsFor(withFormat({ http: { maxConcurentRequests: 5 } }))).toEqual([
      {
        path: '/http/maxConcurentRequests',
        message: "is not a known option (did you mean 'maxConcurrentRequests'?)",
      },
    ]);
    expect(problemsFor(withFormat({ http: { zzz: 1 } }))).toEqual([
      { path: '/http/zzz', message: 'is not a known option' },
    ]);
  });

  it('escapes unknown keys as JSON Pointer segments', () => {
    expect(problemsFor(withFormat({ general: { 'a/b~c': 1 } })).map((p) => p.path)).toEqual([
      '/general/a~1b~0c',
    ]);
  });

  it('treats options of a format that is not registered as unknown', () => {
    expect(problemsFor({ dataFormat: { format: 'lines', csv: {} } }).map((p) => p.path)).toEqual([
      '/dataFormat/csv',
    ]);
  });
});

describe('resolveConfig enum values', () => {
  it('lists the allowed values of an enum', () => {
    expect(problemsFor(withFormat({ general: { onRecordError: 'Discard' } }))).toEqual([
      { path: '/general/onRecordError', message: "must be one of 'discard', 'sendToError', 'stopPipeline'" },
    ]);
  });

  it('allows exactly the registered formats for dataFormat.format', () => {
    expect(problemsFor({ dataFormat: { format: 'csv' } })).toEqual([
      { path: '/dataFormat/format', message: "must be one of 'lines', 'blob'" },
    ]);
    expect(resolveConfig({ dataFormat: { format: 'blob' } }, registry()).dataFormat.format).toBe('blob');
  });

  it('checks every item of an enum list', () => {
    expect(
      problemsFor(withFormat({ tls: { transportProtocols: ['TLSv1.3', 'SSLv3'] } })).map((p) => p.path),
    ).toEqual(['/tls/transportProtocols/1']);
  });

  it.each([
    ['/dataFormat/compression/format', { dataFormat: { format: 'lines', compression: { format: 'zip' } } }],
    ['/tls/truststoreType', withFormat({ tls: { truststoreType: 'JKS' } })],
    ['/httpResponse/dataFormat', withFormat({ httpResponse: { dataFormat: 'csv' } })],
    ['/httpResponse/jsonContent', withFormat({ httpResponse: { jsonContent: 'array' } })],
  ])('rejects a value outside the enum at %s', (path, input) => {
    const problems = problemsFor(input);
    expect(problems.map((p) => p.path)).toEqual([path]);
    expect(problems[0]?.message).toMatch(/^must be one of /);
  });

  it('accepts every response charset alias case-insensitively and resolves it to the canonical name', () => {
    const cases: [string, string][] = [
      ['utf-8', 'UTF-8'],
      ['UTF8', 'UTF-8'],
      ['utf16le', 'UTF-16LE'],
      ['Utf-16le', 'UTF-16LE'],
      ['latin1', 'ISO-8859-1'],
      ['iso-8859-1', 'ISO-8859-1'],
      ['ASCII', 'US-ASCII'],
      ['us-ascii', 'US-ASCII'],
    ];
    for (const [given, canonical] of cases) {
      const config = resolveConfig(withFormat({ httpResponse: { charset: given } }), registry());
      expect(config.httpResponse.charset).toBe(canonical);
    }
  });

  it('rejects a charset Node cannot write', () => {
    expect(problemsFor(withFormat({ httpResponse: { charset: 'KOI8-R' } }))).toEqual([
      {
        path: '/httpResponse/charset',
        message: "must be one of 'UTF-8', 'UTF-16LE', 'ISO-8859-1', 'US-ASCII'",
      },
    ]);
  });
});

describe('resolveConfig cross-field rules', () => {
  it('requires gatewayServiceName when useApiGateway is true', () => {
    expect(problemsFor(withFormat({ http: { useApiGateway: true } }))).toEqual([
      { path: '/http/gatewayServiceName', message: 'is required when useApiGateway is true' },
    ]);
    const config = resolveConfig(
      withFormat({ http: { useApiGateway: true, gatewayServiceName: 'orders' } }),
      registry(),
    );
    expect(config.http.gatewayServiceName).toBe('orders');
  });

  it('requires realm, principal and keytab when useKerberosWithSpnego is true', () => {
    expect(
      problemsFor(withFormat({ http: { useKerberosWithSpnego: true, kerberosRealm: 'EXAMPLE.COM' } })),
    ).toEqual([
      { path: '/http/httpSpnegoPrincipal', message: 'is required when useKerberosWithSpnego is true' },
      { path: '/http/keytabFile', message: 'is required when useKerberosWithSpnego is true' },
    ]);
    const complete = {
      useKerberosWithSpnego: true,
      kerberosRealm: 'EXAMPLE.COM',
      httpSpnegoPrincipal: 'HTTP/host.example.com@EXAMPLE.COM',
      keytabFile: '/etc/http.keytab',
    };
    expect(resolveConfig(withFormat({ http: complete }), registry()).http).toMatchObject(complete);
  });

  it('requires xmlSchema when validateSchema is true', () => {
    expect(problemsFor(withFormat({ httpResponse: { validateSchema: true } }))).toEqual([
      { path: '/httpResponse/xmlSchema', message: 'is required when validateSchema is true' },
    ]);
  });

  it('treats a blank value as missing', () => {
    expect(problemsFor(withFormat({ http: { useApiGateway: true, gatewayServiceName: '  ' } }))).toEqual([
      { path: '/http/gatewayServiceName', message: 'is required when useApiGateway is true' },
    ]);
  });

  it('does not require the dependent keys while the flag is off', () => {
    expect(() =>
      resolveConfig(withFormat({ http: { useApiGateway: false, useKerberosWithSpnego: false } }), registry()),
    ).not.toThrow();
  });

  it('reports cross-field problems together with schema problems', () => {
    const problems = problemsFor(withFormat({ http: { port: 70000, useApiGateway: true } }));
    expect(problems.map((p) => p.path)).toEqual(['/http/port', '/http/gatewayServiceName']);
  });

  it('needs a non-empty user and password in every basic authentication entry', () => {
    const problems = problemsFor(
      withFormat({
        tls: {
          basicAuthenticationUsers: [
            { user: 'ann', password: 'secret' },
            { user: '', password: 'x' },
            { user: 'bob' },
            { user: 'eve', password: 'x', role: 'admin' },
          ],
        },
      }),
    );
    expect(problems).toEqual([
      { path: '/tls/basicAuthenticationUsers/1/user', message: 'must not be empty' },
      { path: '/tls/basicAuthenticationUsers/2/password', message: 'is required' },
      { path: '/tls/basicAuthenticationUsers/3/role', message: 'is not a known option' },
    ]);
  });

  it('never echoes a password in a problem', () => {
    const problems = problemsFor(withFormat({ tls: { keystorePassword: 12345678 } }));
    expect(problems).toEqual([{ path: '/tls/keystorePassword', message: 'must be string' }]);
  });
});

describe('resolveConfig input and output objects', () => {
  it('never changes its input, even a frozen one', () => {
    const input = withFormat({ http: { port: 9000 }, httpResponse: { charset: 'utf8' } });
    const snapshot = structuredClone(input);
    const frozen = deepFreeze(structuredClone(input));
    resolveConfig(input, registry());
    resolveConfig(frozen, registry());
    expect(input).toStrictEqual(snapshot);
    expect(frozen).toStrictEqual(snapshot);
  });

  it('does not change the input when it reports problems', () => {
    const input = { http: { port: 70000 } };
    problemsFor(input);
    expect(input).toStrictEqual({ http: { port: 70000 } });
  });

  it('returns a deep-frozen config', () => {
    const config = resolveConfig(withFormat({ http: { applicationIds: ['a'] } }), registry());
    const objects: unknown[] = [];
    collectObjects(config, objects);
    expect(objects.length).toBeGreaterThan(10);
    expect(objects.filter((value) => !Object.isFrozen(value))).toEqual([]);
    expect(() => {
      (config.http as { port: number }).port = 1;
    }).toThrow(/read.only/);
    expect(() => (config.http.applicationIds as string[]).push('b')).toThrow(/not extensible/);
  });

  it('gives every call its own objects, so defaults are never shared', () => {
    const first = resolveConfig(withFormat({}), registry());
    const second = resolveConfig(withFormat({}), registry());
    expect(first).toStrictEqual(second);
    expect(first.tls.transportProtocols).not.toBe(second.tls.transportProtocols);
    expect(first.dataFormat['lines']).not.toBe(second.dataFormat['lines']);
  });
});

describe('resolveConfig with a format registry', () => {
  it("fills a registered format's options from its own schema", () => {
    const config = resolveConfig(
      { dataFormat: { format: 'lines', lines: { separator: 'crlf' } } },
      registry(),
    );
    expect(config.dataFormat['lines']).toStrictEqual({ maxLineChars: 80, separator: 'crlf' });
    expect(config.dataFormat['blob']).toStrictEqual({ maxBytes: 1024 });
  });

  it('validates the options of a format that is not the chosen one', () => {
    expect(problemsFor({ dataFormat: { format: 'lines', blob: { maxBytes: 0 } } })).toEqual([
      { path: '/dataFormat/blob/maxBytes', message: 'must be >= 1' },
    ]);
  });

  it('picks up a format registered after the registry was first used', () => {
    const formats = new FormatRegistry([linesFormat]);
    expect(resolveConfig({ dataFormat: { format: 'lines' } }, formats).dataFormat).not.toHaveProperty('blob');
    expect(problemsOf(() => resolveConfig({ dataFormat: { format: 'blob' } }, formats))).toHaveLength(1);
    formats.register(blobFormat);
    const config = resolveConfig({ dataFormat: { format: 'blob' } }, formats);
    expect(config.dataFormat['blob']).toStrictEqual({ maxBytes: 1024 });
  });

  it('accepts a format schema that names its dialect', () => {
    const dialect = fakeFormat('dialect', {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      additionalProperties: false,
      properties: { level: { type: 'integer', default: 3, description: 'A level.' } },
    });
    const config = resolveConfig({ dataFormat: { format: 'dialect' } }, new FormatRegistry([dialect]));
    expect(config.dataFormat['dialect']).toStrictEqual({ level: 3 });
  });

  it('refuses a format registered under a reserved dataFormat key', () => {
    for (const name of ['format', 'compression']) {
      const formats = new FormatRegistry([fakeFormat(name, { type: 'object' })]);
      let thrown: unknown;
      try {
        resolveConfig({ dataFormat: { format: name } }, formats);
      } catch (error) {
        thrown = error;
      }
      expect(isOriginError(thrown, 'ORIGIN_FORMAT_NAME_RESERVED')).toBe(true);
    }
  });

  it('reports a chosen format when the registry is empty', () => {
    expect(problemsOf(() => resolveConfig({ dataFormat: { format: 'json' } }, new FormatRegistry()))).toEqual(
      [
        {
          path: '/dataFormat/format',
          message: 'must name a registered data format, and the registry is empty',
        },
      ],
    );
  });
});

describe('resolveConfig with the default registry', () => {
  it('completes the minimal JSON config with the defaults of every built-in format', () => {
    const config = resolveConfig({ dataFormat: { format: 'json' } }, defaultRegistry);
    expect(config.dataFormat.format).toBe('json');
    expect(config.dataFormat['json']).toMatchObject({
      jsonContent: 'multipleObjects',
      maxObjectLengthChars: 4096,
    });
    expect(config.dataFormat['binary']).toMatchObject({ maxDataSizeBytes: 1024 });
  });

  it('checks the options of the built-in formats', () => {
    const problems = problemsOf(() =>
      resolveConfig(
        { dataFormat: { format: 'binary', json: { jsonContent: 'array' }, binary: { maxDataSizeBytes: 0 } } },
        defaultRegistry,
      ),
    );
    expect(problems.map((p) => p.path)).toEqual([
      '/dataFormat/json/jsonContent',
      '/dataFormat/binary/maxDataSizeBytes',
    ]);
  });

  it('refuses a format the default registry does not hold', () => {
    expect(problemsOf(() => resolveConfig({ dataFormat: { format: 'parquet' } }, defaultRegistry))).toEqual([
      {
        path: '/dataFormat/format',
        message: `must be one of ${defaultRegistry
          .names()
          .map((n) => `'${n}'`)
          .join(', ')}`,
      },
    ]);
  });
});

describe('buildConfigSchema', () => {
  const schema = buildConfigSchema(registry());

  it('requires only dataFormat.format', () => {
    const required: string[] = [];
    walkSchema(schema, '', (path, node) => {
      // Inside an optional list's entries or an optional object, a key is required only once the entry is given.
      const optional = /basicAuthenticationUsers|rateLimits|maxConcurrentRequestsPerKey/.test(path);
      if (Array.isArray(node['required']) && !optional) {
        for (const key of node['required'] as string[]) required.push(`${path}/${key}`);
      }
    });
    expect(required).toEqual(['/dataFormat', '/dataFormat/format']);
  });

  it('forbids unknown keys in every object of its own', () => {
    const open: string[] = [];
    walkSchema(schema, '', (path, node) => {
      if (node['type'] === 'object' && node['additionalProperties'] !== false) open.push(path || '/');
    });
    expect(open).toEqual([]);
  });

  it('gives every option a default and a description, except the required format and the optional host', () => {
    const lacking: string[] = [];
    walkSchema(schema, '', (path, node, isProperty) => {
      if (!isProperty || /basicAuthenticationUsers\/|rateLimits\/|maxConcurrentRequestsPerKey\//.test(path))
        return;
      if (!('default' in node) || typeof node['description'] !== 'string') lacking.push(path);
    });
    // http.idempotency is absent (off) unless given, like the bind address.
    expect(lacking).toEqual(['/http/host', '/http/idempotency', '/dataFormat', '/dataFormat/format']);
  });

  it('marks the options beyond the spec as additions', () => {
    const http = (schema['properties'] as Record<string, JsonSchema>)['http'] as JsonSchema;
    const properties = http['properties'] as Record<string, JsonSchema>;
    for (const key of [
      'host',
      'queueSize',
      'queueTimeoutMs',
      'responseTimeoutMs',
      'copyAuthorizationHeaders',
      'copyApplicationId',
      'copyCookieHeaders',
      'metricsPath',
      'healthPath',
      'readinessPath',
    ]) {
      expect(properties[key]?.['description']).toMatch(/\(addition\)/);
    }
  });

  it('enumerates the registered formats and embeds their schemas', () => {
    const dataFormat = (schema['properties'] as Record<string, JsonSchema>)['dataFormat'] as JsonSchema;
    const properties = dataFormat['properties'] as Record<string, JsonSchema>;
    expect(properties['format']?.['enum']).toEqual(['lines', 'blob']);
    expect(properties['lines']).toMatchObject({ ...linesFormat.configSchema, default: {} });
    expect(properties['blob']).toMatchObject({ ...blobFormat.configSchema, default: {} });
    expect(properties['lines']?.['description']).toContain(linesFormat.description);
  });
});

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

function collectObjects(value: unknown, into: unknown[]): void {
  if (typeof value !== 'object' || value === null) return;
  into.push(value);
  for (const child of Object.values(value)) collectObjects(child, into);
}

type SchemaVisitor = (path: string, node: Record<string, unknown>, isProperty: boolean) => void;

/** Visits the schema and every property and item schema below it, with the JSON Pointer of the data it checks. */
function walkSchema(node: unknown, path: string, visit: SchemaVisitor, isProperty = false): void {
  if (typeof node !== 'object' || node === null) return;
  const schemaNode = node as Record<string, unknown>;
  visit(path, schemaNode, isProperty);
  const properties = schemaNode['properties'];
  if (typeof properties === 'object' && properties !== null) {
    for (const [key, child] of Object.entries(properties)) walkSchema(child, `${path}/${key}`, visit, true);
  }
  if (schemaNode['items'] !== undefined) walkSchema(schemaNode['items'], `${path}/0`, visit);
}

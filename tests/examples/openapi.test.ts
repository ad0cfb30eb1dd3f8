import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defaultRegistry, resolveConfig } from 'rest-service-origin';
import { openApiDocument } from '../../src/cli/openapi-document';

// `rest-origin openapi` on the configs of examples/openapi, each document checked by a maintained OpenAPI 3.1
// validator and for what it says.
const root = join(__dirname, '..', '..');

function openapi(...args: string[]): { status: number | null; stdout: string; stderr: string } {
  return spawnSync(process.execPath, ['--import', 'tsx', join(root, 'src/cli/main.ts'), 'openapi', ...args], {
    cwd: root,
    encoding: 'utf8',
    timeout: 60_000,
  });
}

type Doc = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** The validator's verdict on `document` (it runs in a child process: it is an ES module). */
function validate(document: unknown): { valid: boolean; errors?: unknown; version: string } {
  const result = spawnSync(process.execPath, [join(__dirname, 'validate-openapi.mjs')], {
    cwd: root,
    input: JSON.stringify(document),
    encoding: 'utf8',
    timeout: 60_000,
  });
  if (result.status !== 0) throw new Error(`the validator failed: ${result.stderr}`);
  return JSON.parse(result.stdout) as { valid: boolean; errors?: unknown; version: string };
}

function expectValid(document: unknown): void {
  const result = validate(document);
  expect(result.errors).toBeUndefined();
  expect(result.valid).toBe(true);
  expect(result.version).toBe('3.1');
}

describe('rest-origin openapi', () => {
  let orders: Doc;
  let metrics: Doc;

  beforeAll(() => {
    const first = openapi('--config', 'examples/openapi/config.json');
    expect(first.stderr).toBe('');
    expect(first.status).toBe(0);
    orders = JSON.parse(first.stdout) as Doc;
    const second = openapi('--config', 'examples/openapi/spnego.yaml', '--api-version', '2.1.0');
    expect(second.status).toBe(0);
    metrics = JSON.parse(second.stdout) as Doc;
  });

  it('writes documents that a maintained OpenAPI 3.1 validator accepts', () => {
    expectValid(orders);
    expectValid(metrics);
  });

  it('is checked by a validator that refuses a broken document', () => {
    const { info: _info, ...broken } = orders;
    expect(validate(broken).valid).toBe(false);
    const badReference = structuredClone(orders);
    badReference['paths']['/'].post.requestBody = { $ref: '#/components/requestBodies/Nothing' };
    expect(validate(badReference).valid).toBe(false);
  });

  it('describes the server, every path and method, and the request media types of the format', () => {
    expect(orders['openapi']).toBe('3.1.0');
    expect(orders['info']).toMatchObject({ title: 'orders', version: '1.0.0' });
    expect(metrics['info'].version).toBe('2.1.0');
    expect(orders['servers']).toEqual([
      expect.objectContaining({
        url: 'https://{host}:8443',
        variables: { host: expect.objectContaining({ default: 'localhost' }) },
      }),
    ]);
    for (const path of ['/', '/{path}']) {
      expect(
        Object.keys(orders['paths'][path])
          .filter((key) => key !== 'parameters')
          .sort(),
      ).toEqual(['delete', 'get', 'head', 'options', 'patch', 'post', 'put']);
      expect(orders['paths'][path].trace).toBeUndefined();
      expect(orders['paths'][path].post.requestBody).toEqual({ $ref: '#/components/requestBodies/Records' });
    }
    expect(Object.keys(orders['components'].requestBodies.Records.content)).toEqual([
      'application/json',
      'application/x-ndjson',
    ]);
    expect(Object.keys(metrics['components'].requestBodies.Records.content)).toContain('text/csv');
  });

  it('states the authentication as security schemes: basic, SPNEGO, and the application ID in header or URL', () => {
    expect(orders['components'].securitySchemes).toEqual({
      basic: expect.objectContaining({ type: 'http', scheme: 'basic' }),
      applicationId: expect.objectContaining({
        type: 'apiKey',
        in: 'header',
        name: 'X-ENGINE-APPLICATION-ID',
      }),
      applicationIdInUrl: expect.objectContaining({
        type: 'apiKey',
        in: 'query',
        name: 'engineApplicationId',
      }),
    });
    expect(orders['paths']['/'].post.security).toEqual([
      { basic: [], applicationId: [] },
      { basic: [], applicationIdInUrl: [] },
    ]);
    expect(metrics['components'].securitySchemes).toEqual({
      spnego: expect.objectContaining({ type: 'http', scheme: 'negotiate' }),
    });
    expect(metrics['paths']['/'].get.security).toEqual([{ spnego: [] }]);
  });

  it('gives the envelope and every rejection status with its codes and headers', () => {
    const responses = orders['components'].responses;
    expect(Object.keys(orders['paths']['/'].post.responses)).toEqual(
      expect.arrayContaining(['200', '207', '400', '401', '403', '405', '413', '415', '500', '503', '504']),
    );
    expect(responses.Status200.content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/Envelope',
    });
    expect(responses.Status403.content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/Rejection',
    });
    expect(responses.Status403.description).toContain('ORIGIN_APP_ID_MISSING');
    expect(responses.Status403.description).toContain('ORIGIN_CORS_PREFLIGHT_REFUSED');
    expect(responses.Status401.headers['WWW-Authenticate']).toBeDefined();
    expect(responses.Status503.headers['Retry-After']).toBeDefined();
    expect(responses.Status413.description).toContain('ORIGIN_HTTP_BODY_TOO_LARGE');
    expect(orders['components'].schemas.Envelope.required).toEqual([
      'httpStatusCode',
      'data',
      'error',
      'errorMessage',
    ]);
    // SPNEGO answers in XML: the <response> envelope; no application IDs, so no 403 for them.
    expect(metrics['components'].responses.Status200.content['application/xml']).toBeDefined();
    expect(metrics['components'].schemas.Envelope.xml).toEqual({ name: 'response' });
    expect(metrics['components'].responses.Status403?.description ?? '').not.toContain('ORIGIN_APP_ID');
  });

  it('writes no secret', () => {
    const text = JSON.stringify(orders);
    expect(text).not.toContain('change-me-shop');
    expect(text).not.toContain('"shop"');
    expect(text).not.toContain('server-keystore.pem');
    expect(JSON.stringify(metrics)).not.toContain('http.keytab');
  });

  it('prints the problems of a broken config with their paths and exits 1', () => {
    const dir = mkdtempSync(join(tmpdir(), 'rest-origin-openapi-'));
    try {
      const file = join(dir, 'broken.json');
      writeFileSync(file, JSON.stringify({ http: { port: 70000 }, dataFormat: { format: 'nope' } }));
      const result = openapi('--config', file);
      expect(result.status).toBe(1);
      expect(result.stdout).toBe('');
      expect(result.stderr).toContain('/http/port');
      expect(result.stderr).toContain('/dataFormat/format');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('describes an origin served by the API gateway at its service URL', () => {
    const config = resolveConfig(
      {
        http: { useApiGateway: true, gatewayServiceName: 'orders', requireGatewayAuthentication: true },
        dataFormat: { format: 'xml' },
      },
      defaultRegistry,
    );
    const document = openApiDocument(config, '1.0.0') as Doc;
    expectValid(document);
    expect(document['servers'][0].url).toBe('{gateway}/rest/v1/gateway/orders');
    expect(document['components'].securitySchemes.gateway).toMatchObject({ type: 'http', scheme: 'basic' });
    expect(Object.keys(document['components'].requestBodies.Records.content)).toEqual([
      'application/xml',
      'text/xml',
    ]);
  });
});

import { request } from 'undici';
import {
  ConfigError,
  Gateway,
  InMemoryAcl,
  InProcessRunnerPool,
  Origin,
  ROLE_PROFILES,
  SendResponse,
  isOriginError,
  type DataRecord,
  type GatewayOptions,
  type OriginConfigInput,
} from 'rest-service-origin';
import { ListAuthenticator, basic } from './test-authenticator';

const USERS = [
  { name: 'ada', password: 'ada-secret', roles: ['admin'] },
  { name: 'max', password: 'max-secret', roles: ['manager'] },
  { name: 'guest', password: 'guest-secret', roles: ['creator'] },
];

let records: DataRecord[] = [];
const pool = new InProcessRunnerPool(
  10,
  (batch) => {
    records = batch.records;
    new SendResponse().write(batch);
  },
  { runnerIdleTimeMs: 0 },
);
const stops: Array<() => Promise<void>> = [];

afterEach(async () => {
  for (const stop of stops.splice(0).reverse()) await stop();
  records = [];
});
afterAll(() => pool.close());

async function startGateway(
  options: Partial<GatewayOptions> = {},
): Promise<{ gateway: Gateway; url: string }> {
  const gateway = new Gateway({ port: 0, host: '127.0.0.1', ...options });
  const url = await gateway.start();
  stops.push(() => gateway.close());
  return { gateway, url };
}

function gatewayConfig(
  service: string,
  secure: boolean,
  extra: Partial<OriginConfigInput> = {},
): OriginConfigInput {
  return {
    ...extra,
    general: { name: `${service}-stage`, ...extra.general },
    http: {
      useApiGateway: true,
      gatewayServiceName: service,
      requireGatewayAuthentication: secure,
      ...extra.http,
    },
    dataFormat: { format: 'json' },
  };
}

async function startService(
  gateway: Gateway,
  service: string,
  secure: boolean,
  pipeline?: string,
): Promise<Origin> {
  const origin = new Origin(gatewayConfig(service, secure), {
    runners: pool,
    gateway,
    ...(pipeline ? { pipeline } : {}),
  });
  await origin.start();
  stops.push(() => origin.close());
  return origin;
}

async function send(
  url: string,
  init: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<{
  status: number;
  headers: Record<string, unknown>;
  body: { httpStatusCode?: number; errorMessage?: string; data?: unknown[] };
}> {
  const res = await request(url, {
    method: (init.method ?? 'POST') as 'POST',
    headers: { 'content-type': 'application/json', 'x-requested-by': 'test', ...init.headers },
    ...(init.body !== undefined || (init.method ?? 'POST') !== 'GET' ? { body: init.body ?? '{"a":1}' } : {}),
  });
  const text = await res.body.text();
  return { status: res.statusCode, headers: res.headers, body: text === '' ? {} : JSON.parse(text) };
}

describe('Gateway routing (in process)', () => {
  it('serves a public service at /public-rest/v1/gateway/<name> with the caller path and query as attributes', async () => {
    const { gateway, url } = await startGateway();
    const origin = await startService(gateway, 'orders', false);
    expect(origin.url).toBe(`${url}public-rest/v1/gateway/orders`);
    expect(origin.describe().endpoint).toBe(origin.url);
    const answer = await send(`${url}public-rest/v1/gateway/orders/eu/items?since=3&x=%20y`);
    expect(answer.status).toBe(200);
    expect(answer.body.data).toEqual([{ a: 1 }]);
    expect(records[0]?.header.attributes()).toMatchObject({
      path: '/eu/items',
      queryString: 'since=3&x=%20y',
      method: 'POST',
    });
    expect(records[0]?.header.attributes()['authenticatedUser']).toBeUndefined();
    await send(`${url}public-rest/v1/gateway/orders`);
    expect(records[0]?.header.attributes()).toMatchObject({ path: '/', queryString: '' });
  });

  it('answers 404 for an unknown service, a service on the other API, and a path outside both APIs', async () => {
    const auth = new ListAuthenticator(USERS);
    const { gateway, url } = await startGateway({ authenticator: auth });
    await startService(gateway, 'open', false);
    await startService(gateway, 'closed', true);
    for (const path of [
      'public-rest/v1/gateway/nothing',
      'rest/v1/gateway/open',
      'public-rest/v1/gateway/closed',
      'elsewhere',
      'rest/v1/gateway/',
    ]) {
      const answer = await send(`${url}${path}`, { headers: { authorization: basic('ada', 'ada-secret') } });
      expect([path, answer.status]).toEqual([path, 404]);
      expect(answer.body.httpStatusCode).toBe(404);
      expect(answer.body.errorMessage).toMatch(/^ORIGIN_GATEWAY_(SERVICE_NOT_FOUND|PATH_UNKNOWN) - /);
    }
    expect(records).toEqual([]);
  });

  it('requires X-Requested-By on POST, PUT, DELETE and PATCH, not on GET', async () => {
    const { gateway, url } = await startGateway();
    await startService(gateway, 'orders', false);
    for (const method of ['POST', 'PUT', 'DELETE', 'PATCH']) {
      const res = await request(`${url}public-rest/v1/gateway/orders`, {
        method: method as 'POST',
        body: '{"a":1}',
      });
      const body = (await res.body.json()) as { errorMessage: string };
      expect([method, res.statusCode]).toEqual([method, 400]);
      expect(body.errorMessage).toMatch(/^ORIGIN_GATEWAY_REQUESTED_BY_MISSING - /);
    }
    const get = await request(`${url}public-rest/v1/gateway/orders`, { method: 'GET' });
    await get.body.dump();
    expect(get.statusCode).toBe(200);
    expect((await send(`${url}public-rest/v1/gateway/orders`, { method: 'PATCH' })).status).toBe(200);
  });

  it('refuses a taken service name without disturbing the first origin, and frees it on close', async () => {
    const { gateway, url } = await startGateway();
    const first = await startService(gateway, 'orders', false);
    const second = new Origin(gatewayConfig('orders', false), { runners: pool, gateway });
    const error = await second.start().catch((e: unknown) => e);
    expect(isOriginError(error, 'ORIGIN_GATEWAY_SERVICE_TAKEN')).toBe(true);
    expect(second.state).toBe('failed');
    expect((await send(`${url}public-rest/v1/gateway/orders`)).status).toBe(200);
    await first.close();
    expect((await send(`${url}public-rest/v1/gateway/orders`)).status).toBe(404);
    const third = await startService(gateway, 'orders', false);
    expect(third.state).toBe('listening');
    expect((await send(`${url}public-rest/v1/gateway/orders`)).status).toBe(200);
  });

  it('refuses gateway mode without a gateway, a gateway not started, and a secure service without authenticator', async () => {
    expect(() => new Origin(gatewayConfig('x', false), { runners: pool })).toThrow(ConfigError);
    const idle = new Gateway({ port: 0, host: '127.0.0.1' });
    const notListening = await new Origin(gatewayConfig('x', false), { runners: pool, gateway: idle })
      .start()
      .catch((e: unknown) => e);
    expect(isOriginError(notListening, 'ORIGIN_GATEWAY_NOT_LISTENING')).toBe(true);
    const { gateway } = await startGateway();
    const noAuth = await new Origin(gatewayConfig('x', true), { runners: pool, gateway })
      .start()
      .catch((e: unknown) => e);
    expect(isOriginError(noAuth, 'ORIGIN_GATEWAY_AUTHENTICATOR_MISSING')).toBe(true);
  });
});

describe('Gateway authentication and authorization', () => {
  it('secure API: 401 with the challenge without or with wrong credentials, identity attributes when good', async () => {
    const auth = new ListAuthenticator(USERS);
    const { gateway, url } = await startGateway({ authenticator: auth });
    const origin = await startService(gateway, 'orders', true);
    expect(origin.url).toBe(`${url}rest/v1/gateway/orders`);
    expect(origin.describe().authentication).toBe('gateway');
    const missing = await send(origin.url ?? '');
    expect(missing.status).toBe(401);
    expect(missing.headers['www-authenticate']).toBe(auth.challenge);
    expect(missing.body.errorMessage).toMatch(/^ORIGIN_AUTH_CREDENTIALS_MISSING - /);
    for (const wrong of [basic('ada', 'nope'), basic('nobody', 'x')]) {
      const answer = await send(origin.url ?? '', { headers: { authorization: wrong } });
      expect(answer.status).toBe(401);
      expect(answer.body.errorMessage).toMatch(/^ORIGIN_AUTH_CREDENTIALS_INVALID - /);
    }
    expect(records).toEqual([]);
    const good = await send(`${origin.url}/a?b=c`, {
      headers: { authorization: basic('max', 'max-secret') },
    });
    expect(good.status).toBe(200);
    expect(records[0]?.header.attributes()).toMatchObject({
      path: '/a',
      queryString: 'b=c',
      authenticationMethod: 'gateway',
      authenticatedUser: 'max',
    });
    await origin.close();
    await gateway.close();
    expect(auth.closed).toBe(true);
  });

  it('secure API: 403 without an admin or manager role, or without read permission on the pipeline', async () => {
    const authorizer = new InMemoryAcl({ 'orders-pipeline': ['ada', '@creator'] });
    const { gateway, url } = await startGateway({ authenticator: new ListAuthenticator(USERS), authorizer });
    await startService(gateway, 'orders', true, 'orders-pipeline');
    const role = await send(`${url}rest/v1/gateway/orders`, {
      headers: { authorization: basic('guest', 'guest-secret') },
    });
    expect(role.status).toBe(403);
    expect(role.body.errorMessage).toMatch(/^ORIGIN_GATEWAY_ROLE_MISSING - .*admin, manager/);
    const permission = await send(`${url}rest/v1/gateway/orders`, {
      headers: { authorization: basic('max', 'max-secret') },
    });
    expect(permission.status).toBe(403);
    expect(permission.body.errorMessage).toMatch(/^ORIGIN_GATEWAY_PERMISSION_DENIED - .*orders-pipeline/);
    expect(records).toEqual([]);
    const allowed = await send(`${url}rest/v1/gateway/orders`, {
      headers: { authorization: basic('ada', 'ada-secret') },
    });
    expect(allowed.status).toBe(200);
  });

  it('takes configured role names (the managed profile)', async () => {
    const users = [
      { name: 'eve', password: 'e', roles: ['Engine Manager'] },
      { name: 'ada', password: 'a', roles: ['admin'] },
    ];
    const { gateway, url } = await startGateway({
      authenticator: new ListAuthenticator(users),
      secureApiRoles: ROLE_PROFILES.managed,
    });
    await startService(gateway, 'orders', true);
    expect(
      (await send(`${url}rest/v1/gateway/orders`, { headers: { authorization: basic('eve', 'e') } })).status,
    ).toBe(200);
    expect(
      (await send(`${url}rest/v1/gateway/orders`, { headers: { authorization: basic('ada', 'a') } })).status,
    ).toBe(403);
  });

  it('public API: anyone may call; a known user needs read permission; wrong credentials are 401', async () => {
    const authorizer = new InMemoryAcl({ 'open-stage': ['ada'] });
    const { gateway, url } = await startGateway({ authenticator: new ListAuthenticator(USERS), authorizer });
    await startService(gateway, 'open', false);
    expect((await send(`${url}public-rest/v1/gateway/open`)).status).toBe(200);
    const known = await send(`${url}public-rest/v1/gateway/open`, {
      headers: { authorization: basic('ada', 'ada-secret') },
    });
    expect(known.status).toBe(200);
    expect(records[0]?.header.attributes()).toMatchObject({
      authenticatedUser: 'ada',
      authenticationMethod: 'gateway',
    });
    const denied = await send(`${url}public-rest/v1/gateway/open`, {
      headers: { authorization: basic('guest', 'guest-secret') },
    });
    expect(denied.status).toBe(403);
    expect(
      (await send(`${url}public-rest/v1/gateway/open`, { headers: { authorization: basic('ada', 'x') } }))
        .status,
    ).toBe(401);
  });

  it('answers 503 when the authenticator itself fails, withholding its detail', async () => {
    const auth = new ListAuthenticator(USERS);
    const { gateway, url } = await startGateway({ authenticator: auth });
    await startService(gateway, 'orders', true);
    auth.failWith = new Error('directory at ldap://10.0.0.1 unreachable');
    const answer = await send(`${url}rest/v1/gateway/orders`, {
      headers: { authorization: basic('ada', 'ada-secret') },
    });
    expect(answer.status).toBe(503);
    expect(answer.body.errorMessage).toMatch(/^ORIGIN_GATEWAY_AUTHENTICATOR_FAILED - /);
    expect(answer.body.errorMessage).not.toContain('10.0.0.1');
  });
});

describe('Gateway and the origin behind it', () => {
  it('keeps identity attributes unforgeable and checks application IDs from the caller query', async () => {
    const { gateway, url } = await startGateway();
    const origin = new Origin(
      gatewayConfig('ids', false, { http: { applicationIds: ['app-1'], applicationIdInUrl: true } }),
      { runners: pool, gateway },
    );
    await origin.start();
    stops.push(() => origin.close());
    const forged = { authenticatedUser: 'root', authenticationMethod: 'gateway' };
    expect((await send(`${url}public-rest/v1/gateway/ids/x`, { headers: forged })).status).toBe(403);
    const answer = await send(`${url}public-rest/v1/gateway/ids/x?engineApplicationId=app-1&k=v`, {
      headers: forged,
    });
    expect(answer.status).toBe(200);
    const attributes = records[0]?.header.attributes() ?? {};
    expect(attributes['authenticatedUser']).toBeUndefined();
    expect(attributes['authenticationMethod']).toBeUndefined();
    expect(attributes).toMatchObject({ path: '/x', queryString: 'k=v' });
  });

  it('counts the gateway refusals of a service in its metrics and rejection events', async () => {
    const { gateway, url } = await startGateway({ authenticator: new ListAuthenticator(USERS) });
    const origin = await startService(gateway, 'orders', true);
    const codes: string[] = [];
    origin.on('rejection', ({ code }) => codes.push(code));
    await request(`${url}rest/v1/gateway/orders`, { method: 'POST', body: '{}' }).then((r) => r.body.dump());
    await send(`${url}rest/v1/gateway/orders`);
    await send(`${url}rest/v1/gateway/orders`, {
      headers: { authorization: basic('guest', 'guest-secret') },
    });
    expect(codes).toEqual([
      'ORIGIN_GATEWAY_REQUESTED_BY_MISSING',
      'ORIGIN_AUTH_CREDENTIALS_MISSING',
      'ORIGIN_GATEWAY_ROLE_MISSING',
    ]);
    expect(origin.metrics().rejectedByReason).toMatchObject({
      ORIGIN_GATEWAY_REQUESTED_BY_MISSING: 1,
      ORIGIN_AUTH_CREDENTIALS_MISSING: 1,
      ORIGIN_GATEWAY_ROLE_MISSING: 1,
    });
  });

  it('streams a large body to the origin and answers every record', async () => {
    const { gateway, url } = await startGateway();
    await startService(gateway, 'bulk', false);
    const body = Array.from({ length: 20_000 }, (_, i) => JSON.stringify({ i, pad: 'x'.repeat(40) })).join(
      '\n',
    );
    const answer = await send(`${url}public-rest/v1/gateway/bulk`, { body });
    expect(answer.status).toBe(200);
    expect(answer.body.data).toHaveLength(20_000);
    expect(records[19_999]?.get('/i')).toBe(19_999);
  });
});

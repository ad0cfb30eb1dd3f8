import {
  ConfigError,
  InProcessRunnerPool,
  Origin,
  SendResponse,
  echoPipeline,
  type DataRecord,
  type OriginConfigInput,
} from 'rest-service-origin';
import { curlHttps, httpsAgent, sendHttps, startHttpsOrigin } from '../tls/https-client';
import { makeTlsMaterial, type TlsMaterial } from '../tls/tls-material';
import { freePort } from '../origin/origin-helpers';

// A password no other part of a request or a config contains, so that finding it anywhere is a leak.
const PASSWORD = 'Pa55-w0rd:with-colon-7f3c1e';
const OTHER_PASSWORD = 'second-secret-91ab';
const USERS = [
  { user: 'alice', password: PASSWORD },
  { user: 'bob', password: OTHER_PASSWORD },
];
const NAME = 'orders "v2"';

let material: TlsMaterial;
const stops: Array<() => Promise<void>> = [];
let records: DataRecord[] = [];

beforeAll(() => {
  material = makeTlsMaterial();
});

afterEach(async () => {
  for (const stop of stops.splice(0).reverse()) await stop();
  records = [];
});

afterAll(() => material.remove());

function basic(user: string, password: string): string {
  return `Basic ${Buffer.from(`${user}:${password}`, 'utf8').toString('base64')}`;
}

async function startBasic(config: Partial<OriginConfigInput> = {}): Promise<{ url: string; origin: Origin }> {
  const started = await startHttpsOrigin(
    material,
    {
      ...config,
      general: { name: NAME, ...config.general },
      tls: { basicAuthenticationUsers: USERS, ...config.tls },
    },
    {
      pipeline: (batch) => {
        records = batch.records;
        new SendResponse().write(batch);
      },
    },
  );
  stops.push(started.stop);
  return started;
}

function agent(): ReturnType<typeof httpsAgent> {
  const made = httpsAgent(material);
  stops.push(() => made.destroy());
  return made;
}

describe('basic authentication over TLS', () => {
  it('lets a configured user in and names the user in the record', async () => {
    const { url } = await startBasic();
    const answer = await sendHttps(url, agent(), {
      body: '{"a":1}',
      headers: { authorization: basic('alice', PASSWORD) },
    });
    expect(answer.status).toBe(200);
    expect(answer.headers['www-authenticate']).toBeUndefined();
    expect(records).toHaveLength(1);
    expect(records[0]?.header.getAttribute('authenticatedUser')).toBe('alice');
    expect(records[0]?.header.getAttribute('authenticationMethod')).toBe('basic');
    expect(records[0]?.header.getAttribute('authorization')).toBeUndefined();
  });

  it('lets each configured user in, through curl -u too', async () => {
    const { url } = await startBasic();
    const curl = await curlHttps(url, material, {
      body: '{"b":2}',
      extraArgs: ['-u', `bob:${OTHER_PASSWORD}`],
    });
    expect(curl.stdout.split('\n').pop()).toBe('200');
    expect(records[0]?.header.getAttribute('authenticatedUser')).toBe('bob');
  });

  it('answers 401 with a Basic challenge naming the stage when credentials are missing', async () => {
    const { url } = await startBasic();
    const answer = await sendHttps(url, agent(), { body: '{"a":1}' });
    expect(answer.status).toBe(401);
    expect(answer.headers['www-authenticate']).toBe('Basic realm="orders \\"v2\\"", charset="UTF-8"');
    expect(answer.json).toEqual({
      httpStatusCode: 401,
      data: [],
      error: [],
      errorMessage: expect.stringMatching(/^ORIGIN_AUTH_CREDENTIALS_MISSING - /),
    });
    expect(records).toHaveLength(0);
  });

  it.each([
    ['a wrong password', basic('alice', 'wrong')],
    ["another user's password", basic('alice', OTHER_PASSWORD)],
    ['an unknown user with a known password', basic('mallory', PASSWORD)],
    ['the password with a trailing space', basic('alice', `${PASSWORD} `)],
    ['the user name in another case', basic('Alice', PASSWORD)],
    ['credentials without a colon', `Basic ${Buffer.from('alice').toString('base64')}`],
    ['credentials that are not base64', 'Basic !!!not-base64!!!'],
    ['an empty user and password', basic('', '')],
  ])('answers 401 ORIGIN_AUTH_CREDENTIALS_INVALID to %s', async (_case, authorization) => {
    const { url } = await startBasic();
    const answer = await sendHttps(url, agent(), { body: '{"a":1}', headers: { authorization } });
    expect(answer.status).toBe(401);
    expect(answer.headers['www-authenticate']).toBe('Basic realm="orders \\"v2\\"", charset="UTF-8"');
    expect((answer.json as { errorMessage: string }).errorMessage).toMatch(
      /^ORIGIN_AUTH_CREDENTIALS_INVALID - /,
    );
    expect(records).toHaveLength(0);
  });

  it('answers 401 ORIGIN_AUTH_CREDENTIALS_MISSING to another scheme', async () => {
    const { url } = await startBasic();
    const answer = await sendHttps(url, agent(), { body: '{}', headers: { authorization: 'Bearer abc' } });
    expect(answer.status).toBe(401);
    expect((answer.json as { errorMessage: string }).errorMessage).toMatch(
      /^ORIGIN_AUTH_CREDENTIALS_MISSING - /,
    );
  });

  it('reads the scheme in any case', async () => {
    const { url } = await startBasic();
    const authorization = basic('alice', PASSWORD).replace('Basic', 'bAsIc');
    const answer = await sendHttps(url, agent(), { body: '{}', headers: { authorization } });
    expect(answer.status).toBe(200);
  });

  it('keeps the authenticated user when the client sends headers of the same names', async () => {
    const { url } = await startBasic();
    await sendHttps(url, agent(), {
      body: '{}',
      headers: {
        authorization: basic('alice', PASSWORD),
        AuthenticatedUser: 'admin',
        authenticationmethod: 'spnego',
      },
    });
    expect(records[0]?.header.getAttribute('authenticatedUser')).toBe('alice');
    expect(records[0]?.header.getAttribute('authenticationMethod')).toBe('basic');
    expect(records[0]?.header.getAttribute('AuthenticatedUser')).toBeUndefined();
  });

  it('authenticates before it checks the application ID: 401 first, then 403', async () => {
    const { url } = await startBasic({ http: { applicationIds: ['app-1'] } });
    const unauthenticated = await sendHttps(url, agent(), {
      body: '{}',
      headers: { 'x-engine-application-id': 'nope' },
    });
    expect(unauthenticated.status).toBe(401);
    const wrongId = await sendHttps(url, agent(), {
      body: '{}',
      headers: { authorization: basic('alice', PASSWORD), 'x-engine-application-id': 'nope' },
    });
    expect(wrongId.status).toBe(403);
    expect(wrongId.headers['www-authenticate']).toBeUndefined();
    const admitted = await sendHttps(url, agent(), {
      body: '{}',
      headers: { authorization: basic('alice', PASSWORD), 'x-engine-application-id': 'app-1' },
    });
    expect(admitted.status).toBe(200);
  });

  it('serves several requests on one keep-alive connection, each authenticated on its own', async () => {
    const { url } = await startBasic();
    const client = agent();
    const statuses: number[] = [];
    for (const authorization of [
      basic('alice', PASSWORD),
      basic('alice', 'bad'),
      basic('bob', OTHER_PASSWORD),
    ]) {
      statuses.push((await sendHttps(url, client, { body: '{}', headers: { authorization } })).status);
    }
    expect(statuses).toEqual([200, 401, 200]);
  });
});

describe('basic authentication users while TLS is off', () => {
  it('warns at start that they are not used, and lets requests in without credentials', async () => {
    const warn = jest.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
    const pool = new InProcessRunnerPool(10, echoPipeline, { runnerIdleTimeMs: 0 });
    const origin = new Origin(
      {
        general: { name: 'plain' },
        http: { host: '127.0.0.1', port: 0 },
        dataFormat: { format: 'json' },
        tls: { basicAuthenticationUsers: USERS },
      },
      { runners: pool },
    );
    stops.push(async () => {
      warn.mockRestore();
      await origin.destroy();
      await pool.close();
    });
    const url = await origin.start();
    expect(warn.mock.calls).toEqual([
      [
        "Origin 'plain': tls.basicAuthenticationUsers are not used: basic authentication needs tls.useTls.",
        { type: 'OriginWarning', code: 'REST_ORIGIN_AUTH_OPTIONS_IGNORED' },
      ],
    ]);
    expect(origin.describe().authentication).toBe('none');
    const { request } = await import('undici');
    const answer = await request(url, { method: 'POST', body: '{}' });
    await answer.body.text();
    expect(answer.statusCode).toBe(200);
  });
});

describe('secrecy of basic-authentication passwords', () => {
  it('never puts a password in records, events, metrics, warnings, console output or answers', async () => {
    const seen: string[] = [];
    const keep = (value: unknown): void => void seen.push(JSON.stringify(value) ?? String(value));
    const warn = jest.spyOn(process, 'emitWarning').mockImplementation((...args: unknown[]) => keep(args));
    const consoleSpies = (['log', 'info', 'warn', 'error', 'debug'] as const).map((level) =>
      jest.spyOn(console, level).mockImplementation((...args: unknown[]) => keep(args)),
    );
    stops.push(async () => {
      warn.mockRestore();
      for (const spy of consoleSpies) spy.mockRestore();
    });

    const started = await startHttpsOrigin(
      material,
      { general: { name: 'secrets' }, tls: { basicAuthenticationUsers: USERS } },
      {
        pipeline: (batch) => {
          for (const record of batch.records) keep([record.header.attributes(), record.value]);
          new SendResponse().write(batch);
        },
      },
    );
    stops.push(started.stop);
    const { origin, url } = started;
    for (const event of ['request', 'batch', 'rejection', 'stop'] as const) origin.on(event, keep);
    keep(origin.describe());

    const client = agent();
    const attempts = [
      basic('alice', PASSWORD),
      basic('alice', `${PASSWORD}x`),
      basic('mallory', PASSWORD),
      basic('bob', OTHER_PASSWORD),
      `Basic ${PASSWORD}`,
      `${PASSWORD}`,
    ];
    for (const authorization of attempts) {
      const answer = await sendHttps(url, client, { body: '{"x":1}', headers: { authorization } });
      keep([answer.status, answer.headers, answer.json]);
    }
    keep(origin.metrics());
    // A config with a malformed user: the ConfigError names the problem, not the password.
    let refused: unknown;
    try {
      new Origin(
        { dataFormat: { format: 'json' }, tls: { basicAuthenticationUsers: [{ password: PASSWORD }] } },
        { runners: new InProcessRunnerPool(10, echoPipeline, { runnerIdleTimeMs: 0 }) },
      );
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(ConfigError);
    keep([(refused as Error).message, (refused as ConfigError).problems]);
    await started.stop();

    const everything = seen.join('\n');
    expect(everything).toContain('alice');
    expect(everything).toContain('ORIGIN_AUTH_CREDENTIALS_INVALID');
    for (const secret of [PASSWORD, OTHER_PASSWORD, Buffer.from(`alice:${PASSWORD}`).toString('base64')]) {
      expect(everything).not.toContain(secret);
    }
    expect(everything).not.toContain('Pa55-w0rd');
  });
});

describe('mutual TLS with basic authentication', () => {
  it('needs both: the verified certificate and the credentials, and the record carries both', async () => {
    const started = await startHttpsOrigin(
      material,
      {
        tls: {
          requireClientAuthentication: true,
          truststoreType: 'pem',
          truststoreFile: material.files.pemTruststore,
          basicAuthenticationUsers: USERS,
        },
      },
      {
        pipeline: (batch) => {
          records = batch.records;
          new SendResponse().write(batch);
        },
      },
    );
    stops.push(started.stop);
    expect(started.origin.describe()).toMatchObject({ tls: true, mutualTls: true, authentication: 'basic' });
    const trusted = httpsAgent(material, 'trusted');
    stops.push(() => trusted.destroy());
    const noCredentials = await sendHttps(started.url, trusted, { body: '{}' });
    expect(noCredentials.status).toBe(401);
    const both = await sendHttps(started.url, trusted, {
      body: '{}',
      headers: { authorization: basic('alice', PASSWORD) },
    });
    expect(both.status).toBe(200);
    expect(records[0]?.header.getAttribute('tlsClientSubject')).toBe('CN=client one,OU=Clients,O=Test');
    expect(records[0]?.header.getAttribute('authenticatedUser')).toBe('alice');
  });
});

describe('basic authentication on a shared port', () => {
  it('authenticates before it tells that no origin claims the application ID', async () => {
    const port = await freePort();
    for (const id of ['app-a', 'app-b']) {
      await startBasic({ http: { host: '127.0.0.1', port, applicationIds: [id] } });
    }
    const url = `https://127.0.0.1:${port}/`;
    const client = agent();
    const unknownIdNoCredentials = await sendHttps(url, client, {
      body: '{}',
      headers: { 'x-engine-application-id': 'app-c' },
    });
    expect(unknownIdNoCredentials.status).toBe(401);
    expect(unknownIdNoCredentials.headers['www-authenticate']).toBe(
      'Basic realm="orders \\"v2\\"", charset="UTF-8"',
    );
    const unknownIdWrongPassword = await sendHttps(url, client, {
      body: '{}',
      headers: { 'x-engine-application-id': 'app-c', authorization: basic('alice', 'wrong') },
    });
    expect(unknownIdWrongPassword.status).toBe(401);
    const unknownId = await sendHttps(url, client, {
      body: '{}',
      headers: { 'x-engine-application-id': 'app-c', authorization: basic('alice', PASSWORD) },
    });
    expect(unknownId.status).toBe(403);
    expect((unknownId.json as { errorMessage: string }).errorMessage).toMatch(/^ORIGIN_APP_ID_INVALID - /);
    const routed = await sendHttps(url, client, {
      body: '{}',
      headers: { 'x-engine-application-id': 'app-b', authorization: basic('bob', OTHER_PASSWORD) },
    });
    expect(routed.status).toBe(200);
  });
});

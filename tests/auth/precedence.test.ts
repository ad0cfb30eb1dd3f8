import { InProcessRunnerPool, Origin, echoPipeline, type OriginConfigInput } from 'rest-service-origin';
import {
  authenticationMethodOf,
  ignoredAuthenticationOptions,
  type AuthenticationOptions,
} from '../../src/auth/authentication-method';

// Spec §5, row by row: gateway authentication > Kerberos with SPNEGO > TLS with basic authentication > none;
// application IDs in every mode; mutual TLS beside any method. The behaviour of each row over real sockets is in
// basic-auth.test.ts, spnego.test.ts and mutual-tls-basic.test.ts; here the choice itself and what describe() says.

const USERS = [{ user: 'alice', password: 'secret-1' }];

function options(
  http: Partial<AuthenticationOptions['http']>,
  tls: Partial<AuthenticationOptions['tls']>,
): AuthenticationOptions {
  return {
    http: {
      useApiGateway: false,
      requireGatewayAuthentication: false,
      useKerberosWithSpnego: false,
      ...http,
    },
    tls: { useTls: false, basicAuthenticationUsers: [], ...tls },
  };
}

describe('the authentication method by the precedence of spec §5', () => {
  it.each([
    // [row, http, tls, method, ignored options]
    ['nothing configured', {}, {}, 'none', []],
    ['TLS alone', {}, { useTls: true }, 'none', []],
    ['TLS with basic users', {}, { useTls: true, basicAuthenticationUsers: USERS }, 'basic', []],
    [
      'basic users without TLS',
      {},
      { basicAuthenticationUsers: USERS },
      'none',
      ['tls.basicAuthenticationUsers are not used: basic authentication needs tls.useTls'],
    ],
    ['SPNEGO', { useKerberosWithSpnego: true }, {}, 'spnego', []],
    ['SPNEGO with TLS', { useKerberosWithSpnego: true }, { useTls: true }, 'spnego', []],
    [
      'SPNEGO with TLS and basic users',
      { useKerberosWithSpnego: true },
      { useTls: true, basicAuthenticationUsers: USERS },
      'spnego',
      ['tls.basicAuthenticationUsers are ignored: Kerberos with SPNEGO is on'],
    ],
    [
      'gateway mode without gateway authentication, with TLS and basic users',
      { useApiGateway: true },
      { useTls: true, basicAuthenticationUsers: USERS },
      'basic',
      [],
    ],
    [
      'gateway mode without gateway authentication, with SPNEGO',
      { useApiGateway: true, useKerberosWithSpnego: true },
      {},
      'spnego',
      [],
    ],
    [
      'gateway authentication',
      { useApiGateway: true, requireGatewayAuthentication: true },
      {},
      'gateway',
      [],
    ],
    [
      'gateway authentication with SPNEGO, TLS and basic users',
      { useApiGateway: true, requireGatewayAuthentication: true, useKerberosWithSpnego: true },
      { useTls: true, basicAuthenticationUsers: USERS },
      'gateway',
      [
        'http.useKerberosWithSpnego is ignored: the gateway authenticates the user of every request',
        'tls.basicAuthenticationUsers are ignored: the gateway authenticates the user of every request',
      ],
    ],
    [
      'Require Gateway Authentication outside gateway mode',
      { requireGatewayAuthentication: true },
      { useTls: true, basicAuthenticationUsers: USERS },
      'basic',
      [],
    ],
  ] as const)('%s', (_row, http, tls, method, ignored) => {
    const config = options(http, tls);
    expect(authenticationMethodOf(config)).toBe(method);
    expect(ignoredAuthenticationOptions(config)).toEqual(ignored);
  });
});

describe('origin.describe()', () => {
  const pool = new InProcessRunnerPool(10, echoPipeline, { runnerIdleTimeMs: 0 });
  let warn: jest.SpyInstance;
  beforeEach(() => (warn = jest.spyOn(process, 'emitWarning').mockImplementation(() => undefined)));
  afterEach(() => warn.mockRestore());
  afterAll(() => pool.close());

  const tls = { useTls: true, keystoreType: 'pem', keystoreFile: '/unused/keystore.pem' } as const;
  const spnego = {
    useKerberosWithSpnego: true,
    kerberosRealm: 'EXAMPLE.COM',
    httpSpnegoPrincipal: 'HTTP/www.example.com@EXAMPLE.COM',
    keytabFile: '/etc/http.keytab',
  };

  it.each([
    ['plain HTTP', {}, { tls: false, mutualTls: false, authentication: 'none', applicationIds: 'none' }],
    [
      'TLS with basic users and application IDs in the header',
      { tls: { ...tls, basicAuthenticationUsers: USERS }, http: { applicationIds: ['a'] } },
      { tls: true, mutualTls: false, authentication: 'basic', applicationIds: 'header' },
    ],
    [
      'mutual TLS with basic users, application IDs in the URL too',
      {
        tls: {
          ...tls,
          requireClientAuthentication: true,
          truststoreType: 'pem',
          truststoreFile: '/unused/ca.pem',
          basicAuthenticationUsers: USERS,
        },
        http: { applicationIds: ['a'], applicationIdInUrl: true },
      },
      { tls: true, mutualTls: true, authentication: 'basic', applicationIds: 'headerOrUrl' },
    ],
    [
      'SPNEGO over TLS, basic users ignored',
      { http: spnego, tls: { ...tls, basicAuthenticationUsers: USERS } },
      {
        tls: true,
        mutualTls: false,
        authentication: 'spnego',
        applicationIds: 'none',
        ignored: ['tls.basicAuthenticationUsers are ignored: Kerberos with SPNEGO is on'],
      },
    ],
  ] as const)('%s', (_row, config, expected) => {
    const origin = new Origin(
      { ...(config as Partial<OriginConfigInput>), dataFormat: { format: 'json' } },
      { runners: pool },
    );
    expect(origin.describe()).toEqual({ endpoint: null, ignored: [], ...expected });
  });

  it('gives the endpoint once listening, and carries the same description on the start event', async () => {
    const origin = new Origin(
      { http: { host: '127.0.0.1', port: 0 }, dataFormat: { format: 'json' } },
      { runners: pool },
    );
    const started = new Promise((resolve) => origin.once('start', resolve));
    const url = await origin.start();
    try {
      expect(origin.describe()).toEqual({
        endpoint: url,
        tls: false,
        mutualTls: false,
        authentication: 'none',
        applicationIds: 'none',
        ignored: [],
      });
      expect(await started).toEqual({ url, description: origin.describe() });
    } finally {
      await origin.destroy();
    }
  });

  it('holds no secret: the description of a config full of passwords names none of them', () => {
    const origin = new Origin(
      {
        http: spnego,
        tls: { ...tls, keystorePassword: 'ks-secret', basicAuthenticationUsers: USERS },
        dataFormat: { format: 'json' },
      },
      { runners: pool },
    );
    const text = JSON.stringify(origin.describe()) + JSON.stringify(warn.mock.calls);
    for (const secret of ['secret-1', 'ks-secret', '/etc/http.keytab']) expect(text).not.toContain(secret);
  });
});

import { InProcessRunnerPool, Origin, echoPipeline, isOriginError } from 'rest-service-origin';

// The `kerberos` addon is an optional dependency: where it is not installed (or libkrb5 is missing), an origin
// with SPNEGO fails to start with an error that names the package and the library. The addon is replaced here by a
// module that cannot load, as on such a machine; an origin without SPNEGO never loads it.
jest.mock('kerberos', () => {
  throw new Error("Cannot find module 'kerberos'");
});

it('fails start() with ORIGIN_AUTH_KERBEROS_UNAVAILABLE naming the package and libkrb5', async () => {
  const pool = new InProcessRunnerPool(10, echoPipeline, { runnerIdleTimeMs: 0 });
  const origin = new Origin(
    {
      http: {
        host: '127.0.0.1',
        port: 0,
        useKerberosWithSpnego: true,
        kerberosRealm: 'EXAMPLE.COM',
        httpSpnegoPrincipal: 'HTTP/www.example.com@EXAMPLE.COM',
        keytabFile: '/etc/http.keytab',
      },
      dataFormat: { format: 'json' },
    },
    { runners: pool },
  );
  const failure = await origin.start().then(
    () => undefined,
    (error: unknown) => error,
  );
  await pool.close();
  expect(isOriginError(failure, 'ORIGIN_AUTH_KERBEROS_UNAVAILABLE')).toBe(true);
  expect((failure as Error).message).toContain("optional package 'kerberos'");
  expect((failure as Error).message).toContain('libkrb5');
  expect((failure as Error).message).toContain("Cannot find module 'kerberos'");
  expect(origin.state).toBe('failed');
});

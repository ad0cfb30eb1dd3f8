import { InProcessRunnerPool, Origin, echoPipeline, isOriginError, resolveConfig } from 'rest-service-origin';
import { defaultRegistry } from '../../src/formats/built-in';
import { holdProcessKeytab, releaseProcessKeytab } from '../../src/auth/process-keytab';

// What SPNEGO refuses before any request: a principal of the wrong form, an unreadable keytab, two keytabs in
// one process. (The addon is real here; kerberos-missing.test.ts replaces it with one that cannot load.)

const spnego = {
  useKerberosWithSpnego: true,
  kerberosRealm: 'EXAMPLE.COM',
  httpSpnegoPrincipal: 'HTTP/www.example.com@EXAMPLE.COM',
  keytabFile: '/nonexistent/http.keytab',
};

describe('SPNEGO configuration', () => {
  it.each([
    [
      'HTTP@www.example.com',
      "'HTTP@www.example.com' is not of the form HTTP/<fully qualified host name>@<REALM>",
    ],
    [
      'host/www.example.com@EXAMPLE.COM',
      "'host/www.example.com@EXAMPLE.COM' is not of the form HTTP/<fully qualified host name>@<REALM>",
    ],
    [
      'HTTP/www.example.com',
      "'HTTP/www.example.com' is not of the form HTTP/<fully qualified host name>@<REALM>",
    ],
    [
      'HTTP/www.example.com@OTHER.COM',
      "the realm of 'HTTP/www.example.com@OTHER.COM' is not kerberosRealm 'EXAMPLE.COM'",
    ],
  ])('refuses httpSpnegoPrincipal %s', (principal, message) => {
    expect(() =>
      resolveConfig(
        { http: { ...spnego, httpSpnegoPrincipal: principal }, dataFormat: { format: 'json' } },
        defaultRegistry,
      ),
    ).toThrow(expect.objectContaining({ problems: [{ path: '/http/httpSpnegoPrincipal', message }] }));
  });

  it('accepts HTTP/<fqdn>@<kerberosRealm>', () => {
    expect(
      resolveConfig({ http: spnego, dataFormat: { format: 'json' } }, defaultRegistry).http,
    ).toMatchObject(spnego);
  });
});

describe('SPNEGO at start()', () => {
  const pool = new InProcessRunnerPool(10, echoPipeline, { runnerIdleTimeMs: 0 });
  afterAll(() => pool.close());

  it('fails with ORIGIN_AUTH_KEYTAB_UNREADABLE and leaves the origin failed and KRB5_KTNAME untouched', async () => {
    const before = process.env.KRB5_KTNAME;
    const origin = new Origin(
      { http: { ...spnego, host: '127.0.0.1', port: 0 }, dataFormat: { format: 'json' } },
      { runners: pool },
    );
    const failure = await origin.start().then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(isOriginError(failure, 'ORIGIN_AUTH_KEYTAB_UNREADABLE')).toBe(true);
    expect((failure as Error).message).toMatch(
      /^http\.keytabFile '\/nonexistent\/http\.keytab' cannot be read: ENOENT/,
    );
    expect(origin.state).toBe('failed');
    expect(process.env.KRB5_KTNAME).toBe(before);
  });

  it('resolves a relative keytabFile against resourcesDirectory', async () => {
    const origin = new Origin(
      {
        general: { resourcesDirectory: '/nonexistent/resources' },
        http: { ...spnego, keytabFile: 'krb/http.keytab', host: '127.0.0.1', port: 0 },
        dataFormat: { format: 'json' },
      },
      { runners: pool },
    );
    await expect(origin.start()).rejects.toThrow(
      "http.keytabFile '/nonexistent/resources/krb/http.keytab' cannot be read",
    );
  });
});

describe('the process keytab', () => {
  const before = process.env.KRB5_KTNAME;
  afterEach(() => {
    if (before === undefined) delete process.env.KRB5_KTNAME;
    else process.env.KRB5_KTNAME = before;
  });

  it('is shared by holders of one keytab, refused to another, and put back after the last release', () => {
    process.env.KRB5_KTNAME = 'FILE:/etc/host.keytab';
    holdProcessKeytab('/srv/a.keytab');
    holdProcessKeytab('/srv/a.keytab');
    expect(process.env.KRB5_KTNAME).toBe('FILE:/srv/a.keytab');
    let conflict: unknown;
    try {
      holdProcessKeytab('/srv/b.keytab');
    } catch (error) {
      conflict = error;
    }
    expect(isOriginError(conflict, 'ORIGIN_AUTH_KEYTAB_CONFLICT')).toBe(true);
    expect((conflict as Error).message).toContain("'/srv/b.keytab' differs from the keytab '/srv/a.keytab'");
    releaseProcessKeytab('/srv/a.keytab');
    expect(process.env.KRB5_KTNAME).toBe('FILE:/srv/a.keytab');
    releaseProcessKeytab('/srv/a.keytab');
    expect(process.env.KRB5_KTNAME).toBe('FILE:/etc/host.keytab');
    holdProcessKeytab('/srv/b.keytab');
    expect(process.env.KRB5_KTNAME).toBe('FILE:/srv/b.keytab');
    releaseProcessKeytab('/srv/b.keytab');
  });
});

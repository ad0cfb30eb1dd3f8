import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { makeTlsMaterial } from '../tls/tls-material';
import { startKdc, type KerberosClientEnv, type TestKdc } from './test-kdc';

// Kerberos with SPNEGO against a real MIT KDC (krb5kdc, kdb5_util, kadmin.local) and real clients (kinit, curl
// --negotiate). The origin runs in a child process: GSSAPI reads KRB5_CONFIG and KRB5_KTNAME from the process
// environment, which a jest worker cannot set for native code.

const root = join(__dirname, '..', '..');
const script = join(__dirname, 'spnego-origin-process.ts');

interface OriginProcess {
  readonly child: ChildProcess;
  readonly lines: Array<Record<string, unknown>>;
  /** The `start` (or `failed`) line. */
  readonly started: Record<string, unknown>;
  /** The `http://localhost:<port>/` URL (the host name the service principal names). */
  readonly url: string;
}

let kdc: TestKdc;
const children: ChildProcess[] = [];
/** One origin with the default SPNEGO config, shared by the tests that need nothing else (each child takes seconds). */
let shared: OriginProcess | undefined;

async function sharedOrigin(): Promise<OriginProcess> {
  shared ??= await startOriginProcess(spnegoConfig(), false);
  return shared;
}

beforeAll(async () => {
  kdc = await startKdc();
}, 60_000);

afterEach(async () => {
  for (const child of children.splice(0)) await stopChild(child);
});

afterAll(async () => {
  if (shared) await stopChild(shared.child);
  await kdc?.stop();
});

function spnegoConfig(http: Record<string, unknown> = {}, extra: Record<string, unknown> = {}): object {
  return {
    general: { name: 'kerberized' },
    http: {
      host: '127.0.0.1',
      port: 0,
      useKerberosWithSpnego: true,
      kerberosRealm: kdc.realm,
      httpSpnegoPrincipal: kdc.servicePrincipal,
      keytabFile: kdc.serviceKeytab,
      ...http,
    },
    dataFormat: { format: 'json' },
    ...extra,
  };
}

async function startOriginProcess(config: object, stopAfterTest = true): Promise<OriginProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', script, JSON.stringify(config)], {
    cwd: root,
    env: { ...process.env, KRB5_CONFIG: kdc.serverConfig, KRB5_KTNAME: 'FILE:/nonexistent/host.keytab' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  if (stopAfterTest) children.push(child);
  const lines: Array<Record<string, unknown>> = [];
  let stderr = '';
  let pending = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdout!.on('data', (chunk: Buffer) => {
    pending += chunk.toString();
    let newline: number;
    while ((newline = pending.indexOf('\n')) >= 0) {
      lines.push(JSON.parse(pending.slice(0, newline)) as Record<string, unknown>);
      pending = pending.slice(newline + 1);
    }
  });
  for (;;) {
    const started = lines.find((line) => line['event'] === 'start' || line['event'] === 'failed');
    if (started) {
      const port = started['url'] === undefined ? 0 : new URL(String(started['url'])).port;
      const scheme = started['url'] === undefined ? 'http:' : new URL(String(started['url'])).protocol;
      return { child, lines, started, url: `${scheme}//localhost:${port}/` };
    }
    if (child.exitCode !== null) throw new Error(`the origin process exited: ${stderr}`);
    await Promise.race([once(child.stdout!, 'data'), once(child, 'exit')]);
  }
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  await exited;
}

interface CurlAnswer {
  status: number;
  headers: string;
  body: Record<string, unknown>;
}

/** Runs curl against the origin with a JSON body; `args` add options (`--negotiate -u :`). */
function curl(
  url: string,
  args: readonly string[],
  env: Partial<KerberosClientEnv> = {},
): Promise<CurlAnswer> {
  return new Promise((resolve, reject) => {
    execFile(
      'curl',
      [
        '--silent',
        '--show-error',
        '-D',
        '-',
        '-H',
        'Content-Type: application/json',
        '--data-binary',
        '{"a":1}',
        ...args,
        url,
      ],
      { env: { ...process.env, ...env } },
      (error, stdout, stderr) => {
        if (error) return reject(new Error(`curl failed: ${error.message}\n${stderr}`));
        // With --negotiate curl prints the head of the 401 it answered before the final one: keep the last.
        const blocks = stdout.split(/\r\n\r\n/);
        const body = blocks.pop() ?? '';
        const headers = blocks.pop() ?? '';
        const status = Number(/^HTTP\/[\d.]+ (\d{3})/.exec(headers)?.[1]);
        resolve({ status, headers, body: JSON.parse(body) as Record<string, unknown> });
      },
    );
  });
}

function header(answer: CurlAnswer, name: string): string | undefined {
  const line = answer.headers.split('\r\n').find((l) => l.toLowerCase().startsWith(`${name.toLowerCase()}:`));
  return line?.slice(name.length + 1).trim();
}

describe('Kerberos with SPNEGO', () => {
  it('lets kinit + curl --negotiate in, names the principal in the record, and sends the mutual token', async () => {
    const origin = await sharedOrigin();
    expect(origin.started).toMatchObject({
      event: 'start',
      description: { authentication: 'spnego', tls: false, mutualTls: false, applicationIds: 'none' },
      ktname: `FILE:${kdc.serviceKeytab}`,
    });
    const client = await kdc.kinit('alice', kdc.realm);
    const answer = await curl(origin.url, ['--negotiate', '-u', ':'], client);
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({
      httpStatusCode: 200,
      data: [
        {
          a: 1,
          caller: { authenticatedUser: `alice@${kdc.realm}`, authenticationMethod: 'spnego' },
        },
      ],
    });
    expect((answer.body['data'] as Array<{ caller: Record<string, string> }>)[0]!.caller).not.toHaveProperty(
      'Authorization',
    );
    expect(header(answer, 'WWW-Authenticate')).toMatch(/^Negotiate [A-Za-z0-9+/]+=*$/);
  }, 30_000);

  it('lets curl --negotiate in over HTTP/2 (h2c, http.http2) as over HTTP/1.1', async () => {
    const origin = await startOriginProcess(spnegoConfig({ http2: true }));
    const client = await kdc.kinit('alice', kdc.realm);
    const refused = await curl(origin.url, ['--http2-prior-knowledge'], client);
    expect(refused.headers).toMatch(/^HTTP\/2 401/);
    expect(header(refused, 'WWW-Authenticate')).toBe('Negotiate');
    const answer = await curl(origin.url, ['--http2-prior-knowledge', '--negotiate', '-u', ':'], client);
    expect(answer.headers).toMatch(/^HTTP\/2 200/);
    expect(answer.body).toMatchObject({
      data: [{ a: 1, caller: { authenticatedUser: `alice@${kdc.realm}`, authenticationMethod: 'spnego' } }],
    });
  }, 30_000);

  it('answers 401 with WWW-Authenticate: Negotiate to a request without a token', async () => {
    const origin = await sharedOrigin();
    const answer = await curl(origin.url, []);
    expect(answer.status).toBe(401);
    expect(header(answer, 'WWW-Authenticate')).toBe('Negotiate');
    expect(answer.body).toMatchObject({
      httpStatusCode: 401,
      errorMessage: expect.stringMatching(/^ORIGIN_AUTH_CREDENTIALS_MISSING - /),
    });
  }, 30_000);

  it('answers 401 to curl --negotiate without a ticket', async () => {
    const origin = await sharedOrigin();
    const noTicket = { KRB5_CONFIG: kdc.serverConfig, KRB5CCNAME: `FILE:${join(kdc.dir, 'empty-cache')}` };
    const answer = await curl(origin.url, ['--negotiate', '-u', ':'], noTicket);
    expect(answer.status).toBe(401);
    expect(header(answer, 'WWW-Authenticate')).toBe('Negotiate');
  }, 30_000);

  it('answers 401 ORIGIN_AUTH_NEGOTIATE_FAILED to a token GSSAPI refuses', async () => {
    const origin = await sharedOrigin();
    const answer = await curl(origin.url, ['-H', 'Authorization: Negotiate YWJjZGVmZ2hpams=']);
    expect(answer.status).toBe(401);
    expect(header(answer, 'WWW-Authenticate')).toBe('Negotiate');
    expect(answer.body['errorMessage']).toMatch(/^ORIGIN_AUTH_NEGOTIATE_FAILED - /);
  }, 30_000);

  it('refuses a principal of another realm with 403 ORIGIN_AUTH_REALM_REFUSED', async () => {
    const origin = await sharedOrigin();
    const foreign = await kdc.kinit('alice', kdc.otherRealm);
    const answer = await curl(origin.url, ['--negotiate', '-u', ':'], foreign);
    expect(answer.status).toBe(403);
    expect(answer.body['errorMessage']).toBe(
      `ORIGIN_AUTH_REALM_REFUSED - Kerberos principal 'alice@${kdc.otherRealm}' is not of kerberosRealm '${kdc.realm}'.`,
    );
  }, 30_000);

  it('serves concurrent clients, each authenticated on its own GSSAPI context', async () => {
    const origin = await sharedOrigin();
    const client = await kdc.kinit('alice', kdc.realm);
    const answers = await Promise.all(
      Array.from({ length: 4 }, () => curl(origin.url, ['--negotiate', '-u', ':'], client)),
    );
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200]);
  }, 30_000);

  it('refuses a token replayed from an earlier request', async () => {
    const origin = await sharedOrigin();
    const client = await kdc.kinit('alice', kdc.realm);
    const token = await new Promise<string>((resolve, reject) => {
      execFile(
        'curl',
        ['--silent', '--verbose', '--negotiate', '-u', ':', '-o', '/dev/null', origin.url],
        { env: { ...process.env, ...client } },
        (error, _stdout, stderr) => {
          const sent = /^> Authorization: Negotiate (\S+)/m.exec(stderr)?.[1];
          if (error || sent === undefined) reject(new Error(`no token sent: ${stderr}`));
          else resolve(sent);
        },
      );
    });
    const replayed = await curl(origin.url, ['-H', `Authorization: Negotiate ${token}`]);
    expect(replayed.status).toBe(401);
    expect(replayed.body['errorMessage']).toMatch(/^ORIGIN_AUTH_NEGOTIATE_FAILED - .*replay/i);
  }, 30_000);

  it('checks the application ID after authentication', async () => {
    const origin = await startOriginProcess(spnegoConfig({ applicationIds: ['app-7'] }));
    const client = await kdc.kinit('alice', kdc.realm);
    const wrongId = await curl(
      origin.url,
      ['--negotiate', '-u', ':', '-H', 'X-ENGINE-APPLICATION-ID: nope'],
      client,
    );
    expect(wrongId.status).toBe(403);
    expect(wrongId.body['errorMessage']).toMatch(/^ORIGIN_APP_ID_INVALID - /);
    const admitted = await curl(
      origin.url,
      ['--negotiate', '-u', ':', '-H', 'X-ENGINE-APPLICATION-ID: app-7'],
      client,
    );
    expect(admitted.status).toBe(200);
  }, 30_000);

  it('over TLS ignores the basic-authentication users: valid basic credentials get 401 Negotiate', async () => {
    const material = makeTlsMaterial();
    try {
      const origin = await startOriginProcess(
        spnegoConfig(
          {},
          {
            general: { name: 'kerberized', resourcesDirectory: material.dir },
            tls: {
              useTls: true,
              keystoreType: 'pem',
              keystoreFile: material.files.pemKeystore,
              basicAuthenticationUsers: [{ user: 'alice', password: 'basic-secret' }],
            },
          },
        ),
      );
      expect(origin.started).toMatchObject({
        description: {
          tls: true,
          authentication: 'spnego',
          ignored: ['tls.basicAuthenticationUsers are ignored: Kerberos with SPNEGO is on'],
        },
      });
      const cacert = ['--cacert', material.path('ca.pem')];
      const basic = await curl(origin.url, [...cacert, '-u', 'alice:basic-secret']);
      expect(basic.status).toBe(401);
      expect(header(basic, 'WWW-Authenticate')).toBe('Negotiate');
      const client = await kdc.kinit('alice', kdc.realm);
      const negotiated = await curl(origin.url, [...cacert, '--negotiate', '-u', ':'], client);
      expect(negotiated.status).toBe(200);
    } finally {
      material.remove();
    }
  }, 60_000);

  it('puts KRB5_KTNAME back as it was when the origin closes', async () => {
    const origin = await startOriginProcess(spnegoConfig());
    const closed = new Promise<Record<string, unknown>>((resolve) => {
      origin.child.stdout!.on('data', () => {
        const line = origin.lines.find((l) => l['event'] === 'closed');
        if (line) resolve(line);
      });
    });
    origin.child.kill('SIGTERM');
    expect(await closed).toEqual({ event: 'closed', ktname: 'FILE:/nonexistent/host.keytab' });
  }, 30_000);

  it('fails start() with ORIGIN_AUTH_SPNEGO_UNUSABLE when the keytab lacks the principal', async () => {
    const origin = await startOriginProcess(
      spnegoConfig({ httpSpnegoPrincipal: `HTTP/elsewhere.test@${kdc.realm}` }),
    );
    expect(origin.started).toMatchObject({ event: 'failed', code: 'ORIGIN_AUTH_SPNEGO_UNUSABLE' });
    expect(String(origin.started['message'])).toContain(`HTTP/elsewhere.test@${kdc.realm}`);
  }, 30_000);
});

import { curlHttps, httpsAgent, sendHttps, startHttpsOrigin } from '../tls/https-client';
import { tlsTestFile } from '../tls/tls-material';

const USERS = [
  { user: 'alice', password: 'alice-secret-4b1d' },
  { user: 'bob', password: 'bob-secret-77e0' },
];

const suite = tlsTestFile();

function basic(user: string, password: string): string {
  return `Basic ${Buffer.from(`${user}:${password}`, 'utf8').toString('base64')}`;
}

describe('http.rateLimits by authenticated user (basic authentication over TLS)', () => {
  it('limits each user on its own, and refuses a wrong password before the limit counts it', async () => {
    const started = await startHttpsOrigin(suite.material, {
      http: { maxConcurrentRequests: 4, rateLimits: [{ key: 'user', requestsPerSecond: 0.1, burst: 2 }] },
      tls: { basicAuthenticationUsers: USERS },
    });
    suite.stops.push(started.stop);
    const agent = httpsAgent(suite.material);
    suite.stops.push(() => agent.destroy());
    const as = async (user: string, password: string): Promise<Awaited<ReturnType<typeof sendHttps>>> =>
      sendHttps(started.url, agent, { body: '{"a":1}', headers: { authorization: basic(user, password) } });

    // A wrong password is a 401 from authentication, which comes first: it spends none of alice's quota.
    expect((await as('alice', 'wrong')).status).toBe(401);
    const alice = [await as('alice', USERS[0]!.password), await as('alice', USERS[0]!.password)];
    const refused = await as('alice', USERS[0]!.password);
    const bob = [await as('bob', USERS[1]!.password), await as('bob', USERS[1]!.password)];

    expect(alice.map((answer) => answer.status)).toEqual([200, 200]);
    expect(refused.status).toBe(429);
    expect(refused.headers['ratelimit-policy']).toBe('"user";q=2;w=20');
    expect(refused.headers['ratelimit']).toMatch(/^"user";r=0;t=\d+$/);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(bob.map((answer) => answer.status)).toEqual([200, 200]);
    expect(started.origin.metrics().rateLimitedByKey).toEqual({
      applicationId: 0,
      user: 1,
      clientAddress: 0,
    });
  });

  it('answers curl with the 429 and its headers, as docs/rate-limits.md shows', async () => {
    const started = await startHttpsOrigin(suite.material, {
      http: { maxConcurrentRequests: 4, rateLimits: [{ key: 'user', requestsPerSecond: 0.1, burst: 1 }] },
      tls: { basicAuthenticationUsers: USERS },
    });
    suite.stops.push(started.stop);
    const curl = (): ReturnType<typeof curlHttps> =>
      curlHttps(started.url, suite.material, {
        body: '{"a":1}',
        extraArgs: ['--include', '--user', `alice:${USERS[0]!.password}`],
      });
    expect((await curl()).stdout).toMatch(/\n200$/);
    const refused = await curl();
    expect(refused.stdout).toMatch(/^HTTP\/1\.1 429 Too Many Requests\r$/m);
    expect(refused.stdout).toMatch(/^Retry-After: \d+\r$/m);
    expect(refused.stdout).toMatch(/^RateLimit-Policy: "user";q=1;w=10\r$/m);
    expect(refused.stdout).toMatch(/^RateLimit: "user";r=0;t=\d+\r$/m);
    expect(refused.stdout).toMatch(/\n429$/);
  });
});

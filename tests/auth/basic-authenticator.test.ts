import fc from 'fast-check';
import { BasicAuthenticator } from '../../src/auth/basic-authenticator';

// The authenticator alone (no socket): exactly the configured pairs get in, whatever the characters, and each
// gets in as its own user. The request path around it is tested over HTTPS in basic-auth.test.ts.

const header = (user: string, password: string): string =>
  `Basic ${Buffer.from(`${user}:${password}`, 'utf8').toString('base64')}`;

// Names without a colon (RFC 7617), passwords with any character, both non-empty, in full Unicode.
const name = fc.string({ unit: 'binary', minLength: 1, maxLength: 12 }).filter((s) => !s.includes(':'));
const password = fc.string({ unit: 'binary', minLength: 1, maxLength: 12 });
const users = fc.uniqueArray(fc.record({ user: name, password }), {
  minLength: 1,
  maxLength: 5,
  selector: (u) => u.user,
});

it('lets in exactly the configured name and password pairs, each as its own user', () => {
  fc.assert(
    fc.property(users, name, password, fc.nat(), (configured, user, secret, pick) => {
      const authenticator = new BasicAuthenticator(configured, 'realm');
      const chosen = configured[pick % configured.length]!;
      const own = authenticator.authenticate({
        headers: { authorization: header(chosen.user, chosen.password) },
      });
      expect(own).toMatchObject({ ok: true, identity: { authenticatedUser: chosen.user } });
      const listed = configured.some((u) => u.user === user && u.password === secret);
      const other = authenticator.authenticate({ headers: { authorization: header(user, secret) } });
      expect(other.ok).toBe(listed);
    }),
  );
});

it('refuses a known password under another user, and a known user with a prefix or extension of the password', () => {
  const authenticator = new BasicAuthenticator(
    [
      { user: 'alice', password: 'wonderland' },
      { user: 'bob', password: 'builder' },
    ],
    'realm',
  );
  for (const [user, secret] of [
    ['bob', 'wonderland'],
    ['alice', 'wonder'],
    ['alice', 'wonderlands'],
    ['alic', 'ewonderland'],
    ['alice:wonderland', ''],
  ] as const) {
    expect(authenticator.authenticate({ headers: { authorization: header(user, secret) } })).toMatchObject({
      ok: false,
      error: { code: 'ORIGIN_AUTH_CREDENTIALS_INVALID' },
    });
  }
});

it('escapes the realm of the challenge and replaces what a header cannot carry', () => {
  const authenticator = new BasicAuthenticator([{ user: 'a', password: 'b' }], 'a "b" \\ c\nd €');
  expect(authenticator.authenticate({ headers: {} })).toMatchObject({
    ok: false,
    challenge: 'Basic realm="a \\"b\\" \\\\ c?d ?", charset="UTF-8"',
  });
});

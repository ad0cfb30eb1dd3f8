import { once } from 'node:events';
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { ConfigError, FileRealmAuthenticator, hashPassword, isOriginError } from 'rest-service-origin';
import { fileRealmFromGatewayFile } from '../../src/gateway/file-realm-authenticator';

// Cheap parameters keep the tests light; the default parameters are checked once below.
const CHEAP = { N: 1024, r: 8, p: 1 };
const ALICE_PASSWORD = 'wonder:land-ä-81f2';
const BOB_PASSWORD = 'builder-77c0';

let dir: string;
let aliceHash: string;
let bobHash: string;
const servers: Server[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'file-realm-'));
  aliceHash = await hashPassword(ALICE_PASSWORD, CHEAP);
  bobHash = await hashPassword(BOB_PASSWORD, CHEAP);
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.close();
    await once(server, 'close');
  }
});

function basic(user: string, password: string): string {
  return `Basic ${Buffer.from(`${user}:${password}`, 'utf8').toString('base64')}`;
}

/** A server that answers 200 with the user, or 401 with the challenge, as the gateway will. */
async function serve(realm: FileRealmAuthenticator): Promise<string> {
  const server = createServer((req, res) => {
    realm.authenticate(req).then(
      (outcome) => {
        if (outcome.ok)
          res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(outcome.user));
        else res.writeHead(401, { 'www-authenticate': outcome.challenge }).end(outcome.reason);
      },
      () => res.writeHead(500).end(),
    );
  });
  servers.push(server);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
}

async function call(url: string, authorization?: string) {
  const response = await request(url, { headers: authorization === undefined ? {} : { authorization } });
  return {
    status: response.statusCode,
    challenge: response.headers['www-authenticate'],
    body: await response.body.text(),
  };
}

function users() {
  return [
    { user: 'alice', hash: aliceHash, roles: ['admin'] },
    { user: 'bob', hash: bobHash, roles: ['viewer', 'manager'] },
  ];
}

describe('file realm over HTTP', () => {
  let url: string;
  beforeEach(async () => {
    url = await serve(await FileRealmAuthenticator.load({ users: users() }, { realm: 'orders "gw"' }));
  });

  it('lets a user with the right password in, with the roles of the users file', async () => {
    expect(await call(url, basic('alice', ALICE_PASSWORD))).toEqual({
      status: 200,
      challenge: undefined,
      body: JSON.stringify({ name: 'alice', roles: ['admin'] }),
    });
    const bob = await call(url, basic('bob', BOB_PASSWORD));
    expect(JSON.parse(bob.body)).toEqual({ name: 'bob', roles: ['viewer', 'manager'] });
  });

  it('answers a repeated good request from the cache with the same user', async () => {
    for (let i = 0; i < 3; i++) expect((await call(url, basic('bob', BOB_PASSWORD))).status).toBe(200);
  });

  it('refuses a wrong password, an unknown user and another user password alike', async () => {
    const expected = {
      status: 401,
      challenge: 'Basic realm="orders \\"gw\\"", charset="UTF-8"',
      body: 'invalid',
    };
    expect(await call(url, basic('alice', 'wrong'))).toEqual(expected);
    expect(await call(url, basic('mallory', ALICE_PASSWORD))).toEqual(expected);
    expect(await call(url, basic('alice', BOB_PASSWORD))).toEqual(expected);
    expect(await call(url, basic('alice', ''))).toEqual(expected);
    // A good password after a bad one is still let in: no state is kept for failures.
    expect((await call(url, basic('alice', ALICE_PASSWORD))).status).toBe(200);
  });

  it('tells missing credentials from malformed ones', async () => {
    expect(await call(url)).toMatchObject({ status: 401, body: 'missing' });
    expect(await call(url, 'Bearer abc')).toMatchObject({ status: 401, body: 'missing' });
    expect(await call(url, 'Basic bm9jb2xvbg==')).toMatchObject({ status: 401, body: 'invalid' });
    expect(await call(url, 'Basic !!!')).toMatchObject({ status: 401, body: 'invalid' });
  });
});

describe('users file', () => {
  it('reads a YAML users file relative to the resources directory', async () => {
    writeFileSync(
      join(dir, 'users.yaml'),
      `users:\n  - user: alice\n    hash: "${aliceHash}"\n    roles: [admin]\n  - user: bob\n    hash: "${bobHash}"\n`,
    );
    const realm = await FileRealmAuthenticator.load({ usersFile: 'users.yaml', resourcesDirectory: dir });
    expect(realm.users).toEqual(['alice', 'bob']);
    const url = await serve(realm);
    expect(JSON.parse((await call(url, basic('bob', BOB_PASSWORD))).body)).toEqual({
      name: 'bob',
      roles: [],
    });
    expect((await call(url)).challenge).toBe('Basic realm="gateway", charset="UTF-8"');
  });

  it('reads a JSON list given by an absolute path', async () => {
    const path = join(dir, 'users.json');
    writeFileSync(path, JSON.stringify(users()));
    const url = await serve(await FileRealmAuthenticator.load({ usersFile: path }));
    expect((await call(url, basic('alice', ALICE_PASSWORD))).status).toBe(200);
  });

  it('refuses a relative path that leaves the resources directory, also through a symbolic link', async () => {
    const resources = mkdtempSync(join(dir, 'resources-'));
    writeFileSync(join(dir, 'outside.json'), JSON.stringify(users()));
    symlinkSync(join(dir, 'outside.json'), join(resources, 'link.json'));
    for (const usersFile of ['../outside.json', 'link.json', 'absent.json']) {
      const error: unknown = await FileRealmAuthenticator.load({
        usersFile,
        resourcesDirectory: resources,
      }).catch((e: unknown) => e);
      expect(isOriginError(error, 'ORIGIN_GATEWAY_AUTH_USERS_UNREADABLE')).toBe(true);
      expect((error as Error).message).toContain(usersFile);
    }
  });

  it.each([
    ['not a list', { users: 'alice' }, 'expected a list'],
    ['an empty name', [{ user: '', hash: 'x' }], "'user' must be"],
    ['a colon in a name', [{ user: 'a:b', hash: 'x' }], "'user' must be"],
    ['a malformed hash', [{ user: 'alice', hash: 'plain-text-password' }], 'not of the form'],
    [
      'a duplicate user',
      [
        { user: 'a', hash: 'H' },
        { user: 'a', hash: 'H' },
      ],
      'appears twice',
    ],
    ['roles that are not strings', [{ user: 'a', hash: 'H', roles: [1] }], "'roles' must be"],
    ['N not a power of two', [{ user: 'a', hash: 'scrypt$1000$8$1$SALT$KEY' }], 'power of two'],
    ['N too large', [{ user: 'a', hash: 'scrypt$2097152$8$1$SALT$KEY' }], 'power of two'],
    ['too much memory', [{ user: 'a', hash: 'scrypt$1048576$32$1$SALT$KEY' }], '256 MiB'],
    ['p too large', [{ user: 'a', hash: 'scrypt$1024$8$99$SALT$KEY' }], 'scrypt p'],
  ])('refuses %s with a typed error that does not echo the hash', async (_, list, detail) => {
    const fill = (text: string) =>
      text.replace('H', aliceHash).replace('SALT', 'A'.repeat(22)).replace('KEY', 'B'.repeat(43));
    const path = join(dir, 'bad.json');
    writeFileSync(path, fill(JSON.stringify(list)));
    const error: unknown = await FileRealmAuthenticator.load({ usersFile: path }).catch((e: unknown) => e);
    expect(isOriginError(error, 'ORIGIN_GATEWAY_AUTH_USERS_INVALID')).toBe(true);
    expect((error as Error).message).toContain(detail);
    expect((error as Error).message).not.toContain(aliceHash);
  });

  it('refuses a file that is not YAML or JSON', async () => {
    const path = join(dir, 'broken.yaml');
    writeFileSync(path, 'users: [ {');
    await expect(FileRealmAuthenticator.load({ usersFile: path })).rejects.toMatchObject({
      code: 'ORIGIN_GATEWAY_AUTH_USERS_INVALID',
    });
  });
});

describe('hashPassword', () => {
  it('uses the default parameters with a fresh salt every time', async () => {
    const [one, two] = await Promise.all([hashPassword('same'), hashPassword('same')]);
    expect(one).toMatch(/^scrypt\$32768\$8\$1\$[\w-]{22}\$[\w-]{43}$/);
    expect(one).not.toBe(two);
    const url = await serve(await FileRealmAuthenticator.load({ users: [{ user: 'u', hash: one }] }));
    expect((await call(url, basic('u', 'same'))).status).toBe(200);
  });

  it('refuses parameters outside the bounds', async () => {
    await expect(hashPassword('x', { N: 3, r: 8, p: 1 })).rejects.toThrow('power of two');
  });
});

describe('from a gateway file (kind "file")', () => {
  it('reads usersFile relative to the gateway file directory, or inline users, with a realm', async () => {
    writeFileSync(join(dir, 'gw-users.json'), JSON.stringify({ users: users() }));
    const fromFile = fileRealmFromGatewayFile({ usersFile: 'gw-users.json', realm: 'gw' }, dir);
    const url = await serve(fromFile);
    expect(JSON.parse((await call(url, basic('alice', ALICE_PASSWORD))).body)).toEqual({
      name: 'alice',
      roles: ['admin'],
    });
    expect((await call(url)).challenge).toBe('Basic realm="gw", charset="UTF-8"');
    expect(fileRealmFromGatewayFile({ users: users() }, dir).users).toEqual(['alice', 'bob']);
  });

  it.each([
    [{}, '', 'exactly one of'],
    [{ usersFile: 'a', users: [] }, '', 'exactly one of'],
    [{ usersFile: 'absent.json' }, '/usersFile', 'cannot be read'],
    [{ users: [{ user: 'a', hash: 'x' }] }, '/users', 'not of the form'],
    [{ users: [], realm: 3 }, '/realm', 'non-empty string'],
    [{ users: [], colour: 'red' }, '/colour', 'is not an option'],
  ])('refuses %j with a ConfigError at %j', (options, path, message) => {
    let error: unknown;
    try {
      fileRealmFromGatewayFile(options, dir);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).problems).toEqual([{ path, message: expect.stringContaining(message) }]);
  });
});

import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';

import { request } from 'undici';

import { requestAttributes, type RequestAttributeOptions } from '../../src/http/request-attributes';

let server: Server;
let port: number;
let options: RequestAttributeOptions = { copyAuthorizationHeaders: false };

beforeAll(async () => {
  server = createServer((req, res) => {
    const attributes = requestAttributes(req, options);
    res.setHeader('content-type', 'application/json');
    res.end(
      JSON.stringify({ attributes, keys: Object.keys(attributes), frozen: Object.isFrozen(attributes) }),
    );
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  server.closeAllConnections();
  server.close();
  await once(server, 'close');
});

beforeEach(() => {
  options = { copyAuthorizationHeaders: false };
});

interface Answer {
  attributes: Record<string, string>;
  keys: string[];
  frozen: boolean;
}

/** Sends `head` byte for byte (request line and headers, without the blank line) and reads the JSON answer. */
async function rawRequest(head: string): Promise<Answer> {
  const socket = connect(port, '127.0.0.1');
  await once(socket, 'connect');
  socket.end(`${head}\r\nConnection: close\r\n\r\n`);
  const parts: Buffer[] = [];
  for await (const part of socket) parts.push(part as Buffer);
  const text = Buffer.concat(parts).toString('utf8');
  return JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4)) as Answer;
}

describe('requestAttributes', () => {
  it('gives method, path, queryString and remoteHost first, then the headers, to a real client', async () => {
    const response = await request(`http://127.0.0.1:${port}/orders/42?status=open&limit=10`, {
      method: 'DELETE',
      headers: { 'X-Trace-Id': 'abc' },
    });
    const { attributes, keys, frozen } = (await response.body.json()) as Answer;
    expect(attributes).toMatchObject({
      method: 'DELETE',
      path: '/orders/42',
      queryString: 'status=open&limit=10',
      remoteHost: '127.0.0.1',
      'X-Trace-Id': 'abc',
    });
    expect(keys.slice(0, 4)).toEqual(['method', 'path', 'queryString', 'remoteHost']);
    expect(frozen).toBe(true);
  });

  it('keeps the path and query string raw, as sent', async () => {
    const { attributes } = await rawRequest('GET /a%20b/c%2Fd?q=%41+b&x=1?2 HTTP/1.1\r\nHost: h');
    expect(attributes.path).toBe('/a%20b/c%2Fd');
    expect(attributes.queryString).toBe('q=%41+b&x=1?2');
  });

  it('gives / for the root and an empty query string when there is none', async () => {
    expect((await rawRequest('GET / HTTP/1.1\r\nHost: h')).attributes).toMatchObject({
      path: '/',
      queryString: '',
    });
    expect((await rawRequest('GET /? HTTP/1.1\r\nHost: h')).attributes).toMatchObject({
      path: '/',
      queryString: '',
    });
    expect((await rawRequest('GET /?a=1 HTTP/1.1\r\nHost: h')).attributes).toMatchObject({
      path: '/',
      queryString: 'a=1',
    });
  });

  it('takes the path of an absolute-form target after its authority', async () => {
    const { attributes } = await rawRequest(
      'GET http://example.com:8000/p/q?r=s HTTP/1.1\r\nHost: example.com',
    );
    expect(attributes).toMatchObject({ path: '/p/q', queryString: 'r=s' });
    const bare = await rawRequest('GET http://example.com HTTP/1.1\r\nHost: example.com');
    expect(bare.attributes).toMatchObject({ path: '/', queryString: '' });
  });

  it('names each header exactly as the client spelled it', async () => {
    const { attributes } = await rawRequest(
      'POST /x HTTP/1.1\r\nhOsT: h\r\nX-MiXeD-Case: v\r\ncontent-type: text/plain\r\nContent-Length: 0',
    );
    expect(attributes).toMatchObject({ hOsT: 'h', 'X-MiXeD-Case': 'v', 'content-type': 'text/plain' });
    expect(attributes).not.toHaveProperty('host');
    expect(attributes).not.toHaveProperty('x-mixed-case');
  });

  it('joins a repeated header with ", " in order, under its first spelling', async () => {
    const { attributes, keys } = await rawRequest(
      'GET / HTTP/1.1\r\nHost: h\r\nX-Tag: one\r\nAccept: text/plain\r\nx-tag: two\r\nX-TAG: three',
    );
    expect(attributes['X-Tag']).toBe('one, two, three');
    expect(keys.filter((key) => key.toLowerCase() === 'x-tag')).toEqual(['X-Tag']);
  });

  it('joins repeated headers under their first spelling in a request with many headers too', async () => {
    const many = Array.from({ length: 40 }, (_, i) => `X-H${i}: v${i}`).join('\r\n');
    const { attributes, keys } = await rawRequest(
      `GET / HTTP/1.1\r\nHost: h\r\nX-Early: a\r\n${many}\r\nx-early: b\r\nX-H3: again\r\nx-late: c\r\nX-LATE: d`,
    );
    expect(attributes).toMatchObject({
      'X-Early': 'a, b',
      'X-H3': 'v3, again',
      'x-late': 'c, d',
      'X-H39': 'v39',
    });
    expect(keys.filter((key) => key.toLowerCase() === 'x-late')).toEqual(['x-late']);
    expect(keys.slice(4, 7)).toEqual(['Host', 'X-Early', 'X-H0']);
  });

  it('joins repeated Cookie headers with "; " when asked to copy them', async () => {
    options = { copyAuthorizationHeaders: false, copyCookieHeaders: true };
    const { attributes } = await rawRequest('GET / HTTP/1.1\r\nHost: h\r\nCookie: a=1\r\nCookie: b=2');
    expect(attributes.Cookie).toBe('a=1; b=2');
  });

  it('leaves out Cookie and X-ENGINE-APPLICATION-ID, in any case, unless asked to copy each', async () => {
    const head =
      'GET / HTTP/1.1\r\nHost: h\r\ncookie: s=secret\r\nX-Engine-Application-Id: id-secret\r\nX-Other: 1';
    const withheld = await rawRequest(head);
    expect(withheld.keys).toEqual([
      'method',
      'path',
      'queryString',
      'remoteHost',
      'Host',
      'X-Other',
      'Connection',
    ]);

    options = { copyAuthorizationHeaders: false, copyCookieHeaders: true };
    const cookies = await rawRequest(head);
    expect(cookies.attributes.cookie).toBe('s=secret');
    expect(cookies.keys).not.toContain('X-Engine-Application-Id');

    options = { copyAuthorizationHeaders: false, copyApplicationId: true };
    const ids = await rawRequest(head);
    expect(ids.attributes['X-Engine-Application-Id']).toBe('id-secret');
    expect(ids.keys).not.toContain('cookie');
  });

  it('reserves the identity attributes: a header cannot forge authenticatedUser or authenticationMethod', async () => {
    const { keys } = await rawRequest(
      'GET / HTTP/1.1\r\nHost: h\r\nAuthenticatedUser: admin\r\nauthenticationmethod: basic',
    );
    expect(keys).toEqual(['method', 'path', 'queryString', 'remoteHost', 'Host', 'Connection']);
  });

  it('adds the identity after the headers and the verified client certificate', () => {
    const attributes = requestAttributes(
      {
        method: 'GET',
        url: '/',
        rawHeaders: ['authenticatedUser', 'forged', 'A', '1'],
        socket: { remoteAddress: '127.0.0.1' } as never,
      },
      {
        copyAuthorizationHeaders: false,
        verified: { tlsClientSubject: 'CN=c' },
        identity: { authenticationMethod: 'basic', authenticatedUser: 'alice' },
      },
    );
    expect(attributes).toEqual({
      method: 'GET',
      path: '/',
      queryString: '',
      remoteHost: '127.0.0.1',
      tlsClientSubject: 'CN=c',
      authenticationMethod: 'basic',
      authenticatedUser: 'alice',
      A: '1',
    });
  });

  it('does not let a header overwrite method, path, queryString or remoteHost, in any case', async () => {
    const { attributes, keys } = await rawRequest(
      'PUT /real?q=1 HTTP/1.1\r\nHost: h\r\nmethod: GET\r\nPATH: /fake\r\nquerystring: fake=1\r\nRemoteHost: 10.0.0.1',
    );
    expect(attributes).toMatchObject({
      method: 'PUT',
      path: '/real',
      queryString: 'q=1',
      remoteHost: '127.0.0.1',
    });
    expect(keys).not.toEqual(expect.arrayContaining(['PATH', 'querystring', 'RemoteHost']));
  });

  it('leaves out Authorization and Proxy-Authorization unless asked to copy them', async () => {
    const head =
      'GET / HTTP/1.1\r\nHost: h\r\nauthorization: Basic dTpw\r\nProxy-Authorization: Bearer t\r\nX-Other: 1';
    const withheld = await rawRequest(head);
    expect(withheld.keys).toEqual([
      'method',
      'path',
      'queryString',
      'remoteHost',
      'Host',
      'X-Other',
      'Connection',
    ]);

    options = { copyAuthorizationHeaders: true };
    const copied = await rawRequest(head);
    expect(copied.attributes).toMatchObject({
      authorization: 'Basic dTpw',
      'Proxy-Authorization': 'Bearer t',
    });
  });

  it('keeps a header called __proto__ as an ordinary attribute', async () => {
    const { attributes } = await rawRequest('GET / HTTP/1.1\r\nHost: h\r\n__proto__: x');
    expect(Object.getOwnPropertyDescriptor(attributes, '__proto__')?.value).toBe('x');
  });

  it('returns a frozen object', () => {
    const attributes = requestAttributes(
      {
        method: 'GET',
        url: '/',
        rawHeaders: ['A', '1'],
        socket: { remoteAddress: '::ffff:10.1.2.3' } as never,
      },
      { copyAuthorizationHeaders: false },
    );
    expect(Object.isFrozen(attributes)).toBe(true);
    expect(attributes.remoteHost).toBe('10.1.2.3');
    expect(() => {
      (attributes as Record<string, string>).A = '2';
    }).toThrow(TypeError);
  });
});

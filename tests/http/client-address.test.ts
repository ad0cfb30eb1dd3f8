import fc from 'fast-check';
import {
  TrustedProxies,
  clientAddressOf,
  trustedProxyProblem,
  withForwardedFor,
  type ForwardedHeaderName,
} from '../../src/http/client-address';

/** A request as `clientAddressOf` reads it: the socket's peer and the raw headers. */
function from(peer: string | undefined, headers: [string, string][] = []) {
  return { socket: { remoteAddress: peer } as never, rawHeaders: headers.flat() };
}

function client(
  trusted: string[],
  peer: string | undefined,
  headers: [string, string][],
  header: ForwardedHeaderName = 'xForwardedFor',
): string | undefined {
  return clientAddressOf(from(peer, headers), { trustedProxies: TrustedProxies.of(trusted), header });
}

describe('TrustedProxies', () => {
  it('takes IPv4 and IPv6 addresses and CIDR ranges, and IPv4-mapped peers as IPv4', () => {
    const trusted = TrustedProxies.of(['127.0.0.1', '10.0.0.0/8', 'fd00::/8', '::1'])!;
    for (const address of [
      '127.0.0.1',
      '10.200.3.4',
      'fd12::5',
      '::1',
      '::ffff:10.1.1.1',
      '::ffff:127.0.0.1',
    ]) {
      expect(trusted.trusts(address)).toBe(true);
    }
    for (const address of ['127.0.0.2', '11.0.0.1', 'fe80::1', '::2', 'garbage', '']) {
      expect(trusted.trusts(address)).toBe(false);
    }
  });

  it('is undefined for an empty list, and names an entry that is neither an address nor a range', () => {
    expect(TrustedProxies.of([])).toBeUndefined();
    expect(() => TrustedProxies.of(['10.0.0.0/33'])).toThrow("'10.0.0.0/33' is not an IP address");
    for (const bad of ['10.0.0.0/33', '::1/129', 'example.com', '10.0.0.1/', '10.0.0.1/x', '1.2.3', '/8']) {
      expect(trustedProxyProblem(bad)).toMatch(/must be an IPv4 or IPv6 address/);
    }
    for (const good of ['0.0.0.0/0', '::/0', '192.168.1.0/24', '2001:db8::/32', '::ffff:10.0.0.1']) {
      expect(trustedProxyProblem(good)).toBeUndefined();
    }
  });
});

describe('clientAddressOf', () => {
  it('answers the peer when no proxy is trusted, or the peer is not one, whatever the headers say', () => {
    const forged: [string, string][] = [
      ['X-Forwarded-For', '198.51.100.7'],
      ['Forwarded', 'for=198.51.100.7'],
    ];
    expect(client([], '127.0.0.2', forged)).toBe('127.0.0.2');
    expect(client(['127.0.0.1'], '127.0.0.2', forged)).toBe('127.0.0.2');
    expect(client(['127.0.0.1'], '127.0.0.2', forged, 'forwarded')).toBe('127.0.0.2');
  });

  it('answers the nearest untrusted hop of X-Forwarded-For, walking from the right', () => {
    const trusted = ['127.0.0.1', '10.0.0.0/8'];
    expect(client(trusted, '127.0.0.1', [['X-Forwarded-For', '198.51.100.7']])).toBe('198.51.100.7');
    // The client forged the leftmost entry; the proxies appended the rest.
    expect(client(trusted, '127.0.0.1', [['x-forwarded-for', '203.0.113.9, 198.51.100.7, 10.1.2.3']])).toBe(
      '198.51.100.7',
    );
    // Repeated headers are one list, in the order they came.
    expect(
      client(trusted, '127.0.0.1', [
        ['X-Forwarded-For', '203.0.113.9'],
        ['X-Forwarded-For', '10.1.2.3'],
      ]),
    ).toBe('203.0.113.9');
    // Every hop trusted: the leftmost one is the client.
    expect(client(trusted, '127.0.0.1', [['X-Forwarded-For', '10.0.0.5,10.9.9.9']])).toBe('10.0.0.5');
    // No header: the trusted peer itself is the client.
    expect(client(trusted, '127.0.0.1', [])).toBe('127.0.0.1');
  });

  it('reads ports and brackets, IPv6 hops, and IPv4-mapped addresses', () => {
    const trusted = ['::1', '127.0.0.1'];
    expect(client(trusted, '::1', [['X-Forwarded-For', '[2001:db8::7]:443']])).toBe('2001:db8::7');
    expect(client(trusted, '::1', [['X-Forwarded-For', '2001:db8::8']])).toBe('2001:db8::8');
    expect(client(trusted, '::ffff:127.0.0.1', [['X-Forwarded-For', '192.0.2.1:5060']])).toBe('192.0.2.1');
    expect(client(trusted, '127.0.0.1', [['X-Forwarded-For', '::ffff:192.0.2.9']])).toBe('192.0.2.9');
  });

  it('stops at the trusted hop that wrote a malformed entry, so a bad header makes up no address', () => {
    const trusted = ['127.0.0.1', '10.0.0.0/8'];
    for (const value of ['garbage', 'unknown', '1.2.3', '999.1.1.1', '[::1', '"1.2.3.4"', ',,,', '']) {
      expect(client(trusted, '127.0.0.1', [['X-Forwarded-For', value]])).toBe('127.0.0.1');
    }
    expect(client(trusted, '127.0.0.1', [['X-Forwarded-For', '198.51.100.7, nonsense, 10.1.2.3']])).toBe(
      '10.1.2.3',
    );
  });

  it('reads the for= parameters of Forwarded (RFC 7239), quoted or not, and only with trustedProxyHeader forwarded', () => {
    const trusted = ['127.0.0.1'];
    const headers: [string, string][] = [
      ['Forwarded', 'for=192.0.2.60;proto=http;by=203.0.113.43, for="[2001:db8:cafe::17]:4711"'],
      ['X-Forwarded-For', '198.51.100.99'],
    ];
    expect(client(trusted, '127.0.0.1', headers, 'forwarded')).toBe('2001:db8:cafe::17');
    expect(client(trusted, '127.0.0.1', headers)).toBe('198.51.100.99');
    expect(client(trusted, '127.0.0.1', [['Forwarded', 'For="192.0.2.43:47011"']], 'forwarded')).toBe(
      '192.0.2.43',
    );
    // Obfuscated identifiers, `unknown`, a missing for=, and a comma inside quotes are no address.
    for (const value of ['for=_hidden', 'for=unknown', 'proto=https', 'for="a,b"', 'for=', 'for="']) {
      expect(client(trusted, '127.0.0.1', [['Forwarded', value]], 'forwarded')).toBe('127.0.0.1');
    }
  });

  it('never throws and answers the peer or an address from the header, for any header value', () => {
    const trustedProxies = TrustedProxies.of(['127.0.0.1', '10.0.0.0/8']);
    fc.assert(
      fc.property(
        fc.string({ maxLength: 200 }),
        fc.constantFrom('xForwardedFor', 'forwarded'),
        (value, header) => {
          const answer = clientAddressOf(
            from('127.0.0.1', [
              ['X-Forwarded-For', value],
              ['Forwarded', value],
            ]),
            { trustedProxies, header: header as ForwardedHeaderName },
          );
          expect(answer === '127.0.0.1' || value.includes(answer ?? '\u0000')).toBe(true);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('walks at most 64 hops of a long chain of trusted addresses', () => {
    const chain = Array.from({ length: 500 }, (_, i) => `10.0.${i >> 8}.${i & 255}`).join(', ');
    expect(client(['127.0.0.1', '10.0.0.0/8'], '127.0.0.1', [['X-Forwarded-For', chain]])).toBe('10.0.1.180');
  });
});

describe('withForwardedFor', () => {
  it("appends the proxy's peer to what came in, as nginx's $proxy_add_x_forwarded_for", () => {
    expect(withForwardedFor(undefined, '127.0.0.2')).toBe('127.0.0.2');
    expect(withForwardedFor('', '::ffff:192.0.2.1')).toBe('192.0.2.1');
    expect(withForwardedFor('203.0.113.9', '127.0.0.2')).toBe('203.0.113.9, 127.0.0.2');
    expect(withForwardedFor(['203.0.113.9', '10.0.0.1'], '::1')).toBe('203.0.113.9, 10.0.0.1, ::1');
    expect(withForwardedFor('203.0.113.9', undefined)).toBe('203.0.113.9');
  });
});

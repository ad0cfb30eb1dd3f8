import { createCipheriv, createHash, createHmac } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { hiResToMs } from '../../../../src/formats/datagram/collectd/collectd-parser';
import { datagramFormat } from '../../../../src/formats/datagram/datagram-format';
import type { ParseResult } from '../../../../src/formats/data-format';
import { parseWhole } from '../../../../src/formats/parse-helpers';
import { field } from '../../../../src/record/field';

const FIXTURES = join(__dirname, '..', '..', '..', 'fixtures', 'formats', 'datagram', 'collectd');
const dir = mkdtempSync(join(tmpdir(), 'collectd-test-'));
const AUTH_FILE = join(dir, 'auth');
writeFileSync(AUTH_FILE, '# users\nalice: secret\n  bob :  other pass  \nnot a user line\n');

function part(type: number, payload: Buffer): Buffer {
  const header = Buffer.alloc(4);
  header.writeUInt16BE(type, 0);
  header.writeUInt16BE(4 + payload.length, 2);
  return Buffer.concat([header, payload]);
}

function text(type: number, value: string): Buffer {
  return part(type, Buffer.concat([Buffer.from(value, 'utf8'), Buffer.from([0])]));
}

function num(type: number, value: bigint): Buffer {
  const payload = Buffer.alloc(8);
  payload.writeBigUInt64BE(value);
  return part(type, payload);
}

type Value = ['counter' | 'absolute', bigint] | ['derive', bigint] | ['gauge', number];

function values(...list: Value[]): Buffer {
  const payload = Buffer.alloc(2 + list.length * 9);
  payload.writeUInt16BE(list.length, 0);
  list.forEach(([kind, value], i) => {
    payload[2 + i] = ['counter', 'gauge', 'derive', 'absolute'].indexOf(kind);
    const at = 2 + list.length + i * 8;
    if (kind === 'gauge') payload.writeDoubleLE(value, at);
    else if (kind === 'derive') payload.writeBigInt64BE(value, at);
    else payload.writeBigUInt64BE(value, at);
  });
  return part(6, payload);
}

function signed(user: string, password: string, body: Buffer): Buffer {
  const name = Buffer.from(user, 'utf8');
  const hmac = createHmac('sha256', password).update(name).update(body).digest();
  return Buffer.concat([part(0x0200, Buffer.concat([hmac, name])), body]);
}

function encrypted(user: string, password: string, body: Buffer, iv = Buffer.alloc(16, 7)): Buffer {
  const name = Buffer.from(user, 'utf8');
  const cipher = createCipheriv('aes-256-ofb', createHash('sha256').update(password).digest(), iv);
  const plain = Buffer.concat([createHash('sha1').update(body).digest(), body]);
  const sealed = Buffer.concat([cipher.update(plain), cipher.final()]);
  const nameLength = Buffer.alloc(2);
  nameLength.writeUInt16BE(name.length);
  return part(0x0210, Buffer.concat([nameLength, name, iv, sealed]));
}

function parse(packet: Uint8Array, options: Record<string, unknown> = {}): ParseResult {
  return parseWhole(datagramFormat, { packetFormat: 'collectd', ...options }, packet);
}

const load = Buffer.concat([
  text(0, 'host-a'),
  num(8, 1_700_000_000n << 30n),
  num(9, 10n << 30n),
  text(2, 'load'),
  text(4, 'load'),
  values(['gauge', 0.5], ['gauge', 1.25], ['gauge', 2]),
]);

describe('collectd parser', () => {
  it('makes one record per values part with the state the parts before it set', () => {
    const packet = Buffer.concat([
      load,
      text(2, 'interface'),
      text(3, 'lo'),
      text(4, 'if_octets'),
      values(['derive', 10n], ['derive', -3n]),
      text(5, 'extra'),
      text(4, 'if_octets'),
      values(['derive', 1n], ['derive', 2n]),
    ]);
    const { records, failures } = parse(packet);
    expect(failures).toEqual([]);
    expect(records.map((r) => r.value)).toEqual([
      {
        host: 'host-a',
        time_hires: 1_700_000_000n << 30n,
        plugin: 'load',
        type: 'load',
        shortterm: 0.5,
        midterm: 1.25,
        longterm: field('DOUBLE', 2),
      },
      {
        host: 'host-a',
        time_hires: 1_700_000_000n << 30n,
        plugin: 'interface',
        plugin_instance: 'lo',
        type: 'if_octets',
        rx: 10,
        tx: -3,
      },
      {
        host: 'host-a',
        time_hires: 1_700_000_000n << 30n,
        plugin: 'interface',
        plugin_instance: 'lo',
        type: 'if_octets',
        type_instance: 'extra',
        rx: 1,
        tx: 2,
      },
    ]);
  });

  it('reads COUNTER and ABSOLUTE as unsigned 64-bit, DERIVE as signed, exact beyond 2^53', () => {
    const packet = Buffer.concat([
      text(4, 'no-such-type'),
      values(
        ['counter', 2n ** 64n - 1n],
        ['absolute', 2n ** 53n + 1n],
        ['derive', -(2n ** 63n)],
        ['counter', 7n],
      ),
    ]);
    expect(parse(packet).records[0]?.value).toEqual({
      type: 'no-such-type',
      counter_0: 2n ** 64n - 1n,
      absolute_1: 2n ** 53n + 1n,
      derive_2: -(2n ** 63n),
      counter_3: 7,
    });
  });

  it('names values after their data source type when types.db lists another value count', () => {
    const packet = Buffer.concat([text(4, 'load'), values(['gauge', 1.5])]);
    expect(parse(packet).records[0]?.value).toEqual({ type: 'load', gauge: 1.5 });
  });

  it('converts high-resolution time and interval to UNIX milliseconds and keeps the interval when asked', () => {
    const time = (1_700_000_000n << 30n) + (1n << 29n);
    const packet = Buffer.concat([
      num(8, time),
      num(9, 10n << 30n),
      text(4, 'load'),
      values(['gauge', 1], ['gauge', 2], ['gauge', 3]),
    ]);
    const value = parse(packet, { convertHiResTimeAndInterval: true, excludeInterval: false }).records[0]
      ?.value;
    expect(value).toMatchObject({ time: 1_700_000_000_500, interval: 10_000 });
    expect(value).not.toHaveProperty('time_hires');
    expect(parse(packet, { excludeInterval: false }).records[0]?.value).toMatchObject({
      time_hires: time,
      interval_hires: 10 * 2 ** 30,
    });
  });

  it('rounds 2^-30 s units to the nearest millisecond as collectd does', () => {
    expect(hiResToMs(1n << 30n)).toBe(1000n);
    expect(hiResToMs((1n << 30n) / 2000n)).toBe(0n);
    expect(hiResToMs((1n << 30n) / 1000n + 1n)).toBe(1n);
  });

  it('keeps the one-second time and interval parts in seconds', () => {
    const packet = Buffer.concat([num(1, 1_700_000_000n), num(7, 10n), values(['gauge', 1])]);
    expect(
      parse(packet, { excludeInterval: false, convertHiResTimeAndInterval: true }).records[0]?.value,
    ).toEqual({ time: 1_700_000_000, interval: 10, gauge: field('DOUBLE', 1) });
  });

  it('carries notification severity and message into the records after them', () => {
    const packet = Buffer.concat([num(0x0101, 2n), text(0x0100, 'disk almost full'), values(['gauge', 1])]);
    expect(parse(packet).records[0]?.value).toEqual({
      severity: 2,
      message: 'disk almost full',
      gauge: field('DOUBLE', 1),
    });
  });

  it('skips part types it does not know', () => {
    const packet = Buffer.concat([part(0x7777, Buffer.from('abc')), values(['gauge', 1])]);
    expect(parse(packet)).toEqual({ records: [{ value: { gauge: field('DOUBLE', 1) } }], failures: [] });
  });

  it('reads names from typesDbFile instead of the bundled types.db', () => {
    const file = join(dir, 'types.db');
    writeFileSync(file, '# mine\nload  one:GAUGE:0:U, two:GAUGE:0:U, three:GAUGE:0:U\nbroken x:NOPE:0:0\n');
    expect(parse(load, { typesDbFile: file }).records[0]?.value).toMatchObject({
      one: 0.5,
      two: 1.25,
      three: field('DOUBLE', 2),
    });
  });

  it('throws ORIGIN_DATAGRAM_FILE_UNREADABLE from createParser when a file option cannot be read', () => {
    for (const option of ['typesDbFile', 'authFile']) {
      expect(() => parse(load, { [option]: join(dir, 'missing') })).toThrow(
        expect.objectContaining({ code: 'ORIGIN_DATAGRAM_FILE_UNREADABLE' }),
      );
    }
  });

  describe('signed packets', () => {
    it('accepts a packet whose HMAC-SHA-256 matches the user password in authFile', () => {
      expect(parse(signed('bob', 'other pass', load), { authFile: AUTH_FILE })).toEqual(parse(load));
    });

    it('reads a signed packet unchecked when no authFile is configured', () => {
      expect(parse(signed('mallory', 'guess', load))).toEqual(parse(load));
    });

    it('fails a packet with a wrong signature, a tampered byte, or an unknown user', () => {
      const wrongKey = parse(signed('alice', 'not-secret', load), { authFile: AUTH_FILE });
      const tampered = signed('alice', 'secret', load);
      tampered.writeUInt8(tampered.readUInt8(tampered.length - 1) ^ 1, tampered.length - 1);
      expect(wrongKey.records).toEqual([]);
      expect(wrongKey.failures).toMatchObject([
        { code: 'ORIGIN_COLLECTD_SIGNATURE_INVALID', byteOffset: 0, canContinue: false },
      ]);
      expect(parse(tampered, { authFile: AUTH_FILE }).failures).toMatchObject([
        { code: 'ORIGIN_COLLECTD_SIGNATURE_INVALID' },
      ]);
      expect(parse(signed('carol', 'x', load), { authFile: AUTH_FILE }).failures).toMatchObject([
        { code: 'ORIGIN_COLLECTD_USER_UNKNOWN', message: expect.stringContaining("'carol'") },
      ]);
    });
  });

  describe('encrypted packets', () => {
    it('decrypts AES-256-OFB with the SHA-256 of the password and checks the SHA-1', () => {
      expect(parse(encrypted('alice', 'secret', load), { authFile: AUTH_FILE })).toEqual(parse(load));
    });

    it('fails a wrong password, an unknown user, and a missing authFile, never returning garbage', () => {
      expect(parse(encrypted('alice', 'wrong', load), { authFile: AUTH_FILE })).toMatchObject({
        records: [],
        failures: [{ code: 'ORIGIN_COLLECTD_DECRYPTION_FAILED' }],
      });
      expect(parse(encrypted('dave', 'x', load), { authFile: AUTH_FILE }).failures).toMatchObject([
        { code: 'ORIGIN_COLLECTD_USER_UNKNOWN' },
      ]);
      expect(parse(encrypted('alice', 'secret', load)).failures).toMatchObject([
        { code: 'ORIGIN_COLLECTD_AUTH_FILE_MISSING' },
      ]);
    });

    it('bounds encrypted parts nested in encrypted parts', () => {
      let packet: Buffer = load;
      for (let i = 0; i < 6; i++) packet = encrypted('alice', 'secret', packet);
      expect(parse(packet, { authFile: AUTH_FILE }).failures).toMatchObject([
        { code: 'ORIGIN_COLLECTD_MALFORMED', message: expect.stringContaining('nest') },
      ]);
    });
  });

  describe('hostile packets', () => {
    const good = Buffer.concat([text(4, 'load'), values(['gauge', 1], ['gauge', 2], ['gauge', 3])]);
    const cases: [string, Buffer, string][] = [
      [
        'a length pointing past the end',
        Buffer.concat([good, Buffer.from([0, 2, 0x01, 0, 0x61, 0])]),
        'remain',
      ],
      ['a zero length', Buffer.concat([good, Buffer.from([0, 2, 0, 0])]), 'below 4'],
      ['a truncated part header', Buffer.concat([good, Buffer.from([0, 2, 0])]), 'too few'],
      ['an empty string part', Buffer.concat([good, part(2, Buffer.alloc(0))]), 'empty'],
      ['a string without its NUL', Buffer.concat([good, part(2, Buffer.from('abc'))]), 'NUL'],
      ['a numeric part of the wrong size', Buffer.concat([good, part(8, Buffer.alloc(4))]), 'not 12'],
      ['a values part without a count', Buffer.concat([good, part(6, Buffer.alloc(1))]), 'no value count'],
      ['a values part with no values', Buffer.concat([good, part(6, Buffer.alloc(2))]), 'no values'],
      [
        'a values count larger than the part',
        Buffer.concat([good, part(6, Buffer.from([0, 9, 1]))]),
        'length',
      ],
      [
        'an unknown data source type',
        Buffer.concat([good, part(6, Buffer.concat([Buffer.from([0, 1, 9]), Buffer.alloc(8)]))]),
        'type 9',
      ],
      ['a signature part without a user', Buffer.concat([good, part(0x0200, Buffer.alloc(32))]), 'no user'],
      [
        'a short encryption part',
        Buffer.concat([good, part(0x0210, Buffer.from([0, 1, 0x61]))]),
        'too short',
      ],
    ];

    it.each(cases)('fails on %s after keeping the records before it', (_, packet, detail) => {
      const { records, failures } = parse(packet, { authFile: AUTH_FILE });
      expect(records).toHaveLength(1);
      expect(failures).toHaveLength(1);
      expect(failures[0]).toMatchObject({
        code: 'ORIGIN_COLLECTD_MALFORMED',
        recordIndex: 1,
        byteOffset: good.length,
        canContinue: false,
        message: expect.stringContaining(detail),
      });
      expect(failures[0]?.excerpt).toBe(packet.subarray(good.length, good.length + 64).toString('hex'));
    });

    it('never throws on random bytes and makes at most one record per 15 bytes', () => {
      fc.assert(
        fc.property(fc.uint8Array({ maxLength: 600 }), (bytes) => {
          const { records, failures } = parse(bytes, { authFile: AUTH_FILE });
          expect(failures.length).toBeLessThanOrEqual(1);
          expect(records.length).toBeLessThanOrEqual(bytes.length / 15);
        }),
        { numRuns: 2000 },
      );
    });

    it('never throws on real packets with random bytes changed or cut off', () => {
      const real = ['plain-0', 'signed-0', 'encrypted-0'].map((name) =>
        readFileSync(join(FIXTURES, `${name}.input.bin`)),
      );
      const options = { authFile: join(FIXTURES, 'auth-file') };
      fc.assert(
        fc.property(
          fc.constantFrom(...real),
          fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { maxLength: 4 }),
          fc.nat(),
          (packet, edits, cut) => {
            const bytes = Buffer.from(packet.subarray(0, packet.length - (cut % 32)));
            for (const [at, byte] of edits) bytes[at % bytes.length] = byte;
            const { failures } = parse(bytes, options);
            expect(failures.length).toBeLessThanOrEqual(1);
          },
        ),
        { numRuns: 500 },
      );
    });
  });
});

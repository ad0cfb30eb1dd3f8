import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { defaultRegistry } from '../../../../src/formats/built-in';
import type { ParseResult, ParseSource } from '../../../../src/formats/data-format';
import {
  createNetflowParser,
  type NetflowParserOptions,
} from '../../../../src/formats/datagram/netflow/netflow-parser';
import { parseWhole } from '../../../../src/formats/parse-helpers';
import { isTypedField, type FieldValue, type PlainMap } from '../../../../src/record/field';
import { isListMap, listMapEntries } from '../../../../src/record/list-map';

import { DATA_300, TEMPLATE_300, flowset, u16, v9 } from './netflow-packets';

const FIXTURES = join(__dirname, '..', '..', '..', 'fixtures', 'formats', 'datagram', 'netflow');
const BOTH: NetflowParserOptions = {
  recordGenerationMode: 'rawAndInterpreted',
  maxTemplatesInCache: -1,
  templateCacheTimeoutMs: -1,
};

function parse(
  bytes: Uint8Array,
  options: Partial<NetflowParserOptions> = {},
  source: ParseSource = { remoteAddress: '10.0.0.1', originState: new Map() },
): ParseResult {
  const parser = createNetflowParser({ ...BOTH, ...options }, source);
  const a = parser.push(bytes);
  const b = parser.end();
  return { records: [...a.records, ...b.records], failures: [...a.failures, ...b.failures] };
}

/** A typed value's plain value; a LIST_MAP as a plain object. */
function plain(value: FieldValue | undefined): unknown {
  if (isListMap(value)) return Object.fromEntries(listMapEntries(value).map(([k, v]) => [k, plain(v)]));
  if (isTypedField(value)) return value.value;
  return value;
}

describe('NetFlow v5', () => {
  const bytes = readFileSync(join(FIXTURES, 'v5-1.packet'));
  const oracle = (
    JSON.parse(readFileSync(join(FIXTURES, 'v5.tshark.json'), 'utf8')) as {
      _source: { layers: Record<string, string[]> };
    }[]
  )[0]!._source.layers;

  it('decodes every flow of a softflowd packet as tshark does', () => {
    const { records, failures } = parse(bytes);
    expect(failures).toEqual([]);
    expect(records).toHaveLength(Number(oracle['cflow.count']![0]));
    records.forEach((record, i) => {
      const v = record.value as PlainMap;
      expect(v.version).toBe(5);
      expect(plain(v.seconds)).toBe(Number(oracle['cflow.unix_secs']![0]));
      expect(plain(v.nanos)).toBe(Number(oracle['cflow.unix_nsecs']![0]));
      expect(v.srcaddr_s).toBe(oracle['cflow.srcaddr']![i]);
      expect(v.dstaddr_s).toBe(oracle['cflow.dstaddr']![i]);
      expect(v.srcaddr).toBe(0x7f000001);
      expect(v.srcport).toBe(Number(oracle['cflow.srcport']![i]));
      expect(v.dstport).toBe(Number(oracle['cflow.dstport']![i]));
      expect(plain(v.proto)).toBe(Number(oracle['cflow.protocol']![i]));
      expect(plain(v.dPkts)).toBe(Number(oracle['cflow.packets']![i]));
      expect(plain(v.dOctets)).toBe(Number(oracle['cflow.octets']![i]));
      expect(plain(v.tcp_flags)).toBe(Number(oracle['cflow.tcpflags']![i]));
      // tshark shows first/last as seconds of uptime; the record makes them absolute.
      const rawFirst = Math.round(Number(oracle['cflow.timestart']![i]) * 1000);
      expect(plain(v.raw_first)).toBe(rawFirst);
      const timestamp = plain(v.timestamp) as number;
      expect(plain(v.first)).toBe(timestamp - (plain(v.uptime) as number) + rawFirst);
      expect(v.sender).toBe('10.0.0.1');
    });
  });

  it('fails a packet shorter than its count says', () => {
    const { records, failures } = parse(bytes.subarray(0, bytes.length - 1));
    expect(records).toEqual([]);
    expect(failures).toHaveLength(1);
    expect(failures[0]!.code).toBe('ORIGIN_NETFLOW_MALFORMED');
    expect(failures[0]!.message).toContain('6 flows');
  });

  it('gives the same records for any chunking', () => {
    const whole = parse(bytes);
    fc.assert(
      fc.property(fc.integer({ min: 0, max: bytes.length }), (cut) => {
        const parser = createNetflowParser(BOTH, { remoteAddress: '10.0.0.1', originState: new Map() });
        parser.push(bytes.subarray(0, cut));
        parser.push(bytes.subarray(cut));
        expect(parser.end()).toEqual(whole);
      }),
    );
  });
});

describe('NetFlow v9', () => {
  it('decodes the data of a softflowd packet with the templates it carries, matching the v5 export of the same flows', () => {
    const { records, failures } = parse(readFileSync(join(FIXTURES, 'v9-1.packet')));
    expect(failures).toEqual([]);
    const flows = records.filter(
      (r) => plain(r.value) && (plain(r.value) as PlainMap).flowKind === 'FLOWSET',
    );
    const options = records.filter((r) => (plain(r.value) as PlainMap).flowKind === 'OPTIONS');
    expect(options).toHaveLength(1);
    const v5 = parse(readFileSync(join(FIXTURES, 'v5-1.packet'))).records.map((r) => r.value as PlainMap);
    expect(flows).toHaveLength(v5.length);
    const seen = flows.map((r) => {
      const values = (plain(r.value) as { values: Record<string, unknown> }).values;
      return `${String(values.IPV4_SRC_ADDR)}:${String(values.L4_SRC_PORT)}>${String(values.L4_DST_PORT)} ${String(values.IN_PKTS)}/${String(values.IN_BYTES)}`;
    });
    const expected = v5.map(
      (v) =>
        `${String(v.srcaddr_s)}:${String(v.srcport)}>${String(v.dstport)} ${String(plain(v.dPkts))}/${String(plain(v.dOctets))}`,
    );
    expect(seen.sort()).toEqual(expected.sort());
    const header = (plain(flows[0]!.value) as { packetHeader: Record<string, unknown> }).packetHeader;
    const oracle = (
      JSON.parse(readFileSync(join(FIXTURES, 'v9.tshark.json'), 'utf8')) as {
        _source: { layers: Record<string, string[]> };
      }[]
    )[0]!._source.layers;
    expect(header.unixSeconds).toBe(Number(oracle['cflow.unix_secs']![0]));
    expect(header.sequenceNumber).toBe(Number(oracle['cflow.sequence']![0]));
    expect(header.flowRecordCount).toBe(Number(oracle['cflow.count']![0]));
  });

  it('interprets fields by type and keeps unknown types as type_<id>, raw bytes beside them', () => {
    const { records, failures } = parse(v9(1, TEMPLATE_300, DATA_300));
    expect(failures).toEqual([]);
    expect(records).toHaveLength(1);
    const value = plain(records[0]!.value) as Record<string, Record<string, unknown>>;
    expect(value.flowKind).toBe('FLOWSET');
    expect(value.flowTemplateId).toBe(300);
    expect(value.values).toEqual({
      IPV4_SRC_ADDR: '192.168.1.2',
      L4_SRC_PORT: 443,
      IN_BYTES: '123456',
      type_999: 0xabcd,
    });
    expect(value.rawValues!.IPV4_SRC_ADDR).toEqual(Uint8Array.from([192, 168, 1, 2]));
  });

  it.each([
    ['rawOnly', ['rawValues']],
    ['interpretedOnly', ['values']],
  ] as const)('gives only what recordGenerationMode %s asks for', (mode, keys) => {
    const value = plain(
      parse(v9(1, TEMPLATE_300, DATA_300), { recordGenerationMode: mode }).records[0]!.value,
    ) as object;
    expect(Object.keys(value).filter((k) => k === 'values' || k === 'rawValues')).toEqual(keys);
  });

  it('removes control characters from name fields with ignoreControlCharacters (spec §2.3)', () => {
    // Template 301: IF_NAME (type 82), 8 bytes: 'et\u0001h0' padded with NULs.
    const template = flowset(0, [...u16(301), ...u16(1), ...u16(82), ...u16(8)]);
    const data = flowset(301, [0x65, 0x74, 0x01, 0x68, 0x30, 0, 0, 0]);
    const name = (ignoreControlCharacters: boolean): unknown =>
      (
        plain(parse(v9(1, template, data), { ignoreControlCharacters }).records[0]!.value) as {
          values: Record<string, unknown>;
        }
      ).values['IF_NAME'];
    expect(name(false)).toBe('et\u0001h0');
    expect(name(true)).toBe('eth0');
  });

  it('keeps templates across parses of one origin: template in one request, data in the next', () => {
    const source: ParseSource = { remoteAddress: '10.0.0.1', originState: new Map() };
    expect(parse(v9(1, TEMPLATE_300), {}, source)).toEqual({ records: [], failures: [] });
    expect(parse(v9(1, DATA_300), {}, source).records).toHaveLength(1);
    // Another exporter or source ID does not see the template.
    const other = parse(v9(2, DATA_300), {}, source);
    expect(other.failures.map((f) => f.code)).toEqual(['ORIGIN_NETFLOW_TEMPLATE_UNKNOWN']);
    expect(other.failures[0]!.message).toContain('template 300');
    expect(
      parse(v9(1, DATA_300), {}, { remoteAddress: '10.0.0.2', originState: source.originState }).failures,
    ).toHaveLength(1);
  });

  it('evicts the least recently used template past maxTemplatesInCache', () => {
    const source: ParseSource = { remoteAddress: '10.0.0.1', originState: new Map() };
    const options = { maxTemplatesInCache: 2 };
    const template = (id: number): number[] => flowset(0, [...u16(id), ...u16(1), ...u16(4), ...u16(1)]);
    const data = (id: number): number[] => flowset(id, [7]);
    parse(v9(1, template(300), template(301)), options, source);
    expect(parse(v9(1, data(300)), options, source).records).toHaveLength(1);
    parse(v9(1, template(302)), options, source);
    expect(parse(v9(1, data(301)), options, source).failures).toHaveLength(1);
    expect(parse(v9(1, data(300)), options, source).records).toHaveLength(1);
    expect(parse(v9(1, data(302)), options, source).records).toHaveLength(1);
  });

  it('keeps at most 1,000 templates by default, and any number when maxTemplatesInCache is -1', () => {
    const template = (id: number): number[] => flowset(0, [...u16(id), ...u16(1), ...u16(4), ...u16(1)]);
    const data = (id: number): number[] => flowset(id, [7]);
    for (const [config, firstKept] of [
      [{}, false],
      [{ maxTemplatesInCache: -1 }, true],
    ] as const) {
      const source: ParseSource = { remoteAddress: '10.0.0.1', originState: new Map() };
      const packets = Array.from({ length: 11 }, (_, p) =>
        v9(1, ...Array.from({ length: 100 }, (_, i) => template(256 + p * 100 + i))),
      );
      const format = defaultRegistry.get('datagram')!;
      const whole = (packet: Uint8Array): ParseResult =>
        parseWhole(format, { packetFormat: 'netflow', ...config }, packet, source);
      for (const packet of packets) expect(whole(packet).failures).toEqual([]);
      // 1,100 templates defined: by default the 100 used least recently are gone.
      expect(whole(v9(1, data(256))).records).toHaveLength(firstKept ? 1 : 0);
      expect(whole(v9(1, data(1355))).records).toHaveLength(1);
    }
  });

  it('evicts templates idle longer than templateCacheTimeoutMs', () => {
    jest.useFakeTimers({ now: 1_000_000 });
    try {
      const source: ParseSource = { remoteAddress: '10.0.0.1', originState: new Map() };
      const options = { templateCacheTimeoutMs: 5000 };
      parse(v9(1, TEMPLATE_300), options, source);
      jest.setSystemTime(1_004_000);
      expect(parse(v9(1, DATA_300), options, source).records).toHaveLength(1);
      jest.setSystemTime(1_008_000);
      expect(parse(v9(1, DATA_300), options, source).records).toHaveLength(1);
      jest.setSystemTime(1_013_001);
      expect(parse(v9(1, DATA_300), options, source).failures.map((f) => f.code)).toEqual([
        'ORIGIN_NETFLOW_TEMPLATE_UNKNOWN',
      ]);
    } finally {
      jest.useRealTimers();
    }
  });

  it.each([[1], [7], [10]])('refuses version %d with a clear failure', (version) => {
    const { records, failures } = parse(Uint8Array.from([...u16(version), ...new Array<number>(40).fill(0)]));
    expect(records).toEqual([]);
    expect(failures[0]!.code).toBe('ORIGIN_NETFLOW_VERSION_UNSUPPORTED');
    expect(failures[0]!.message).toContain(`version ${version}`);
  });
});

describe('NetFlow through the datagram format', () => {
  it('keeps the template cache in the origin state across parseWhole calls', () => {
    const format = defaultRegistry.get('datagram');
    const source: ParseSource = { remoteAddress: '10.0.0.1', originState: new Map() };
    const config = { packetFormat: 'netflow', recordGenerationMode: 'interpretedOnly' };
    expect(parseWhole(format, config, v9(1, TEMPLATE_300), source).records).toEqual([]);
    const { records, failures } = parseWhole(format, config, v9(1, DATA_300), source);
    expect(failures).toEqual([]);
    expect((plain(records[0]!.value) as { values: object }).values).toMatchObject({ L4_SRC_PORT: 443 });
  });
});

describe('hostile NetFlow packets', () => {
  const cases: [string, Uint8Array][] = [
    ['a flowset length past the end', v9(1, [...u16(0), ...u16(400), 0, 0])],
    ['a flowset length of 0', v9(1, [...u16(300), ...u16(0), 1, 2, 3, 4])],
    ['a zero-length template field', v9(1, flowset(0, [...u16(300), ...u16(1), ...u16(8), ...u16(0)]))],
    ['a template with no fields', v9(1, flowset(0, [...u16(300), ...u16(0), 0, 0, 0, 0]))],
    [
      'a 65535-field template in a small flowset',
      v9(1, flowset(0, [...u16(300), ...u16(65535), ...u16(8), ...u16(4)])),
    ],
    ['a truncated flowset header', v9(1, [1, 2])],
    [
      'an options template with an odd scope length',
      v9(1, flowset(1, [...u16(300), ...u16(3), ...u16(4), 0, 1, 0, 4, 0, 0])),
    ],
    ['a truncated v9 header', Uint8Array.from([0, 9, 0, 1])],
  ];
  it.each(cases)('fails %s without throwing', (_name, bytes) => {
    const { records, failures } = parse(bytes);
    expect(records).toEqual([]);
    expect(failures.map((f) => f.code)).toEqual(['ORIGIN_NETFLOW_MALFORMED']);
  });

  it('decodes a data flowset that refers to its own template id only once per record, never looping', () => {
    const loop = flowset(300, [...u16(300), ...u16(4)]);
    const { records } = parse(v9(1, flowset(0, [...u16(300), ...u16(1), ...u16(4), ...u16(4)]), loop));
    expect(records).toHaveLength(1);
  });

  it('never throws on random bytes and makes at most one record per data byte', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 600 }), fc.boolean(), (tail, asV9) => {
        const bytes = Uint8Array.from([0, asV9 ? 9 : 5, ...tail]);
        const { records } = parse(bytes);
        expect(records.length).toBeLessThanOrEqual(bytes.length);
      }),
      { numRuns: 500 },
    );
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), (body) => {
        const source: ParseSource = { originState: new Map() };
        parse(
          v9(1, flowset(0, [...u16(256), ...u16(2), ...u16(1), ...u16(1), ...u16(2), ...u16(2)])),
          {},
          source,
        );
        const { records } = parse(v9(1, flowset(256, [...body])), {}, source);
        expect(records.length).toBe(Math.floor(body.length / 3));
      }),
      { numRuns: 200 },
    );
  });
});

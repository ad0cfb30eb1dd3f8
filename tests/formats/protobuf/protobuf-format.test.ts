import { copyFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { ConfigError } from '../../../src/errors/config-error';
import { resolveFormatConfig } from '../../../src/formats/format-config';
import { parseStream, parseWhole } from '../../../src/formats/parse-helpers';
import { protobufFormat } from '../../../src/formats/protobuf/protobuf-format';
import { MAX_PROTOBUF_MESSAGE_BYTES } from '../../../src/formats/protobuf/protobuf-parser';
import { toTagged } from '../fixture-cases';

const DIR = join(__dirname, '..', '..', 'fixtures', 'formats', 'protobuf');
const OPTIONS = { resourcesDirectory: DIR, protobufDescriptorFile: 'shop.desc', messageType: 'shop.Order' };

function varint(n: number): number[] {
  const out: number[] = [];
  let rest = n;
  do {
    const byte = rest % 128;
    rest = Math.floor(rest / 128);
    out.push(rest > 0 ? byte | 0x80 : byte);
  } while (rest > 0);
  return out;
}

/** An Order with only `customer` (field 2) set to `text`. */
function order(customer: string): Buffer {
  const text = Buffer.from(customer);
  return Buffer.concat([Buffer.from([0x12, ...varint(text.length)]), text]);
}

function delimited(...messages: Buffer[]): Buffer {
  return Buffer.concat(messages.flatMap((m) => [Buffer.from(varint(m.length)), m]));
}

function customers(records: readonly { value: unknown }[]): unknown[] {
  return records.map((r) => {
    const fields = toTagged(r.value as never) as { $listMap: [string, unknown][] };
    return fields.$listMap.find(([k]) => k === 'customer')?.[1];
  });
}

function configProblem(options: Record<string, unknown>): unknown {
  try {
    protobufFormat.createParser(resolveFormatConfig(protobufFormat, options), { originState: new Map() });
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).problems;
  }
  throw new Error('createParser accepted the options');
}

describe('protobuf format', () => {
  const huge = order('x'.repeat(MAX_PROTOBUF_MESSAGE_BYTES));
  const body = delimited(order('before'), huge, order('after'));

  it('skips a delimited message over 1 MB with a failure and reads the next message', () => {
    const result = parseWhole(protobufFormat, OPTIONS, body);
    expect(customers(result.records)).toEqual(['before', 'after']);
    const prefixAt = order('before').length + 1;
    expect(result.failures).toEqual([
      expect.objectContaining({
        code: 'ORIGIN_PROTOBUF_TOO_LARGE',
        recordIndex: 1,
        byteOffset: prefixAt,
        canContinue: true,
        excerpt: Buffer.from(varint(huge.length)).toString('hex'),
      }),
    ]);
    expect(result.failures[0]?.message).toContain(`holds ${huge.length} bytes`);
  });

  it('gives the same for an oversized message however the body is chunked', async () => {
    const whole = parseWhole(protobufFormat, OPTIONS, body);
    const chunks = function* () {
      for (let at = 0; at < body.length; at += 65_536) yield body.subarray(at, at + 65_536);
    };
    expect(await parseStream(protobufFormat, OPTIONS, chunks())).toEqual(whole);
    const tiny = [body.subarray(0, 9), body.subarray(9, 12), body.subarray(12)];
    expect(await parseStream(protobufFormat, OPTIONS, tiny)).toEqual(whole);
  });

  it('reads a message of exactly 1 MB', () => {
    // One tag byte and a three-byte length before the text.
    const text = 'y'.repeat(MAX_PROTOBUF_MESSAGE_BYTES - 4);
    const message = order(text);
    expect(message.length).toBe(MAX_PROTOBUF_MESSAGE_BYTES);
    const result = parseWhole(protobufFormat, OPTIONS, delimited(message));
    expect([result.failures, customers(result.records)]).toEqual([[], [text]]);
  });

  it('refuses a single (not delimited) body over 1 MB with one failure and no record', async () => {
    const options = { ...OPTIONS, delimitedMessages: false };
    const whole = parseWhole(protobufFormat, options, huge);
    expect(whole.records).toEqual([]);
    expect(whole.failures).toEqual([
      expect.objectContaining({ code: 'ORIGIN_PROTOBUF_TOO_LARGE', byteOffset: 0, canContinue: false }),
    ]);
    expect(whole.failures[0]?.message).toContain(`holds ${huge.length} bytes`);
    const halves = [huge.subarray(0, 100), huge.subarray(100, 600_000), huge.subarray(600_000)];
    expect(await parseStream(protobufFormat, options, halves)).toEqual(whole);
  });

  it('reads a whole body as one message when delimitedMessages is false', () => {
    const result = parseWhole(protobufFormat, { ...OPTIONS, delimitedMessages: false }, order('solo'));
    expect([result.failures, customers(result.records)]).toEqual([[], ['solo']]);
  });

  it('reads messages with a relative resourcesDirectory against the working directory', () => {
    const options = { ...OPTIONS, resourcesDirectory: resolve(DIR).slice(process.cwd().length + 1) };
    expect(customers(parseWhole(protobufFormat, options, delimited(order('rel'))).records)).toEqual(['rel']);
  });

  it('reads a descriptor path that leaves and re-enters the resources directory', () => {
    const options = { ...OPTIONS, protobufDescriptorFile: '../protobuf/shop.desc' };
    expect(customers(parseWhole(protobufFormat, options, delimited(order('back'))).records)).toEqual([
      'back',
    ]);
  });

  it('rejects a descriptor path that escapes the resources directory', () => {
    const escape = [{ path: '/protobufDescriptorFile', message: 'must be a file inside resourcesDirectory' }];
    expect(configProblem({ ...OPTIONS, protobufDescriptorFile: '../avro/README.md' })).toEqual(escape);
    expect(configProblem({ ...OPTIONS, protobufDescriptorFile: '../../../../package.json' })).toEqual(escape);
    expect(configProblem({ ...OPTIONS, protobufDescriptorFile: resolve('package.json') })).toEqual(escape);
    expect(configProblem({ ...OPTIONS, protobufDescriptorFile: '.' })).toEqual(escape);
  });

  it('checks the descriptor path once per resolved config, not for every parser made from it', () => {
    const root = mkdtempSync(join(tmpdir(), 'protobuf-format-'));
    try {
      copyFileSync(join(DIR, 'shop.desc'), join(root, 'shop.desc'));
      const config = resolveFormatConfig(protobufFormat, { ...OPTIONS, resourcesDirectory: root });
      const source = { originState: new Map() };
      protobufFormat.createParser(config, source);
      // Gone from the disk: a parser of the same config still comes, one of a new config is refused.
      rmSync(join(root, 'shop.desc'));
      const parser = protobufFormat.createParser(config, source);
      expect(customers(parser.push(delimited(order('again'))).records)).toEqual(['again']);
      expect(configProblem({ ...OPTIONS, resourcesDirectory: root })).toEqual([
        { path: '/protobufDescriptorFile', message: `cannot be read (${join(root, 'shop.desc')})` },
      ]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('rejects a symbolic link inside the resources directory that points outside it', () => {
    const root = mkdtempSync(join(tmpdir(), 'protobuf-format-'));
    try {
      const inside = join(root, 'resources');
      const outside = join(root, 'outside.desc');
      copyFileSync(join(DIR, 'shop.desc'), outside);
      mkdirSync(inside);
      symlinkSync(outside, join(inside, 'link.desc'));
      copyFileSync(join(DIR, 'shop.desc'), join(inside, 'real.desc'));
      const base = { ...OPTIONS, resourcesDirectory: inside };
      expect(configProblem({ ...base, protobufDescriptorFile: 'link.desc' })).toEqual([
        { path: '/protobufDescriptorFile', message: 'must be a file inside resourcesDirectory' },
      ]);
      const ok = parseWhole(
        protobufFormat,
        { ...base, protobufDescriptorFile: 'real.desc' },
        delimited(order('in')),
      );
      expect(customers(ok.records)).toEqual(['in']);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('rejects missing options, an unreadable descriptor and an unknown message type', () => {
    expect(configProblem({})).toEqual([
      { path: '/protobufDescriptorFile', message: 'must name a descriptor file (.desc)' },
      { path: '/messageType', message: 'must name a message type as <package>.<message>' },
    ]);
    expect(configProblem({ ...OPTIONS, protobufDescriptorFile: 'missing.desc' })).toEqual([
      { path: '/protobufDescriptorFile', message: expect.stringContaining('cannot be read') },
    ]);
    expect(configProblem({ ...OPTIONS, protobufDescriptorFile: 'generate.sh' })).toEqual([
      {
        path: '/protobufDescriptorFile',
        message: expect.stringContaining('is not a readable FileDescriptorSet'),
      },
    ]);
    expect(configProblem({ ...OPTIONS, messageType: 'shop.Nope' })).toEqual([
      { path: '/messageType', message: "names no message type of the descriptor set: 'shop.Nope'" },
    ]);
    expect(configProblem({ ...OPTIONS, messageType: 'shop.Status' })).toEqual([
      { path: '/messageType', message: "names no message type of the descriptor set: 'shop.Status'" },
    ]);
  });

  it('reads a message type of an imported file of the descriptor set', () => {
    const address = Buffer.from([0x12, 0x05, ...Buffer.from('Paris'), 0x18, 0x03]);
    const result = parseWhole(
      protobufFormat,
      { ...OPTIONS, messageType: 'common.Address' },
      delimited(address),
    );
    expect(result.records.map((r) => toTagged(r.value))).toEqual([
      {
        $listMap: [
          ['street', ''],
          ['city', 'Paris'],
          ['floor', -2],
        ],
      },
    ]);
  });

  it('reports a message the decoder refuses with its detail, and reads the next one', () => {
    // customer (a proto3 string) holding bytes that are not UTF-8.
    const bad = Buffer.from([0x12, 0x02, 0xc3, 0x28]);
    const result = parseWhole(protobufFormat, OPTIONS, delimited(order('a'), bad, order('b')));
    expect(customers(result.records)).toEqual(['a', 'b']);
    expect(result.failures).toEqual([
      expect.objectContaining({
        code: 'ORIGIN_PROTOBUF_MALFORMED',
        message:
          "The protobuf message at byte 4 cannot be read as shop.Order: field 'customer' holds invalid UTF-8 at byte 2.",
        recordIndex: 1,
        byteOffset: 4,
        excerpt: bad.toString('hex'),
        canContinue: true,
      }),
    ]);
  });

  it('ends the input at a length prefix longer than 10 bytes', () => {
    const bad = Buffer.concat([delimited(order('ok')), Buffer.alloc(11, 0xff)]);
    const result = parseWhole(protobufFormat, OPTIONS, bad);
    expect(customers(result.records)).toEqual(['ok']);
    expect(result.failures).toEqual([
      expect.objectContaining({ code: 'ORIGIN_PROTOBUF_MALFORMED', canContinue: false, recordIndex: 1 }),
    ]);
  });
});

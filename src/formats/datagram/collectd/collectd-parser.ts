import { createDecipheriv, createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { TextDecoder } from 'node:util';
import type { ErrorCode, ErrorParams } from '../../../errors/error-table';
import { field, type FieldValue, type PlainMap } from '../../../record/field';
import type { ParseFailure, ParsedRecord, ParseResult, Parser } from '../../data-format';
import { failure } from '../../failure';
import { removeControlCharactersFromText } from '../../text-input';
import type { TypesDb } from './types-db';

/** What a {@link CollectdParser} needs, resolved by the datagram format from its options. */
export interface CollectdParserOptions {
  /** Names of the values of each data set; a type not listed (or listed with another value count) gets DS type names. */
  readonly typesDb: TypesDb;
  /** authFile's users (user → password), or undefined when no authFile is configured. */
  readonly users: ReadonlyMap<string, string> | undefined;
  /** Store `time_hr`/`interval_hr` as UNIX milliseconds under `time`/`interval`. */
  readonly convertHiResTimeAndInterval: boolean;
  /** Leave `interval`/`interval_hires` out of the records. */
  readonly excludeInterval: boolean;
  /** Charset of the string parts (host, plugin, …, message). */
  readonly charset: string;
  /** Remove ASCII control characters other than tab, LF and CR from the string parts (spec §2.3). */
  readonly ignoreControlCharacters?: boolean;
}

// Part types of the collectd binary protocol (collectd's src/network.h).
const HOST = 0x0000;
const TIME = 0x0001;
const PLUGIN = 0x0002;
const PLUGIN_INSTANCE = 0x0003;
const TYPE = 0x0004;
const TYPE_INSTANCE = 0x0005;
const VALUES = 0x0006;
const INTERVAL = 0x0007;
const TIME_HR = 0x0008;
const INTERVAL_HR = 0x0009;
const MESSAGE = 0x0100;
const SEVERITY = 0x0101;
const SIGNATURE = 0x0200;
const ENCRYPTION = 0x0210;

const STRING_KEYS: Readonly<Record<number, string>> = {
  [HOST]: 'host',
  [PLUGIN]: 'plugin',
  [PLUGIN_INSTANCE]: 'plugin_instance',
  [TYPE]: 'type',
  [TYPE_INSTANCE]: 'type_instance',
  [MESSAGE]: 'message',
};

const DS_TYPE_NAMES = ['counter', 'gauge', 'derive', 'absolute'] as const;
const HEADER = 4;
const HMAC_BYTES = 32;
const SHA1_BYTES = 20;
const IV_BYTES = 16;
// An encrypted part holds a whole packet, which may hold another encrypted part; each level is smaller than the
// last, but a bound keeps a crafted packet from recursing deeply.
const MAX_NESTING = 4;
const EXCERPT_BYTES = 64;
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);
const MIN_SAFE = -MAX_SAFE;

/** Thrown inside the parse only, caught in {@link CollectdParser.end}: it never leaves the parser. */
class PacketFailure extends Error {
  constructor(
    readonly code: ErrorCode,
    readonly params: ErrorParams,
    readonly offset: number,
  ) {
    super(code);
  }
}

/** The state the parts of one packet accumulate (collectd's `value_list_t` being filled in). */
interface PacketState {
  readonly fields: Map<string, FieldValue>;
}

/**
 * Parses one collectd binary-protocol packet (the network plugin's UDP payload) into one record per VALUES
 * part. Each record is a map of the state the parts before it set (`host`, `plugin`, `plugin_instance`, `type`,
 * `type_instance`, `time` or `time_hires`, `interval` or `interval_hires`, `severity`, `message`), keys absent
 * until their part appears, plus one key per value: its types.db data-source name, else the DS type name
 * (`gauge`, `counter_0`, …; an index suffix only when the part holds several values).
 *
 * COUNTER and ABSOLUTE are unsigned 64-bit, DERIVE signed 64-bit: numbers, or bigints beyond 2^53. GAUGE is a
 * little-endian double. `time_hires`/`interval_hires` are the raw 2^-30 s counts (bigint beyond 2^53); with
 * `convertHiResTimeAndInterval` they are UNIX milliseconds (rounded as collectd's `CDTIME_T_TO_MS`) under
 * `time`/`interval`. The old one-second `time`/`interval` parts are kept in seconds under `time`/`interval`.
 *
 * Signed parts (0x0200) are checked with HMAC-SHA-256 over the user name and the rest of the packet, encrypted
 * parts (0x0210) are decrypted with AES-256-OFB (key SHA-256 of the password) and checked with their SHA-1; both
 * use the users of authFile. Without authFile a signed packet is read unchecked and an encrypted one is a
 * failure, as collectd's own receiver does at SecurityLevel None. A malformed part, an unknown user, a wrong
 * signature or a failed check ends the packet with one failure (`canContinue: false`); records of the parts
 * before it are kept. Unknown part types are skipped, as the protocol asks.
 *
 * The whole body is one packet: chunks are copied and joined, and the parse happens in `end`.
 */
export class CollectdParser implements Parser {
  readonly #options: CollectdParserOptions;
  readonly #decoder: TextDecoder;
  #chunks: Uint8Array[] = [];
  #size = 0;

  constructor(options: CollectdParserOptions) {
    this.#options = options;
    this.#decoder = new TextDecoder(options.charset);
  }

  push(chunk: Uint8Array): ParseResult {
    if (chunk.length > 0) {
      this.#chunks.push(new Uint8Array(chunk));
      this.#size += chunk.length;
    }
    return { records: [], failures: [] };
  }

  end(): ParseResult {
    const packet = Buffer.concat(this.#chunks, this.#size);
    this.#chunks = [];
    return this.#parse(packet);
  }

  /** `push(bytes)` then `end()`, without copying the bytes first. */
  parseAll(bytes: Uint8Array): ParseResult {
    if (this.#size > 0) {
      this.push(bytes);
      return this.end();
    }
    return this.#parse(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
  }

  #parse(packet: Buffer): ParseResult {
    const records: ParsedRecord[] = [];
    const failures: ParseFailure[] = [];
    try {
      this.#parsePacket(packet, 0, { fields: new Map() }, records, 0);
    } catch (error) {
      if (!(error instanceof PacketFailure)) throw error;
      failures.push(
        failure({
          code: error.code,
          params: error.params,
          recordIndex: records.length,
          byteOffset: error.offset,
          excerpt: packet.subarray(error.offset, error.offset + EXCERPT_BYTES).toString('hex'),
          canContinue: false,
        }),
      );
    }
    return { records, failures };
  }

  /**
   * Reads the parts of `buffer` (the packet, or a decrypted payload whose offsets are reported as `base`, the
   * offset of its encryption part) into `records`.
   */
  #parsePacket(
    buffer: Buffer,
    base: number,
    state: PacketState,
    records: ParsedRecord[],
    depth: number,
  ): void {
    let offset = 0;
    while (offset < buffer.length) {
      const at = base === 0 ? offset : base;
      if (buffer.length - offset < HEADER) {
        throw malformed(at, `${buffer.length - offset} trailing bytes are too few for a part header`);
      }
      const type = buffer.readUInt16BE(offset);
      const length = buffer.readUInt16BE(offset + 2);
      if (length < HEADER) throw malformed(at, `part 0x${hex(type)} declares length ${length}, below 4`);
      if (length > buffer.length - offset) {
        throw malformed(
          at,
          `part 0x${hex(type)} declares length ${length} but only ${buffer.length - offset} bytes remain`,
        );
      }
      const part = buffer.subarray(offset, offset + length);
      if (type === SIGNATURE) {
        this.#checkSignature(part, buffer.subarray(offset + length), at);
      } else if (type === ENCRYPTION) {
        if (depth >= MAX_NESTING) throw malformed(at, `encrypted parts nest deeper than ${MAX_NESTING}`);
        const payload = this.#decrypt(part, at);
        this.#parsePacket(payload, at, state, records, depth + 1);
      } else {
        this.#readPart(type, part, at, state, records);
      }
      offset += length;
    }
  }

  #readPart(type: number, part: Buffer, at: number, state: PacketState, records: ParsedRecord[]): void {
    const { fields } = state;
    const stringKey = STRING_KEYS[type];
    if (stringKey !== undefined) {
      fields.set(stringKey, this.#string(type, part, at));
    } else if (type === TIME || type === TIME_HR) {
      fields.delete('time');
      fields.delete('time_hires');
      this.#setTime('time', type === TIME_HR, numberPart(type, part, at), fields);
    } else if (type === INTERVAL || type === INTERVAL_HR) {
      fields.delete('interval');
      fields.delete('interval_hires');
      this.#setTime('interval', type === INTERVAL_HR, numberPart(type, part, at), fields);
    } else if (type === SEVERITY) {
      fields.set('severity', exact(numberPart(type, part, at)));
    } else if (type === VALUES) {
      records.push({ value: this.#record(part, at, fields) });
    }
  }

  #setTime(key: 'time' | 'interval', hiRes: boolean, raw: bigint, fields: Map<string, FieldValue>): void {
    if (key === 'interval' && this.#options.excludeInterval) return;
    if (!hiRes) fields.set(key, exact(raw));
    else if (this.#options.convertHiResTimeAndInterval) fields.set(key, Number(hiResToMs(raw)));
    else fields.set(`${key}_hires`, exact(raw));
  }

  #string(type: number, part: Buffer, at: number): string {
    if (part.length < HEADER + 1) throw malformed(at, `string part 0x${hex(type)} is empty`);
    if (part[part.length - 1] !== 0) {
      throw malformed(at, `string part 0x${hex(type)} does not end with a NUL byte`);
    }
    const text = this.#decoder.decode(part.subarray(HEADER, part.length - 1));
    return this.#options.ignoreControlCharacters === true ? removeControlCharactersFromText(text) : text;
  }

  #record(part: Buffer, at: number, fields: Map<string, FieldValue>): PlainMap {
    if (part.length < HEADER + 2) throw malformed(at, 'values part has no value count');
    const count = part.readUInt16BE(HEADER);
    if (count === 0) throw malformed(at, 'values part holds no values');
    if (part.length !== HEADER + 2 + count * 9) {
      throw malformed(
        at,
        `values part of ${count} values has length ${part.length}, not ${HEADER + 2 + count * 9}`,
      );
    }
    const record: PlainMap = {};
    for (const [key, value] of fields) record[key] = value;
    const typeName = fields.get('type');
    const sources = typeof typeName === 'string' ? this.#options.typesDb.get(typeName) : undefined;
    const names = sources?.length === count ? sources : undefined;
    const valuesAt = HEADER + 2 + count;
    for (let i = 0; i < count; i++) {
      const dsType = part[HEADER + 2 + i] ?? -1;
      const dsName = DS_TYPE_NAMES[dsType];
      if (dsName === undefined) throw malformed(at, `value ${i} has unknown data source type ${dsType}`);
      const valueAt = valuesAt + i * 8;
      const value =
        dsName === 'gauge'
          ? gauge(part.readDoubleLE(valueAt))
          : exact(dsName === 'derive' ? part.readBigInt64BE(valueAt) : part.readBigUInt64BE(valueAt));
      record[names?.[i]?.name ?? (count === 1 ? dsName : `${dsName}_${i}`)] = value;
    }
    return record;
  }

  #checkSignature(part: Buffer, signed: Buffer, at: number): void {
    if (part.length <= HEADER + HMAC_BYTES) throw malformed(at, 'signature part has no user name');
    const user = part.subarray(HEADER + HMAC_BYTES).toString('utf8');
    const users = this.#options.users;
    // Without authFile collectd accepts a signed packet unchecked (SecurityLevel None); so do we.
    if (!users) return;
    const password = users.get(user);
    if (password === undefined)
      throw new PacketFailure('ORIGIN_COLLECTD_USER_UNKNOWN', { mode: 'signed', user }, at);
    const hmac = createHmac('sha256', password)
      .update(part.subarray(HEADER + HMAC_BYTES))
      .update(signed)
      .digest();
    if (!timingSafeEqual(hmac, part.subarray(HEADER, HEADER + HMAC_BYTES))) {
      throw new PacketFailure('ORIGIN_COLLECTD_SIGNATURE_INVALID', { user }, at);
    }
  }

  #decrypt(part: Buffer, at: number): Buffer {
    if (part.length < HEADER + 2) throw malformed(at, 'encryption part has no user name length');
    const userLength = part.readUInt16BE(HEADER);
    const ivAt = HEADER + 2 + userLength;
    if (userLength === 0 || part.length < ivAt + IV_BYTES + SHA1_BYTES) {
      throw malformed(at, `encryption part of length ${part.length} is too short for its header`);
    }
    const user = part.subarray(HEADER + 2, ivAt).toString('utf8');
    if (!this.#options.users) throw new PacketFailure('ORIGIN_COLLECTD_AUTH_FILE_MISSING', { user }, at);
    const password = this.#options.users.get(user);
    if (password === undefined) {
      throw new PacketFailure('ORIGIN_COLLECTD_USER_UNKNOWN', { mode: 'encrypted', user }, at);
    }
    const key = createHash('sha256').update(password).digest();
    const decipher = createDecipheriv('aes-256-ofb', key, part.subarray(ivAt, ivAt + IV_BYTES));
    const plain = Buffer.concat([decipher.update(part.subarray(ivAt + IV_BYTES)), decipher.final()]);
    const payload = plain.subarray(SHA1_BYTES);
    const digest = createHash('sha1').update(payload).digest();
    if (!timingSafeEqual(digest, plain.subarray(0, SHA1_BYTES))) {
      throw new PacketFailure('ORIGIN_COLLECTD_DECRYPTION_FAILED', { user }, at);
    }
    return payload;
  }
}

function numberPart(type: number, part: Buffer, at: number): bigint {
  if (part.length !== HEADER + 8) {
    throw malformed(at, `numeric part 0x${hex(type)} has length ${part.length}, not 12`);
  }
  return part.readBigUInt64BE(HEADER);
}

function malformed(offset: number, detail: string): PacketFailure {
  return new PacketFailure('ORIGIN_COLLECTD_MALFORMED', { offset, detail }, offset);
}

function hex(type: number): string {
  return type.toString(16).padStart(4, '0');
}

/** A number when it is exact as a double, else the bigint itself. */
function exact(value: bigint): number | bigint {
  return value <= MAX_SAFE && value >= MIN_SAFE ? Number(value) : value;
}

/** collectd's `CDTIME_T_TO_MS`: 2^-30 s units to milliseconds, rounded to nearest. */
export function hiResToMs(value: bigint): bigint {
  return (value >> 30n) * 1000n + (((value & 0x3fffffffn) * 1000n + (1n << 29n)) >> 30n);
}

/**
 * A GAUGE value. It is a DOUBLE; a whole number in plain form would read as INTEGER or LONG, so it is wrapped to
 * keep its type.
 */
function gauge(value: number): FieldValue {
  return Number.isInteger(value) ? field('DOUBLE', value) : value;
}

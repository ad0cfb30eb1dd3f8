import { isUtf8 } from 'node:buffer';
import { utf8Bytes, type ShortStrings, type Utf8Bytes } from '../short-strings';

/**
 * How deep messages and groups may nest below the top message: deeper input is refused before the call stack
 * runs out (protobufjs's and protoc's recursion limit).
 */
export const MAX_PROTOBUF_DEPTH = 100;

/**
 * Why bytes are not a message of the type, thrown by `ProtobufDecoder.decode`: `message` is a short detail (what is
 * wrong and at which byte of the message) for `ORIGIN_PROTOBUF_MALFORMED`.
 */
export class ProtobufDecodeError extends Error {
  constructor(detail: string) {
    super(detail);
    this.name = 'ProtobufDecodeError';
  }
}

/**
 * A read position in one input and the wire-format reads, each bounded by an `end` within the input: every read
 * checks that its bytes lie before `end` and throws a {@link ProtobufDecodeError} otherwise, varints are at most 10
 * bytes, lengths below 2^31 and tags 32 bits. One per input buffer (see `protobufInput`), shared by every message
 * decoded from it; the caller keeps the bytes unchanged while it reads.
 */
export class WireReader {
  readonly #bytes: Uint8Array;
  readonly #text: Utf8Bytes;
  readonly #strings: ShortStrings;
  readonly #view: DataView;
  #position = 0;
  /** Where the message being decoded starts. */
  #origin = 0;
  /** Low and high 32 bits (unsigned) of the last 64-bit value read. */
  #low = 0;
  #high = 0;

  constructor(bytes: Uint8Array, strings: ShortStrings) {
    // A plain Uint8Array view: its slice copies into a plain Uint8Array (a Buffer's slice is a view).
    this.#bytes = new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.length);
    this.#text = utf8Bytes(bytes);
    this.#strings = strings;
    this.#view = new DataView(bytes.buffer, bytes.byteOffset, bytes.length);
  }

  /** Starts reading a message at `start`: byte numbers in errors count from there. */
  begin(start: number): void {
    this.#position = start;
    this.#origin = start;
  }

  /** A decode error: `detail` and the byte of the message it happened at (default: the read position). */
  error(detail: string, at = this.#position): ProtobufDecodeError {
    return new ProtobufDecodeError(`${detail} at byte ${at - this.#origin}`);
  }

  get length(): number {
    return this.#bytes.length;
  }

  get position(): number {
    return this.#position;
  }

  get low(): number {
    return this.#low;
  }

  get high(): number {
    return this.#high;
  }

  /** The varint at the read position, as its low 32 bits (unsigned); at most 10 bytes, all before `end`. */
  varint32(end: number): number {
    const bytes = this.#bytes;
    let position = this.#position;
    if (end - position >= 10) {
      let byte = bytes[position++]!;
      let value = byte & 0x7f;
      if (byte < 0x80) {
        this.#position = position;
        return value;
      }
      byte = bytes[position++]!;
      value |= (byte & 0x7f) << 7;
      if (byte < 0x80) {
        this.#position = position;
        return value;
      }
      byte = bytes[position++]!;
      value |= (byte & 0x7f) << 14;
      if (byte < 0x80) {
        this.#position = position;
        return value;
      }
      byte = bytes[position++]!;
      value |= (byte & 0x7f) << 21;
      if (byte < 0x80) {
        this.#position = position;
        return value >>> 0;
      }
      byte = bytes[position++]!;
      value = (value | (byte << 28)) >>> 0;
      // Bytes 6 to 10 only hold bits past 32 (a negative int32 is written as 10 bytes).
      for (let i = 0; byte >= 0x80 && i < 5; i++) byte = bytes[position++]!;
      if (byte >= 0x80) throw this.#tooLong();
      this.#position = position;
      return value;
    }
    this.varint64(end);
    return this.#low;
  }

  /** The varint at the read position into {@link low} and {@link high}; at most 10 bytes, all before `end`. */
  varint64(end: number): void {
    const bytes = this.#bytes;
    let position = this.#position;
    let low = 0;
    let high = 0;
    let byte = 0x80;
    let shift = 0;
    for (; shift < 28 && byte >= 0x80; shift += 7) {
      if (position >= end) throw this.#truncated();
      byte = bytes[position++]!;
      low |= (byte & 0x7f) << shift;
    }
    if (byte >= 0x80) {
      if (position >= end) throw this.#truncated();
      byte = bytes[position++]!;
      low |= byte << 28;
      high = (byte & 0x7f) >>> 4;
      for (shift = 3; shift <= 31 && byte >= 0x80; shift += 7) {
        if (position >= end) throw this.#truncated();
        byte = bytes[position++]!;
        high |= (byte & 0x7f) << shift;
      }
      if (byte >= 0x80) throw this.#tooLong();
    }
    this.#position = position;
    this.#low = low >>> 0;
    this.#high = high >>> 0;
  }

  /** A varint as protobufjs reads a bool: true when any of its bits is set. */
  bool(end: number): boolean {
    const bytes = this.#bytes;
    let position = this.#position;
    let bits = 0;
    for (let i = 0; i < 10; i++) {
      if (position >= end) throw this.#truncated();
      const byte = bytes[position++]!;
      bits |= byte & 0x7f;
      if (byte < 0x80) {
        this.#position = position;
        return bits !== 0;
      }
    }
    throw this.#tooLong();
  }

  /** A field tag: a varint of at most 5 bytes that fits 32 bits. */
  tag(end: number): number {
    const bytes = this.#bytes;
    const position = this.#position;
    if (end - position >= 2) {
      const first = bytes[position]!;
      if (first < 0x80) {
        this.#position = position + 1;
        return first;
      }
      const second = bytes[position + 1]!;
      if (second < 0x80) {
        this.#position = position + 2;
        return (first & 0x7f) | (second << 7);
      }
    }
    const start = position;
    this.varint64(end);
    if (this.#high !== 0 || this.#position - start > 5) {
      throw this.error('invalid tag encoding', start);
    }
    return this.#low;
  }

  /** A length prefix (below 2^31) whose bytes all lie before `end`; the read position moves past the prefix. */
  lengthPrefix(end: number): number {
    const at = this.#position;
    if (at < end) {
      const byte = this.#bytes[at]!;
      if (byte < 0x80) {
        if (byte > end - at - 1) throw this.#truncated();
        this.#position = at + 1;
        return byte;
      }
    }
    this.varint64(end);
    const length = this.#low;
    if (this.#high !== 0 || length > 0x7fffffff || this.#position - at > 5) {
      throw this.error('invalid length', at);
    }
    if (length > end - this.#position) throw this.error('the message ends inside a value', at);
    return length;
  }

  /** Fixed 32 bits, little-endian, unsigned. */
  fixed32(end: number): number {
    const position = this.#position;
    if (end - position < 4) throw this.#truncated();
    this.#position = position + 4;
    return this.#view.getUint32(position, true);
  }

  /** Fixed 64 bits, little-endian, into {@link low} and {@link high}. */
  fixed64(end: number): void {
    const position = this.#position;
    if (end - position < 8) throw this.#truncated();
    this.#position = position + 8;
    this.#low = this.#view.getUint32(position, true);
    this.#high = this.#view.getUint32(position + 4, true);
  }

  /** A 32-bit IEEE 754 float, little-endian. */
  float(end: number): number {
    const position = this.#position;
    if (end - position < 4) throw this.#truncated();
    this.#position = position + 4;
    return this.#view.getFloat32(position, true);
  }

  /** A 64-bit IEEE 754 double, little-endian. */
  double(end: number): number {
    const position = this.#position;
    if (end - position < 8) throw this.#truncated();
    this.#position = position + 8;
    return this.#view.getFloat64(position, true);
  }

  /** A length-delimited string; with `verify`, bytes that are not UTF-8 are refused, else they become U+FFFD. */
  string(end: number, verify: boolean, name: string): string {
    const length = this.lengthPrefix(end);
    const start = this.#position;
    const stop = start + length;
    this.#position = stop;
    const text = this.#strings.decode(this.#bytes, this.#text, start, stop);
    // A U+FFFD in the text is either in the input or stands for bad bytes: only then is the check needed.
    if (verify && text.includes('\ufffd') && !isUtf8(this.#bytes.subarray(start, stop))) {
      throw this.error(`field '${name}' holds invalid UTF-8`, start);
    }
    return text;
  }

  /** A length-delimited byte string, copied. */
  bytes(end: number): Uint8Array {
    const length = this.lengthPrefix(end);
    const start = this.#position;
    this.#position = start + length;
    return this.#bytes.slice(start, start + length);
  }

  /** Moves past `length` bytes that lie before `end`. */
  skipBytes(length: number, end: number): void {
    if (length > end - this.#position) throw this.#truncated();
    this.#position += length;
  }

  /** Reads move {@link position} only once they succeed, so for these two it is where the failed value starts. */
  #truncated(): ProtobufDecodeError {
    return this.error('the message ends inside a value');
  }

  #tooLong(): ProtobufDecodeError {
    return this.error('a varint longer than 10 bytes');
  }
}

/** A signed 64-bit value from its unsigned 32-bit halves. */
export function signed64(low: number, high: number): bigint {
  // Values within ±2^53 are exact as numbers, and BigInt of a number is cheaper than shifting bigints.
  if (high < 0x200000) return BigInt(high * 4294967296 + low);
  if (high >= 0xffe00000) return BigInt((high - 4294967296) * 4294967296 + low);
  return BigInt.asIntN(64, (BigInt(high) << 32n) | BigInt(low));
}

/** An unsigned 64-bit value from its unsigned 32-bit halves. */
export function unsigned64(low: number, high: number): bigint {
  if (high < 0x200000) return BigInt(high * 4294967296 + low);
  return (BigInt(high) << 32n) | BigInt(low);
}

/** The zig-zag decoded signed value of the last varint read. */
export function zigzag64(reader: WireReader): bigint {
  const low = reader.low;
  const high = reader.high;
  const mask = -(low & 1);
  return signed64((((low >>> 1) | (high << 31)) ^ mask) >>> 0, ((high >>> 1) ^ mask) >>> 0);
}

/**
 * Moves past one field of wire type `wireType` that is not read (unknown, or sent with another wire type), groups
 * included: a group's fields are skipped up to its end-group tag, one nesting level deeper than `depth`.
 */
export function skipField(
  reader: WireReader,
  wireType: number,
  number: number,
  end: number,
  depth: number,
): void {
  if (depth > MAX_PROTOBUF_DEPTH) throw tooDeep();
  if (number === 0) throw new ProtobufDecodeError('illegal tag: field number 0');
  switch (wireType) {
    case 0:
      reader.varint64(end);
      return;
    case 1:
      reader.skipBytes(8, end);
      return;
    case 2:
      reader.skipBytes(reader.lengthPrefix(end), end);
      return;
    case 3:
      for (;;) {
        const at = reader.position;
        const tag = reader.tag(end);
        const inner = tag >>> 3;
        if ((tag & 7) === 4) {
          if (inner !== number) throw reader.error('invalid end group tag', at);
          return;
        }
        skipField(reader, tag & 7, inner, end, depth + 1);
      }
    case 5:
      reader.skipBytes(4, end);
      return;
    default:
      throw reader.error(`invalid wire type ${wireType}`);
  }
}

/** The error for messages or groups nested deeper than {@link MAX_PROTOBUF_DEPTH}. */
export function tooDeep(): ProtobufDecodeError {
  return new ProtobufDecodeError(`messages nest deeper than ${MAX_PROTOBUF_DEPTH} levels`);
}

import type protobuf from 'protobufjs';
import type { ErrorCode, ErrorParams } from '../../errors/error-table';
import type { ParsedRecord, ParseFailure, ParseResult, Parser } from '../data-format';
import type { FieldValue } from '../../record/field';
import { failure } from '../failure';
import { PendingBytes } from '../pending-bytes';
import { ShortStrings } from '../short-strings';
import {
  ProtobufDecodeError,
  protobufDecoder,
  protobufInput,
  type ProtobufDecoder,
  type ProtobufInput,
} from './protobuf-decoder';

/** Largest message one record may come from (spec §7.6: 1 MB), in bytes. */
export const MAX_PROTOBUF_MESSAGE_BYTES = 1_048_576;
/** Bytes of the offending input a failure shows, in hex (the input is binary, not text). */
const EXCERPT_BYTES = 128;
const MAX_VARINT_BYTES = 10;

function hex(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.length, EXCERPT_BYTES)).toString('hex');
}

/**
 * Reads protobuf messages of one type into records (values decoded by {@link ProtobufDecoder}, no header
 * attributes).
 *
 * Delimited (the default): each message is preceded by its length as a varint, many per body, and each becomes a
 * record as soon as it has arrived; the parser holds at most one message plus the chunk that completed it. A
 * message over {@link MAX_PROTOBUF_MESSAGE_BYTES} is skipped without being held (`ORIGIN_PROTOBUF_TOO_LARGE`) and
 * one that does not decode is `ORIGIN_PROTOBUF_MALFORMED`; both go on with the next message (`canContinue: true`).
 * A length prefix longer than 10 bytes, or a body that ends inside a prefix or a message, ends the input
 * (`ORIGIN_PROTOBUF_MALFORMED`, `canContinue: false`).
 *
 * Not delimited: the whole body is one message (an empty body gives no record); over the limit it is
 * `ORIGIN_PROTOBUF_TOO_LARGE` and the bytes past the limit are counted, not held.
 *
 * Excerpts are the hex of at most 128 bytes from the start of the message (its length prefix for an oversized
 * delimited message), so every chunking gives the same failure.
 */
export class ProtobufParser implements Parser {
  readonly #type: protobuf.Type;
  readonly #decoder: ProtobufDecoder;
  readonly #delimited: boolean;
  readonly #pending = new PendingBytes(1);
  // Short strings shared by the records of this body (see ShortStrings).
  readonly #strings = new ShortStrings();
  /** Bytes of an oversized delimited message still to drop as they arrive. */
  #skip = 0;
  /** Bytes of an oversized single message seen past what is held. */
  #dropped = 0;
  #index = 0;
  #stopped = false;

  constructor(type: protobuf.Type, delimitedMessages: boolean) {
    this.#type = type;
    this.#decoder = protobufDecoder(type);
    this.#delimited = delimitedMessages;
  }

  push(chunk: Uint8Array): ParseResult {
    if (this.#stopped || chunk.length === 0) return emptyResult();
    if (!this.#delimited) {
      if (this.#pending.length + this.#dropped + chunk.length > MAX_PROTOBUF_MESSAGE_BYTES) {
        // Only the excerpt is still needed; the rest is counted for the failure's size.
        const keep = Math.max(0, Math.min(chunk.length, EXCERPT_BYTES - this.#pending.length));
        if (keep > 0) this.#pending.append(chunk.subarray(0, keep));
        this.#dropped += chunk.length - keep;
      } else {
        this.#pending.append(chunk);
      }
      return emptyResult();
    }
    let rest = chunk;
    if (this.#skip > 0) {
      const dropped = Math.min(this.#skip, rest.length);
      this.#skip -= dropped;
      this.#pending.base += dropped;
      rest = rest.subarray(dropped);
      if (rest.length === 0) return emptyResult();
    }
    this.#pending.append(rest);
    if (!this.#pending.ready) return emptyResult();
    return this.#readDelimited(false);
  }

  end(): ParseResult {
    if (this.#stopped) return emptyResult();
    const result = this.#delimited ? this.#readDelimited(true) : this.#readSingle();
    this.#stopped = true;
    this.#pending.clear();
    return result;
  }

  #readSingle(): ParseResult {
    const buf = this.#pending.take();
    if (this.#dropped > 0) {
      const size = buf.length + this.#dropped;
      return { records: [], failures: [this.#tooLarge(0, size, buf)] };
    }
    if (buf.length === 0) return emptyResult();
    const records: ParsedRecord[] = [];
    const failures: ParseFailure[] = [];
    this.#decode(buf, protobufInput(buf, this.#strings), 0, buf.length, 0, records, failures);
    return { records, failures };
  }

  /** Reads every complete message buffered; `final` when no more input comes, so whatever is missing is truncation. */
  #readDelimited(final: boolean): ParseResult {
    const buf = this.#pending.take();
    const records: ParsedRecord[] = [];
    const failures: ParseFailure[] = [];
    // Made when the first whole message is found: the views it holds are shared by every message of the buffer.
    let input: ProtobufInput | undefined;
    let pos = 0;
    while (pos < buf.length) {
      const at = this.#pending.base + pos;
      const prefix = readVarint(buf, pos);
      if (prefix === 'invalid') {
        return this.#stop(
          records,
          failures,
          'the length prefix is longer than 10 bytes',
          at,
          // The prefix only: what follows it depends on how much of the body has arrived.
          buf.subarray(pos, pos + MAX_VARINT_BYTES),
        );
      }
      if (prefix === undefined) {
        if (final)
          return this.#stop(records, failures, 'the body ends inside a length prefix', at, buf.subarray(pos));
        return this.#keep(buf, pos, buf.length - pos + 1, records, failures);
      }
      const { length, end } = prefix;
      if (length > MAX_PROTOBUF_MESSAGE_BYTES) {
        failures.push(this.#tooLarge(at, length, buf.subarray(pos, end)));
        const available = buf.length - end;
        if (length <= available) {
          pos = end + length;
          continue;
        }
        this.#skip = length - available;
        return this.#keep(buf, buf.length, 1, records, failures);
      }
      if (end + length > buf.length) {
        if (final)
          return this.#stop(records, failures, 'the body ends inside a message', at, buf.subarray(pos));
        return this.#keep(buf, pos, end + length - pos, records, failures);
      }
      input ??= protobufInput(buf, this.#strings);
      this.#decode(buf, input, end, end + length, at, records, failures);
      pos = end + length;
    }
    return this.#keep(buf, pos, 1, records, failures);
  }

  /**
   * Decodes the message at `start` to `end` of `buf` (read through `input`, made of `buf`) into `records`, or a
   * record failure into `failures`.
   */
  #decode(
    buf: Uint8Array,
    input: ProtobufInput,
    start: number,
    end: number,
    at: number,
    records: ParsedRecord[],
    failures: ParseFailure[],
  ): void {
    const index = this.#index++;
    let value: FieldValue;
    try {
      value = this.#decoder.decode(input, start, end);
    } catch (error) {
      // Anything else is a fault of this library, not of the input, and must not pass for a bad message.
      if (!(error instanceof ProtobufDecodeError)) throw error;
      failures.push(
        this.#failure('ORIGIN_PROTOBUF_MALFORMED', this.#malformedParams(at, error.message), {
          index,
          at,
          excerpt: buf.subarray(start, end),
          canContinue: true,
        }),
      );
      return;
    }
    records.push({ value });
  }

  #tooLarge(at: number, size: number, excerpt: Uint8Array): ParseFailure {
    return this.#failure(
      'ORIGIN_PROTOBUF_TOO_LARGE',
      { offset: at, size, limit: MAX_PROTOBUF_MESSAGE_BYTES },
      { index: this.#index++, at, excerpt, canContinue: this.#delimited },
    );
  }

  #malformedParams(at: number, detail: string): ErrorParams {
    return { offset: at, messageType: this.#type.fullName.replace(/^\./, ''), detail };
  }

  #failure(
    code: ErrorCode,
    params: ErrorParams,
    where: { index: number; at: number; excerpt: Uint8Array; canContinue: boolean },
  ): ParseFailure {
    return failure({
      code,
      params,
      recordIndex: where.index,
      byteOffset: where.at,
      excerpt: hex(where.excerpt),
      canContinue: where.canContinue,
    });
  }

  /** Ends the input with a malformed-body failure, keeping the records read before it. */
  #stop(
    records: ParsedRecord[],
    failures: ParseFailure[],
    detail: string,
    at: number,
    excerpt: Uint8Array,
  ): ParseResult {
    failures.push(
      this.#failure('ORIGIN_PROTOBUF_MALFORMED', this.#malformedParams(at, detail), {
        index: this.#index,
        at,
        excerpt,
        canContinue: false,
      }),
    );
    this.#stopped = true;
    this.#pending.clear();
    return { records, failures };
  }

  /** Holds `buf` from `pos` for the next read, which waits for `need` bytes; returns what this read produced. */
  #keep(
    buf: Uint8Array,
    pos: number,
    need: number,
    records: ParsedRecord[],
    failures: ParseFailure[],
  ): ParseResult {
    this.#pending.keep(buf, pos, need);
    return { records, failures };
  }
}

function emptyResult(): ParseResult {
  return { records: [], failures: [] };
}

/**
 * The unsigned varint at `pos` and the position after it: undefined when the bytes end first, `'invalid'` when it
 * runs past 10 bytes. Values past 2^53 lose precision, which does not matter: they are far over the size limit.
 */
function readVarint(buf: Uint8Array, pos: number): { length: number; end: number } | 'invalid' | undefined {
  let value = 0;
  for (let i = 0; i < MAX_VARINT_BYTES; i++) {
    const byte = buf[pos + i];
    if (byte === undefined) return undefined;
    value += (byte & 0x7f) * 2 ** (7 * i);
    if ((byte & 0x80) === 0) return { length: value, end: pos + i + 1 };
  }
  return 'invalid';
}

import type protobuf from 'protobufjs';
import type { ListMap } from '../../record/list-map';
import { ShortStrings } from '../short-strings';
import { messagePlan, type MessagePlan } from './message-plan';
import { readMessage } from './plan-reader';
import { WireReader } from './wire-reader';

export { MAX_PROTOBUF_DEPTH, ProtobufDecodeError } from './wire-reader';

declare const inputBrand: unique symbol;

/**
 * The bytes of one input, prepared for {@link ProtobufDecoder.decode} by {@link protobufInput}: make one per
 * buffer and decode every message of that buffer through it, so that the views the decoder reads through are made
 * once, not once per message. Opaque; `length` is the byte length of the input.
 */
export interface ProtobufInput {
  readonly [inputBrand]: true;
  readonly length: number;
}

/**
 * A {@link ProtobufInput} over `bytes`, which stay owned by the caller and must not change while messages are
 * decoded from them. Decoding is synchronous, so one input serves any number of decodes one after another.
 * `strings` remembers short strings across decodes: pass one per parse (request body) to every input of it.
 */
export function protobufInput(bytes: Uint8Array, strings: ShortStrings = new ShortStrings()): ProtobufInput {
  return new WireReader(bytes, strings) as unknown as ProtobufInput;
}

/**
 * Decodes protobuf messages of one type straight from their wire bytes into record values, without building
 * protobufjs message objects first. protobufjs still loads the descriptor set; its reflection (fields, numbers,
 * types, defaults, oneofs, features) is resolved once per type into a plan (`message-plan.ts`), which
 * `plan-reader.ts` applies to the bytes (`wire-reader.ts`). No code is generated from strings: the decoder works
 * where a host refuses that (`--disallow-code-generation-from-strings`).
 *
 * The value of a message is a LIST_MAP, a list-map of one shape per message type (`ListMapShape`), holding every
 * field of the descriptor in declaration order under its descriptor name, exactly as protobufjs's decode followed
 * by the mapping of docs/formats/protobuf.md gives it: absent fields hold protobufjs's defaults, repeated fields
 * are arrays (packed and unpacked encodings both read), maps plain objects (64-bit keys as decimal text, bool keys
 * `true`/`false`), enums names (an unnamed number of an open enum stays a number; a closed enum drops it), bytes
 * fresh `Uint8Array`s, 64-bit integers bigints, float FLOAT fields, double numbers (DOUBLE fields when integral,
 * see `doubleValue`). Of a oneof only the member read last is set, the others are null; a singular message field
 * that occurs twice is merged, and for other singular fields the last value wins. Unknown fields, and known ones
 * sent with another wire type, are skipped (groups included).
 */
export class ProtobufDecoder {
  readonly #plan: MessagePlan;

  /** Prefer {@link protobufDecoder}, which resolves each type once. */
  constructor(type: protobuf.Type) {
    this.#plan = messagePlan(type);
  }

  /**
   * The record value of the message in `input` from `start` to `end` (default: all of it). Throws a
   * {@link ProtobufDecodeError} when the bytes are not such a message: a value or length runs past `end`, a
   * varint is longer than 10 bytes, a tag, wire type or group is invalid, messages nest deeper than
   * {@link MAX_PROTOBUF_DEPTH}, a proto3 string is not UTF-8 or a proto2 required field is missing. Reads are
   * bounded by the input: no input makes it loop or allocate more than a small multiple of its size per field
   * of the schema. The result shares no memory with `input`.
   */
  decode(input: ProtobufInput | Uint8Array, start = 0, end = input.length): ListMap {
    const reader =
      input instanceof WireReader ? input : new WireReader(input as Uint8Array, new ShortStrings());
    if (start < 0 || start > end || end > reader.length) {
      throw new RangeError(`no bytes ${start} to ${end} in an input of ${reader.length}`);
    }
    reader.begin(start);
    return readMessage(this.#plan, reader, end, 0, -1, null);
  }
}

const decoders = new WeakMap<protobuf.Type, ProtobufDecoder>();

/** The {@link ProtobufDecoder} of `type`, made on first use and kept as long as the type is. */
export function protobufDecoder(type: protobuf.Type): ProtobufDecoder {
  let decoder = decoders.get(type);
  if (!decoder) {
    decoder = new ProtobufDecoder(type);
    decoders.set(type, decoder);
  }
  return decoder;
}

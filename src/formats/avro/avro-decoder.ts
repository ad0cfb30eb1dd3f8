import avro from 'avsc';
import {
  doubleValue,
  TypedField,
  type FieldAttributes,
  type FieldValue,
  type PlainMap,
} from '../../record/field';
import { ListMapShape } from '../../record/list-map';
import { ShortStrings, utf8Bytes, type Utf8Bytes } from '../short-strings';

const MS_PER_DAY = 86_400_000;
/**
 * Array items that take no bytes (null, a record of nulls) one block may hold: an array block count larger than
 * the bytes left is refused past this many, so that a hostile count cannot build an endless array out of nothing.
 */
const MAX_ZERO_WIDTH_ITEMS = 65_536;
/** How deep recursive records may nest; deeper data is refused before the call stack runs out. */
const MAX_RECURSION_DEPTH = 1_000;

/**
 * Why a block cannot be decoded, thrown by {@link AvroDecoder.decodeBlock}: `kind` is `'truncated'` when the bytes
 * end inside value `recordIndex`, `'invalid'` when that value's bytes are not valid for the schema (`detail` says
 * how), `'trailing'` when bytes remain after the last value.
 */
export class AvroDecodeError extends Error {
  readonly kind: 'truncated' | 'invalid' | 'trailing';
  readonly recordIndex: number;
  readonly detail: string;

  constructor(kind: 'truncated' | 'invalid' | 'trailing', recordIndex: number, detail: string) {
    super(detail);
    this.name = 'AvroDecodeError';
    this.kind = kind;
    this.recordIndex = recordIndex;
    this.detail = detail;
  }
}

/**
 * Decodes Avro binary data of one writer schema straight into record values. Compile it once per schema (once per
 * container header) and use it for every block: deciding what each type is happens here, not per value.
 *
 * Values: record → LIST_MAP list-map (one `ListMapShape` per record type, keys in field order), map → plain
 * object, array → array, enum and string → string, int → number, long → bigint (always), float → FLOAT
 * `TypedField`, double → number (a DOUBLE `TypedField` when integral, see `doubleValue`), boolean, bytes and
 * fixed → a fresh plain `Uint8Array`, null → null, union → its branch's value. Logical types: decimal (on bytes or
 * fixed) → DECIMAL `TypedField` with attributes `precision` and `scale` (one frozen object per decimal type), date
 * (int) → DATE `TypedField`, time-millis (int) → TIME `TypedField`, timestamp-millis (long) → `Date`;
 * any other logical type, or one on the wrong underlying type, is read as its underlying type.
 */
export class AvroDecoder {
  readonly #read: Reader;
  readonly #strings = new ShortStrings();

  /** Compiles the decoder of `schema` (a writer schema as parsed JSON); throws avsc's error when it is invalid. */
  constructor(schema: unknown) {
    this.#read = new ReaderCompiler().readerOf(avscTypeOf(schema));
  }

  /**
   * The `count` values that `data` holds back to back, in order. `data` is only read during the call, never kept.
   * Throws {@link AvroDecodeError} when the data ends inside a value, a value is invalid (a negative length, a union
   * branch or enum index out of range, a varint over 10 bytes or a long over 64 bits, an array or map block count
   * the bytes left cannot hold, records nested over 1,000 deep or deeper than the call stack allows) or bytes remain
   * after the last value.
   */
  decodeBlock(data: Uint8Array, count: number): FieldValue[] {
    const c = new Cursor(data, this.#strings);
    const read = this.#read;
    const values: FieldValue[] = [];
    let i = 0;
    try {
      for (; i < count; i++) values.push(read(c));
    } catch (error) {
      if (error instanceof ReadError) {
        throw new AvroDecodeError(error.truncated ? 'truncated' : 'invalid', i, error.detail);
      }
      // The readers allocate nothing a RangeError can come from; only a call stack that a host had already used
      // up before the 1,000 nesting levels can, and that is the data's nesting too.
      if (error instanceof RangeError) throw new AvroDecodeError('invalid', i, 'the value nests too deeply');
      throw error;
    }
    if (c.pos !== c.end) {
      throw new AvroDecodeError('trailing', count, `${c.end - c.pos} bytes follow the last value`);
    }
    return values;
  }
}

/** The unscaled two's-complement big-endian integer of an Avro decimal, as text with `scale` fraction digits. */
export function decimalText(bytes: Uint8Array, scale: number): string {
  let unscaled = 0n;
  for (const byte of bytes) unscaled = (unscaled << 8n) | BigInt(byte);
  if (bytes.length > 0 && (bytes[0] ?? 0) & 0x80) unscaled -= 1n << BigInt(bytes.length * 8);
  const negative = unscaled < 0n;
  const digits = (negative ? -unscaled : unscaled).toString();
  if (scale <= 0) return (negative ? '-' : '') + digits + '0'.repeat(-scale);
  const padded = digits.padStart(scale + 1, '0');
  return `${negative ? '-' : ''}${padded.slice(0, -scale)}.${padded.slice(-scale)}`;
}

/** Thrown by the readers, without a stack: {@link AvroDecoder.decodeBlock} turns it into an AvroDecodeError. */
class ReadError {
  constructor(
    readonly truncated: boolean,
    readonly detail: string,
  ) {}
}

const TRUNCATED = new ReadError(true, 'the data ends inside a value');

function invalid(detail: string): ReadError {
  return new ReadError(false, detail);
}

/** Where a read is in one block's bytes. */
class Cursor {
  /** The bytes as a plain Uint8Array, so that `slice` copies into a plain Uint8Array (a Buffer's is a view). */
  readonly bytes: Uint8Array;
  /** The same bytes, for Node's UTF-8 decoder. */
  readonly text: Utf8Bytes;
  readonly view: DataView;
  readonly end: number;
  readonly strings: ShortStrings;
  pos = 0;
  depth = 0;
  zeroWidthItems = MAX_ZERO_WIDTH_ITEMS;

  constructor(data: Uint8Array, strings: ShortStrings) {
    this.bytes = new Uint8Array(data.buffer, data.byteOffset, data.length);
    this.text = utf8Bytes(data);
    this.view = new DataView(data.buffer, data.byteOffset, data.length);
    this.end = data.length;
    this.strings = strings;
  }
}

type Reader = (c: Cursor) => FieldValue;

/** A zig-zag varint as a number: exact up to 2^53, rounded past it (as avsc reads ints). */
function readNumber(c: Cursor): number {
  const bytes = c.bytes;
  let pos = c.pos;
  if (pos < c.end) {
    const b = bytes[pos] as number;
    if (b < 0x80) {
      c.pos = pos + 1;
      return (b >>> 1) ^ -(b & 1);
    }
  }
  let n = 0;
  let scale = 1;
  for (let i = 0; i < 10; i++) {
    if (pos >= c.end) throw TRUNCATED;
    const b = bytes[pos++] as number;
    n += (b & 0x7f) * scale;
    if (b < 0x80) {
      c.pos = pos;
      return n % 2 ? -(n + 1) / 2 : n / 2;
    }
    scale *= 128;
  }
  throw invalid('a varint runs past 10 bytes');
}

/** A zig-zag varint long as a bigint, exact over the whole 64-bit range. */
function readLong(c: Cursor): bigint {
  const bytes = c.bytes;
  let pos = c.pos;
  // Seven bytes hold 49 bits, exact in a number; only longer varints need bigint arithmetic.
  let n = 0;
  let scale = 1;
  for (let i = 0; i < 7; i++) {
    if (pos >= c.end) throw TRUNCATED;
    const b = bytes[pos++] as number;
    n += (b & 0x7f) * scale;
    if (b < 0x80) {
      c.pos = pos;
      return BigInt(n % 2 ? -(n + 1) / 2 : n / 2);
    }
    scale *= 128;
  }
  let high = 0;
  scale = 1;
  for (let i = 7; i < 10; i++) {
    if (pos >= c.end) throw TRUNCATED;
    const b = bytes[pos++] as number;
    // The tenth byte holds bit 63 only.
    if (i === 9 && b > 1) throw invalid('a long does not fit in 64 bits');
    high += (b & 0x7f) * scale;
    if (b < 0x80) {
      c.pos = pos;
      const raw = BigInt(n) + (BigInt(high) << 49n);
      return raw & 1n ? -(raw >> 1n) - 1n : raw >> 1n;
    }
    scale *= 128;
  }
  throw invalid('a varint runs past 10 bytes');
}

/** A length (string, bytes) checked against the bytes left before anything is allocated for it. */
function readLength(c: Cursor): number {
  const length = readNumber(c);
  if (length < 0) throw invalid(`a length is negative (${length})`);
  if (length > c.end - c.pos) throw TRUNCATED;
  return length;
}

function readString(c: Cursor): string {
  const length = readLength(c);
  const start = c.pos;
  c.pos = start + length;
  return c.strings.decode(c.bytes, c.text, start, start + length);
}

function readBytes(c: Cursor): Uint8Array {
  const length = readLength(c);
  const start = c.pos;
  c.pos = start + length;
  return c.bytes.slice(start, start + length);
}

function readNull(): null {
  return null;
}

function readBoolean(c: Cursor): boolean {
  if (c.pos >= c.end) throw TRUNCATED;
  // Any byte other than 0 is true, as avsc reads it.
  return c.bytes[c.pos++] !== 0;
}

function readFloat(c: Cursor): TypedField<'FLOAT'> {
  const pos = c.pos;
  if (pos + 4 > c.end) throw TRUNCATED;
  c.pos = pos + 4;
  return new TypedField('FLOAT', c.view.getFloat32(pos, true));
}

function readDouble(c: Cursor): number | TypedField<'DOUBLE'> {
  const pos = c.pos;
  if (pos + 8 > c.end) throw TRUNCATED;
  c.pos = pos + 8;
  return doubleValue(c.view.getFloat64(pos, true));
}

function fixedReader(size: number): (c: Cursor) => Uint8Array {
  return (c) => {
    const pos = c.pos;
    if (pos + size > c.end) throw TRUNCATED;
    c.pos = pos + size;
    return c.bytes.slice(pos, pos + size);
  };
}

function enumReader(symbols: readonly string[]): Reader {
  return (c) => {
    const index = readNumber(c);
    const symbol = symbols[index];
    if (symbol === undefined) throw invalid(`enum index ${index} does not exist`);
    return symbol;
  };
}

/**
 * The item count of the next block of an array or map, 0 at the end; a negative count is followed by the block's
 * size in bytes, which is not needed here. A count the bytes left cannot hold is refused before anything is
 * allocated: items of `itemWidth` bytes or more, or within the block's allowance of zero-width items.
 */
function readBlockCount(c: Cursor, itemWidth: number): number {
  let count = readNumber(c);
  if (count === 0) return 0;
  if (count < 0) {
    count = -count;
    readNumber(c);
  }
  if (itemWidth > 0) {
    if (count * itemWidth > c.end - c.pos) {
      throw invalid(`a block of ${count} items does not fit in the ${c.end - c.pos} bytes left`);
    }
  } else {
    if (count > c.zeroWidthItems) throw invalid(`a block of ${count} items that take no bytes is too long`);
    c.zeroWidthItems -= count;
  }
  return count;
}

/**
 * Measures the fewest bytes a value of a type takes, once per type: a schema may use a named type many times (n
 * records each using the previous one twice make 2^n paths), so every width is remembered. A record that holds
 * itself counts 0 for its inner occurrence; a width remembered while an enclosing record was being measured may
 * count that record as 0 too, which only makes it smaller: it stays a lower bound, which is all a block count
 * check needs.
 */
class WidthMeasure {
  readonly #known = new Map<avro.Type, number>();
  readonly #measuring = new Set<avro.Type>();

  of(type: avro.Type): number {
    const known = this.#known.get(type);
    if (known !== undefined) return known;
    if (this.#measuring.has(type)) return 0;
    this.#measuring.add(type);
    const width = this.#measure(type);
    this.#measuring.delete(type);
    this.#known.set(type, width);
    return width;
  }

  #measure(type: avro.Type): number {
    if (type instanceof avro.types.LogicalType) return this.of(type.underlyingType);
    if (type instanceof avro.types.NullType) return 0;
    if (type instanceof avro.types.FloatType) return 4;
    if (type instanceof avro.types.DoubleType) return 8;
    if (type instanceof avro.types.FixedType) return type.size;
    if (type instanceof avro.types.RecordType) {
      let width = 0;
      for (const f of type.fields) width += this.of(f.type);
      return width;
    }
    // Every other type starts with at least one byte: a varint, a length, a count or a union branch.
    return 1;
  }
}

interface LogicalAttributes {
  readonly precision?: unknown;
  readonly scale?: unknown;
}

/**
 * Marks in avsc's type tree a logical type the decoder converts (decimal, date, time-millis, timestamp-millis) and
 * keeps its schema attributes. avsc never decodes with it: its conversions are the identity, used only when avsc
 * checks a field default.
 */
class MarkedLogicalType extends avro.types.LogicalType {
  readonly attributes: LogicalAttributes;

  constructor(schema: avro.Schema, opts?: Partial<avro.ForSchemaOptions>) {
    super(schema, opts);
    this.attributes = schema as LogicalAttributes;
  }

  protected override _fromValue(value: unknown): unknown {
    return value;
  }

  protected override _toValue(value: unknown): unknown {
    return value;
  }
}

/** avsc's long as a bigint, so that avsc accepts field defaults past 2^53 when it checks a schema. */
export const BigIntLong = avro.types.LongType.__with({
  fromBuffer: (buf: Buffer) => buf.readBigInt64LE(),
  toBuffer: (n: bigint) => {
    const buf = Buffer.alloc(8);
    buf.writeBigInt64LE(BigInt(n));
    return buf;
  },
  fromJSON: (json: unknown) => BigInt(json as number),
  toJSON: (n: bigint) => Number(n),
  isValid: (n: unknown) => typeof n === 'bigint',
  compare: (a: bigint, b: bigint) => (a < b ? -1 : a > b ? 1 : 0),
});

/**
 * avsc's type of a writer schema: it checks the schema and resolves named types. Longs other than timestamp-millis
 * are written as the plain name `long` first, the form avsc gives the registry's bigint long, so that a schema with
 * a long default past 2^53 is accepted; the logical types dropped that way (time-micros, timestamp-micros, …) are
 * read as LONG anyway.
 */
function avscTypeOf(schema: unknown): avro.Type {
  return avro.Type.forSchema(withBigIntLongs(schema) as avro.Schema, {
    wrapUnions: true,
    registry: { long: BigIntLong },
    logicalTypes: {
      decimal: MarkedLogicalType,
      date: MarkedLogicalType,
      'time-millis': MarkedLogicalType,
      'timestamp-millis': MarkedLogicalType,
    },
  });
}

/**
 * `schema` with every long other than a timestamp-millis written as the plain name `long`: avsc gives its
 * `registry` long (see {@link BigIntLong}) only to that form.
 */
export function withBigIntLongs(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(withBigIntLongs);
  if (schema === null || typeof schema !== 'object') return schema;
  const node = schema as Record<string, unknown>;
  if (node['type'] === 'long') return node['logicalType'] === 'timestamp-millis' ? node : 'long';
  if (typeof node['type'] === 'object') return { ...node, type: withBigIntLongs(node['type']) };
  if ((node['type'] === 'record' || node['type'] === 'error') && Array.isArray(node['fields'])) {
    const fields = (node['fields'] as unknown[]).map((f) =>
      f !== null && typeof f === 'object'
        ? { ...f, type: withBigIntLongs((f as { type?: unknown }).type) }
        : f,
    );
    return { ...node, fields };
  }
  if (node['type'] === 'array') return { ...node, items: withBigIntLongs(node['items']) };
  if (node['type'] === 'map') return { ...node, values: withBigIntLongs(node['values']) };
  return node;
}

/** A record whose field readers are being built; a field of the record's own type reads through `read` later. */
interface RecordInProgress {
  recursive: boolean;
  read: Reader | undefined;
}

/** Builds one reader per avsc type; named types are shared, so that a recursive type reuses its own reader. */
class ReaderCompiler {
  readonly #readers = new Map<avro.Type, Reader>();
  readonly #inProgress = new Map<avro.Type, RecordInProgress>();
  readonly #widths = new WidthMeasure();

  readerOf(type: avro.Type): Reader {
    const known = this.#readers.get(type);
    if (known !== undefined) return known;
    const record = this.#inProgress.get(type);
    if (record !== undefined) {
      record.recursive = true;
      return (c) => (record.read as Reader)(c);
    }
    const reader = this.#build(type);
    this.#readers.set(type, reader);
    return reader;
  }

  #build(type: avro.Type): Reader {
    if (type instanceof MarkedLogicalType) return this.#logical(type);
    if (type instanceof avro.types.LogicalType) return this.readerOf(type.underlyingType);
    if (type instanceof avro.types.RecordType) return this.#record(type);
    if (type instanceof avro.types.WrappedUnionType || type instanceof avro.types.UnwrappedUnionType) {
      return this.#union(type.types);
    }
    if (type instanceof avro.types.ArrayType) return this.#array(type.itemsType);
    if (type instanceof avro.types.MapType) return this.#map(type.valuesType as avro.Type);
    if (type instanceof avro.types.EnumType) return enumReader(type.symbols);
    if (type instanceof avro.types.FixedType) return fixedReader(type.size);
    switch (type.typeName) {
      case 'null':
        return readNull;
      case 'boolean':
        return readBoolean;
      case 'int':
        return readNumber;
      case 'long':
      case 'abstract:long':
        return readLong;
      case 'float':
        return readFloat;
      case 'double':
        return readDouble;
      case 'string':
        return readString;
      case 'bytes':
        return readBytes;
      default:
        throw new Error(`the Avro type ${type.typeName} has no reader`);
    }
  }

  #logical(type: MarkedLogicalType): Reader {
    const underlying = type.underlyingType;
    const name = underlying.typeName;
    switch (type.typeName) {
      case 'logical:decimal':
        if (name === 'bytes' || underlying instanceof avro.types.FixedType) {
          const size = underlying instanceof avro.types.FixedType ? underlying.size : -1;
          return decimalReader(type.attributes, size);
        }
        break;
      case 'logical:date':
        if (name === 'int') return (c) => new TypedField('DATE', new Date(readNumber(c) * MS_PER_DAY));
        break;
      case 'logical:time-millis':
        if (name === 'int') return (c) => new TypedField('TIME', new Date(readNumber(c)));
        break;
      case 'logical:timestamp-millis':
        // A Date holds milliseconds up to 8.64e15, well inside a number's exact range.
        if (name === 'long' || name === 'abstract:long') return (c) => new Date(readNumber(c));
        break;
    }
    // The Avro spec: a logical type on the wrong underlying type is ignored.
    return this.readerOf(underlying);
  }

  #record(type: avro.types.RecordType): Reader {
    const names = type.fields.map((f) => f.name);
    const inProgress: RecordInProgress = { recursive: false, read: undefined };
    this.#inProgress.set(type, inProgress);
    const readers = type.fields.map((f) => this.readerOf(f.type));
    this.#inProgress.delete(type);
    // One shape per record type: every record of it shares the key table (and V8 hidden class).
    const shape = new ListMapShape(names);
    const readFields: Reader = (c) => {
      const values = new Array<FieldValue>(readers.length);
      for (let i = 0; i < readers.length; i++) values[i] = (readers[i] as Reader)(c);
      return shape.create(values);
    };
    if (!inProgress.recursive) return readFields;
    // Only a record that holds itself can nest without end. The depth is not restored on a throw: the cursor is
    // dropped with the failed block.
    const read: Reader = (c) => {
      if (++c.depth > MAX_RECURSION_DEPTH) throw invalid(`records nest over ${MAX_RECURSION_DEPTH} deep`);
      const value = readFields(c);
      c.depth--;
      return value;
    };
    inProgress.read = read;
    return read;
  }

  #union(types: readonly avro.Type[]): Reader {
    const branches = types.map((t) => this.readerOf(t));
    if (branches.length === 2 && types[0] instanceof avro.types.NullType) {
      // The optional value, by far the most common union, without the branch lookup.
      const value = branches[1] as Reader;
      return (c) => {
        const index = readNumber(c);
        if (index === 0) return null;
        if (index === 1) return value(c);
        throw invalid(`union branch ${index} does not exist`);
      };
    }
    return (c) => {
      const index = readNumber(c);
      const branch = branches[index];
      if (branch === undefined) throw invalid(`union branch ${index} does not exist`);
      return branch(c);
    };
  }

  #array(itemsType: avro.Type): Reader {
    const items = this.readerOf(itemsType);
    const width = this.#widths.of(itemsType);
    return (c) => {
      let n = readBlockCount(c, width);
      if (n === 0) return [];
      // Sized by the first block (most arrays have one): an array grown by push keeps unused room.
      const out = new Array<FieldValue>(n);
      for (let i = 0; i < n; i++) out[i] = items(c);
      while ((n = readBlockCount(c, width)) !== 0) {
        for (let i = 0; i < n; i++) out.push(items(c));
      }
      return out;
    };
  }

  #map(valuesType: avro.Type): Reader {
    const values = this.readerOf(valuesType);
    // A key takes at least its length byte.
    const width = 1 + this.#widths.of(valuesType);
    return (c) => {
      const out: PlainMap = {};
      for (let n = readBlockCount(c, width); n !== 0; n = readBlockCount(c, width)) {
        for (let i = 0; i < n; i++) {
          const key = readString(c);
          if (key !== '__proto__') {
            out[key] = values(c);
            continue;
          }
          // defineProperty, not assignment: a key named __proto__ must become a member, not a prototype.
          Object.defineProperty(out, key, {
            value: values(c),
            enumerable: true,
            writable: true,
            configurable: true,
          });
        }
      }
      return out;
    };
  }
}

/** A decimal on bytes (`size` -1) or on a fixed of `size` bytes. */
function decimalReader(schema: LogicalAttributes, size: number): Reader {
  const scale = typeof schema.scale === 'number' ? schema.scale : 0;
  const attributes: FieldAttributes = Object.freeze({
    precision: String(schema.precision ?? ''),
    scale: String(scale),
  });
  return (c) => {
    const length = size < 0 ? readLength(c) : size;
    const pos = c.pos;
    if (pos + length > c.end) throw TRUNCATED;
    c.pos = pos + length;
    return new TypedField('DECIMAL', decimalText(c.bytes.subarray(pos, pos + length), scale), attributes);
  };
}

/**
 * The Avro decoding of the avro format before it read the binary encoding itself (decision 0018): avsc decodes a
 * datum into its own values, which {@link avroFieldValue} then walks into record values. Kept in the tests as the
 * oracle of the differential test of `AvroDecoder`: both must give the same records for the same bytes.
 */
import avro from 'avsc';
import { BigIntLong, decimalText, withBigIntLongs } from '../../../src/formats/avro/avro-decoder';
import { doubleValue, field, type FieldValue, type PlainMap } from '../../../src/record/field';
import { listMapOf } from '../../../src/record/list-map';

const MS_PER_DAY = 86_400_000;

interface DecimalSchema {
  readonly precision?: number;
  readonly scale?: number;
}

// Logical types turn the underlying value into the engine's field at decode time, so the walk in
// avroFieldValue only has to pass them through. Encoding is never used: the parser only reads.
class DecimalLogicalType extends avro.types.LogicalType {
  readonly #attributes: Readonly<Record<string, string>>;
  readonly #scale: number;

  constructor(schema: avro.Schema, opts?: Partial<avro.ForSchemaOptions>) {
    super(schema, opts);
    const { precision, scale } = schema as DecimalSchema;
    this.#scale = scale ?? 0;
    this.#attributes = { precision: String(precision ?? ''), scale: String(this.#scale) };
  }

  protected override _fromValue(value: Buffer): FieldValue {
    return field('DECIMAL', decimalText(value, this.#scale), this.#attributes);
  }

  protected override _toValue(): never {
    throw new Error('the Avro parser does not encode');
  }
}

class DateLogicalType extends avro.types.LogicalType {
  protected override _fromValue(days: number): FieldValue {
    return field('DATE', new Date(days * MS_PER_DAY));
  }

  protected override _toValue(): never {
    throw new Error('the Avro parser does not encode');
  }
}

class TimeMillisLogicalType extends avro.types.LogicalType {
  protected override _fromValue(millis: number): FieldValue {
    return field('TIME', new Date(millis));
  }

  protected override _toValue(): never {
    throw new Error('the Avro parser does not encode');
  }
}

class TimestampMillisLogicalType extends avro.types.LogicalType {
  protected override _fromValue(millis: number): FieldValue {
    return new Date(millis);
  }

  protected override _toValue(): never {
    throw new Error('the Avro parser does not encode');
  }
}

/**
 * The avsc type that reads data written with `schema` (a writer schema as JSON) into values that
 * {@link avroFieldValue} turns into record values: unions wrapped (so the branch is known), longs as bigint, and
 * the logical types decimal, date, time-millis and timestamp-millis already converted. Throws avsc's error when the
 * schema is not a valid Avro schema.
 */
export function avroTypeFor(schema: avro.Schema): avro.Type {
  return avro.Type.forSchema(withBigIntLongs(schema) as avro.Schema, {
    wrapUnions: true,
    registry: { long: BigIntLong },
    logicalTypes: {
      decimal: DecimalLogicalType,
      date: DateLogicalType,
      'time-millis': TimeMillisLogicalType,
      'timestamp-millis': TimestampMillisLogicalType,
    },
  });
}

/**
 * The avsc type that writes data of `schema` for the tests: the same binary layout as {@link avroTypeFor} reads, with
 * longs as bigint (every long but timestamp-millis, which takes a number) and logical types left to their
 * underlying types (a decimal is written from its bytes, a date from its day number), unions wrapped.
 */
export function avroWriterTypeFor(schema: avro.Schema): avro.Type {
  return avro.Type.forSchema(withBigIntLongs(schema) as avro.Schema, {
    wrapUnions: true,
    registry: { long: BigIntLong },
  });
}

/**
 * The record value of `value`, a datum that `type` (from {@link avroTypeFor}) decoded: record → list-map in field
 * order, map → plain object, array → array, enum/string → string, int → number, long → bigint, float → FLOAT,
 * double → number, bytes/fixed → a copied `Uint8Array`, null → null, a union → its branch's value. Logical types
 * other than the four converted ones keep their underlying value (time-micros and timestamp-micros are LONG).
 */
export function avroFieldValue(type: avro.Type, value: unknown): FieldValue {
  return converterOf(type)(value);
}

type Converter = (value: unknown) => FieldValue;

// One converter per avsc type, built on first use: deciding what a type is (instanceof chains, branch lookups)
// once per type instead of once per value keeps the walk close to avsc's own decoding speed.
const converters = new WeakMap<avro.Type, Converter>();

function converterOf(type: avro.Type): Converter {
  let converter = converters.get(type);
  if (!converter) {
    converter = buildConverter(type);
    converters.set(type, converter);
  }
  return converter;
}

function buildConverter(type: avro.Type): Converter {
  if (type instanceof avro.types.LogicalType) {
    return (value) => (value === null || value === undefined ? null : (value as FieldValue));
  }
  if (type instanceof avro.types.RecordType) {
    // Filled after this converter is registered, so that a recursive record type finds itself in the cache.
    const names: string[] = [];
    const fieldConverters: Converter[] = [];
    const converter: Converter = (value) => {
      if (value === null || value === undefined) return null;
      const fields: [string, FieldValue][] = [];
      const datum = value as Record<string, unknown>;
      for (let i = 0; i < names.length; i++) {
        const name = names[i] as string;
        fields.push([name, (fieldConverters[i] as Converter)(datum[name])]);
      }
      return listMapOf(fields);
    };
    converters.set(type, converter);
    for (const f of type.fields) {
      names.push(f.name);
      fieldConverters.push(converterOf(f.type));
    }
    return converter;
  }
  if (type instanceof avro.types.WrappedUnionType) {
    const branches = new Map<string, Converter>();
    const converter: Converter = (value) => {
      if (value === null || value === undefined) return null;
      for (const branch in value as Record<string, unknown>) {
        const branchConverter = branches.get(branch);
        return branchConverter ? branchConverter((value as Record<string, unknown>)[branch]) : null;
      }
      return null;
    };
    converters.set(type, converter);
    for (const t of type.types) if (t.branchName !== undefined) branches.set(t.branchName, converterOf(t));
    return converter;
  }
  if (type instanceof avro.types.ArrayType) {
    let items: Converter | undefined;
    return (value) => {
      if (value === null || value === undefined) return null;
      items ??= converterOf(type.itemsType);
      const array = value as unknown[];
      const out: FieldValue[] = new Array<FieldValue>(array.length);
      for (let i = 0; i < array.length; i++) out[i] = items(array[i]);
      return out;
    };
  }
  if (type instanceof avro.types.MapType) {
    let values: Converter | undefined;
    return (value) => {
      if (value === null || value === undefined) return null;
      values ??= converterOf(type.valuesType as avro.Type);
      const out: PlainMap = {};
      const datum = value as Record<string, unknown>;
      for (const key of Object.keys(datum)) {
        if (key !== '__proto__') {
          out[key] = values(datum[key]);
          continue;
        }
        // defineProperty, not assignment: a key named __proto__ must become a member, not a prototype.
        Object.defineProperty(out, key, {
          value: values(datum[key]),
          enumerable: true,
          writable: true,
          configurable: true,
        });
      }
      return out;
    };
  }
  if (type instanceof avro.types.FloatType) {
    return (value) => (value === null || value === undefined ? null : field('FLOAT', value as number));
  }
  if (type instanceof avro.types.DoubleType) {
    return (value) => (value === null || value === undefined ? null : doubleValue(value as number));
  }
  return (value) => {
    if (value === null || value === undefined) return null;
    if (value instanceof Uint8Array) return new Uint8Array(value);
    return value as FieldValue;
  };
}

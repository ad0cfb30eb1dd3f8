import { TypedField } from '../../../src/record/field';
import { isListMap, listMapEntries } from '../../../src/record/list-map';

/**
 * Protobuf record values in the tagged form of the fixtures' expected files (`toTagged` of
 * tests/formats/fixture-cases.ts: `$bigint`, `$bytes` in base64, `$listMap` in key order, `$typed`), as JSON data.
 * A copy for the values protobuf makes (typed fields without attributes), depending on the record model alone: the
 * child of `without-code-generation.test.ts` cannot load fixture-cases.ts, whose Avro format needs code generation
 * from strings as soon as it loads.
 */
export function recordsJson(values: readonly unknown[]): unknown {
  const text = JSON.stringify(values, (_, value: unknown) => {
    if (typeof value === 'bigint') return { $bigint: value.toString() };
    if (value instanceof Uint8Array) return { $bytes: Buffer.from(value).toString('base64') };
    if (isListMap(value)) return { $listMap: listMapEntries(value) };
    if (value instanceof TypedField) return { $typed: { type: value.type, value: value.value } };
    return value;
  });
  return JSON.parse(text) as unknown;
}

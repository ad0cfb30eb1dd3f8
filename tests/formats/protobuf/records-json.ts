import { TypedField } from '../../../src/record/field';
import { isListMap, listMapEntries } from '../../../src/record/list-map';

/**
 * `values` as plain JSON data that keeps what JSON loses of record values (bigints, bytes, list-maps and their order, Maps, typed fields), so
 * that records from another process can be compared. Depends on the record model alone: the child of
 * `code-generation-fallback.test.ts` cannot load modules that need code generation from strings.
 */
export function recordsJson(values: readonly unknown[]): unknown {
  const text = JSON.stringify(values, (_, value: unknown) => {
    if (typeof value === 'bigint') return { $bigint: value.toString() };
    if (value instanceof Uint8Array) return { $bytes: Buffer.from(value).toString('hex') };
    if (isListMap(value)) return { $listMap: listMapEntries(value) };
    if (value instanceof Map) return { $map: [...(value as Map<unknown, unknown>)] };
    if (value instanceof TypedField) return { $typed: [value.type, value.value, value.attributes ?? null] };
    return value;
  });
  return JSON.parse(text) as unknown;
}

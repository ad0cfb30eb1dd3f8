// Hand-built NetFlow v9 packets, shared by the parser tests and the origin tests.

/** A 16-bit big-endian number as bytes. */
export function u16(n: number): number[] {
  return [n >> 8, n & 0xff];
}
export function u32(n: number): number[] {
  return [(n >>> 24) & 0xff, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff];
}
export function v9(sourceId: number, ...flowsets: number[][]): Uint8Array {
  return Uint8Array.from([
    ...u16(9),
    ...u16(flowsets.length),
    ...u32(1000),
    ...u32(1_700_000_000),
    ...u32(7),
    ...u32(sourceId),
    ...flowsets.flat(),
  ]);
}
export function flowset(id: number, body: number[]): number[] {
  return [...u16(id), ...u16(body.length + 4), ...body];
}
/** Template 300: IPV4_SRC_ADDR(4) L4_SRC_PORT(2) IN_BYTES(4) type 999 (2). */
export const TEMPLATE_300 = flowset(0, [
  ...u16(300),
  ...u16(4),
  ...u16(8),
  ...u16(4),
  ...u16(7),
  ...u16(2),
  ...u16(1),
  ...u16(4),
  ...u16(999),
  ...u16(2),
]);
export const DATA_300 = flowset(300, [192, 168, 1, 2, ...u16(443), ...u32(123456), 0xab, 0xcd]);

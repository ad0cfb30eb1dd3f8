/**
 * CRC-32C (Castagnoli, reflected polynomial 0x82f63b78), the checksum of the snappy framing format.
 *
 * Node's `zlib.crc32` computes the other CRC-32 (IEEE), so this one is table-driven here, slicing by 8: eight
 * 256-entry tables let the loop fold eight input bytes per step instead of one.
 */

const POLYNOMIAL = 0x82f63b78;
const TABLES = buildTables();

function buildTables(): Uint32Array {
  const tables = new Uint32Array(8 * 256);
  for (let n = 0; n < 256; n++) {
    let crc = n;
    for (let bit = 0; bit < 8; bit++) crc = crc & 1 ? (crc >>> 1) ^ POLYNOMIAL : crc >>> 1;
    tables[n] = crc;
  }
  for (let n = 0; n < 256; n++) {
    let crc = tables[n]!;
    for (let slice = 1; slice < 8; slice++) {
      crc = tables[crc & 0xff]! ^ (crc >>> 8);
      tables[slice * 256 + n] = crc;
    }
  }
  return tables;
}

/**
 * The CRC-32C of `data`, as an unsigned 32-bit number (`crc32c(utf8('123456789')) === 0xe3069283`).
 *
 * To checksum data that arrives in pieces, pass the previous result as `previous`:
 * `crc32c(b, crc32c(a))` equals `crc32c(a ++ b)`. The function reads `data` and keeps no reference to it.
 */
export function crc32c(data: Uint8Array, previous = 0): number {
  const t = TABLES;
  let crc = ~previous >>> 0;
  let i = 0;
  const fast = data.length - (data.length % 8);
  while (i < fast) {
    const lo = (crc ^ (data[i]! | (data[i + 1]! << 8) | (data[i + 2]! << 16) | (data[i + 3]! << 24))) >>> 0;
    crc =
      t[1792 + (lo & 0xff)]! ^
      t[1536 + ((lo >>> 8) & 0xff)]! ^
      t[1280 + ((lo >>> 16) & 0xff)]! ^
      t[1024 + (lo >>> 24)]! ^
      t[768 + data[i + 4]!]! ^
      t[512 + data[i + 5]!]! ^
      t[256 + data[i + 6]!]! ^
      t[data[i + 7]!]!;
    i += 8;
  }
  while (i < data.length) crc = t[(crc ^ data[i++]!) & 0xff]! ^ (crc >>> 8);
  return ~crc >>> 0;
}

/**
 * The masked form of a CRC-32C that the snappy framing format stores: the CRC rotated right by 15 bits plus
 * `0xa282ead8`, modulo 2^32. Masking keeps a CRC of data that itself contains CRCs from being degenerate.
 */
export function maskCrc32c(crc: number): number {
  return (((crc >>> 15) | (crc << 17)) + 0xa282ead8) >>> 0;
}

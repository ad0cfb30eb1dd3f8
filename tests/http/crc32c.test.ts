import { crc32c, maskCrc32c } from '../../src/formats/crc32c';

const ascii = (text: string): Uint8Array => new TextEncoder().encode(text);

describe('crc32c', () => {
  it('matches the published CRC-32C check value and the RFC 3720 vectors', () => {
    expect(crc32c(ascii('123456789'))).toBe(0xe3069283);
    expect(crc32c(new Uint8Array(32))).toBe(0x8a9136aa);
    expect(crc32c(new Uint8Array(32).fill(0xff))).toBe(0x62a8ab43);
    expect(crc32c(Uint8Array.from({ length: 32 }, (_, i) => i))).toBe(0x46dd794e);
    expect(crc32c(Uint8Array.from({ length: 32 }, (_, i) => 31 - i))).toBe(0x113fdb5c);
  });

  it('is 0 for no data', () => {
    expect(crc32c(new Uint8Array(0))).toBe(0);
  });

  it('continues a checksum across pieces split at any offset', () => {
    const data = Uint8Array.from({ length: 100 }, (_, i) => (i * 37) & 0xff);
    const whole = crc32c(data);
    for (let split = 0; split <= data.length; split++) {
      expect(crc32c(data.subarray(split), crc32c(data.subarray(0, split)))).toBe(whole);
    }
  });
});

describe('maskCrc32c', () => {
  it('rotates right by 15 and adds 0xa282ead8, modulo 2^32', () => {
    expect(maskCrc32c(0)).toBe(0xa282ead8);
    expect(maskCrc32c(0xe3069283)).toBe(
      ((((0xe3069283 >>> 15) | (0xe3069283 << 17)) >>> 0) + 0xa282ead8) % 2 ** 32,
    );
    expect(maskCrc32c(0xffffffff)).toBe((0xffffffff + 0xa282ead8) % 2 ** 32);
  });
});

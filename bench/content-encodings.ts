// `npm run bench -- --encodings`: what undoing each Content-Encoding costs the body reader, in process, without
// HTTP: CPU time (process.cpuUsage) per body and decoded MB per CPU second, for a small body (the 131 KB
// fixture tests/fixtures/http/content-encodings/records.json, 2,000 JSON lines) and a large one (160,000
// distinct JSON lines, about 10 MB: repeating the small body would let brotli and zstd reduce it to a few KB),
// each encoded by zlib (gzip, deflate, brotli at quality 5), the zstd command line (-3; the bench needs `zstd`)
// and the snappy package (raw block). Bodies are fed in 64 KiB chunks, as a socket delivers
// them. Environment: BENCH_ROUNDS (5), BENCH_SECONDS (1, per coding and size and round). Figures are medians.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants, deflateRawSync, deflateSync, gzipSync } from 'node:zlib';
import { compressSync } from 'snappy';
import { readDecodedBody } from '../src/http/body-reader';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 1);
const CHUNK = 64 * 1024;

const here = fileURLToPath(new URL('.', import.meta.url));
const small = readFileSync(
  join(here, '..', 'tests', 'fixtures', 'http', 'content-encodings', 'records.json'),
);
const large = Buffer.from(
  Array.from({ length: 160_000 }, (_, i) =>
    JSON.stringify({
      id: i,
      name: `customer ${i % 9973}`,
      total: (i * 7919) % 100_003,
      tags: ['a', `t${i % 13}`],
    }),
  ).join('\n'),
);

const encoders: Record<string, (body: Buffer) => Buffer> = {
  gzip: (body) => gzipSync(body),
  'deflate (zlib)': (body) => deflateSync(body),
  'deflate (raw)': (body) => deflateRawSync(body),
  br: (body) => brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 5 } }),
  zstd: (body) => execFileSync('zstd', ['-3', '-q', '-c'], { input: body, maxBuffer: 1 << 30 }),
  snappy: (body) => compressSync(body),
};
const header: Record<string, string> = {
  gzip: 'gzip',
  'deflate (zlib)': 'deflate',
  'deflate (raw)': 'deflate',
  br: 'br',
  zstd: 'zstd',
  snappy: 'snappy',
};

async function decodeOnce(encoded: Buffer, coding: string): Promise<number> {
  const body = {
    headers: { 'content-encoding': coding },
    async *[Symbol.asyncIterator]() {
      for (let at = 0; at < encoded.length; at += CHUNK) yield encoded.subarray(at, at + CHUNK);
    },
  };
  let bytes = 0;
  for await (const chunk of readDecodedBody(body, { maxRequestBytes: 100_000_000 })) bytes += chunk.length;
  return bytes;
}

/** CPU µs per decode over about SECONDS of wall time. */
async function measure(encoded: Buffer, coding: string, expected: number): Promise<number> {
  const start = process.cpuUsage();
  const until = performance.now() + SECONDS * 1000;
  let runs = 0;
  do {
    if ((await decodeOnce(encoded, coding)) !== expected) throw new Error(`${coding}: wrong length`);
    runs++;
  } while (performance.now() < until);
  const used = process.cpuUsage(start);
  return (used.user + used.system) / runs;
}

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[values.length >> 1]!;

console.log(`content-encoding decode cost, ${ROUNDS} rounds of ${SECONDS} s, medians (CPU per body)\n`);
console.log('coding           small: encoded  µs/body   large: encoded   ms/body   MB/CPU-s');
for (const [name, encode] of Object.entries(encoders)) {
  const encodedSmall = encode(small);
  const encodedLarge = encode(large);
  const smallRuns: number[] = [];
  const largeRuns: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    smallRuns.push(await measure(encodedSmall, header[name]!, small.length));
    largeRuns.push(await measure(encodedLarge, header[name]!, large.length));
  }
  const largeMs = median(largeRuns) / 1000;
  console.log(
    `${name.padEnd(16)} ${String(encodedSmall.length).padStart(14)} ${median(smallRuns).toFixed(0).padStart(9)}` +
      `   ${String(encodedLarge.length).padStart(14)} ${largeMs.toFixed(1).padStart(9)}` +
      ` ${(large.length / 1e6 / (largeMs / 1000)).toFixed(0).padStart(10)}`,
  );
}

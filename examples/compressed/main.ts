// Compressed requests and responses: a client sends a body gzip-compressed and then brotli-compressed
// (`Content-Encoding: gzip, br`), and asks for a compressed answer; the origin decodes the body, and with
// `httpResponse.compress` answers in br. Run it with `npx tsx examples/compressed/main.ts`.
import { brotliCompressSync, brotliDecompressSync, gzipSync } from 'node:zlib';
import { request } from 'undici';
import { InProcessRunnerPool, Origin, echoPipeline } from 'rest-service-origin';

const runners = new InProcessRunnerPool(10, echoPipeline);
const origin = new Origin(
  {
    http: { host: '127.0.0.1', port: Number(process.env.PORT ?? 0) },
    dataFormat: { format: 'json', json: { jsonContent: 'multipleObjects' } },
    httpResponse: { compress: true, compressMinBytes: 1024 },
  },
  { runners },
);
const url = await origin.start();

const lines = Array.from({ length: 100 }, (_, i) => JSON.stringify({ order: i, item: 'tea' })).join('\n');
const body = brotliCompressSync(gzipSync(lines));
// undici's request() hands over the bytes as they came, so the answer's coding can be seen and undone here.
const answer = await request(url, {
  method: 'POST',
  headers: { 'Content-Encoding': 'gzip, br', 'Accept-Encoding': 'br;q=1, gzip;q=0.5' },
  body,
});
const compressed = Buffer.from(await answer.body.arrayBuffer());
const { data } = JSON.parse(brotliDecompressSync(compressed).toString('utf8')) as { data: unknown[] };
console.log(`sent ${Buffer.byteLength(lines)} bytes as ${body.length} (gzip, br)`);
console.log(
  `${answer.statusCode} ${String(answer.headers['content-encoding'])} ${String(answer.headers['vary'])}`,
  `${data.length} records in ${compressed.length} bytes`,
);

// A coding the origin does not know is refused with the list of those it does.
const refused = await request(url, { method: 'POST', headers: { 'Content-Encoding': 'lz4' }, body: 'x' });
await refused.body.dump();
console.log(refused.statusCode, refused.headers['accept-encoding']);

await origin.close();
await runners.close();

import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { request } from 'undici';
import { startOrigin, type TestOrigin } from './origin-helpers';

const run = promisify(execFile);

/** 300 records: an echoed answer of about 12 KB, well over the 1024-byte threshold. */
const RECORDS = Array.from({ length: 300 }, (_, i) => ({ id: i, name: `customer ${i}`, tags: ['a', 'b'] }));
const BODY = RECORDS.map((record) => JSON.stringify(record)).join('\n');

async function post(
  url: string,
  headers: Record<string, string>,
  body = BODY,
): Promise<{ headers: Record<string, unknown>; bytes: Buffer }> {
  const answer = await request(url, { method: 'POST', headers, body });
  const bytes = Buffer.from(await answer.body.arrayBuffer());
  expect(answer.statusCode).toBe(200);
  return { headers: answer.headers, bytes };
}

const dataOf = (text: string): unknown => (JSON.parse(text) as { data: unknown }).data;

/** Issue 18 item 2: Accept-Encoding on the response, with httpResponse.compress. */
describe('response compression', () => {
  let running: TestOrigin | undefined;
  afterEach(async () => {
    await running?.stop();
    running = undefined;
  });

  it('is off by default: no Content-Encoding and no Vary, whatever the client accepts', async () => {
    running = await startOrigin();
    const answer = await post(running.url, { 'Accept-Encoding': 'br, gzip' });
    expect(answer.headers['content-encoding']).toBeUndefined();
    expect(answer.headers['vary']).toBeUndefined();
    expect(dataOf(answer.bytes.toString())).toEqual(RECORDS);
  });

  it('answers br or gzip as the client asks, with Vary, Content-Encoding and the compressed length', async () => {
    running = await startOrigin({ httpResponse: { compress: true } });
    const br = await post(running.url, { 'Accept-Encoding': 'gzip;q=0.8, br' });
    expect(br.headers).toMatchObject({ 'content-encoding': 'br', vary: 'Accept-Encoding' });
    expect(Number(br.headers['content-length'])).toBe(br.bytes.length);
    expect(dataOf(brotliDecompressSync(br.bytes).toString())).toEqual(RECORDS);
    const gzip = await post(running.url, { 'Accept-Encoding': 'br;q=0.1, gzip' });
    expect(gzip.headers['content-encoding']).toBe('gzip');
    expect(dataOf(gunzipSync(gzip.bytes).toString())).toEqual(RECORDS);
    const none = await post(running.url, {});
    expect(none.headers['content-encoding']).toBeUndefined();
    expect(none.headers['vary']).toBe('Accept-Encoding');
    expect(dataOf(none.bytes.toString())).toEqual(RECORDS);
  });

  it('sends a body under compressMinBytes as it is, and compresses it when the client refused identity', async () => {
    running = await startOrigin({ httpResponse: { compress: true, compressMinBytes: 4096 } });
    const small = await post(running.url, { 'Accept-Encoding': 'gzip' }, '{"a":1}');
    expect(small.headers['content-encoding']).toBeUndefined();
    expect(dataOf(small.bytes.toString())).toEqual([{ a: 1 }]);
    const forced = await post(running.url, { 'Accept-Encoding': 'gzip, identity;q=0' }, '{"a":1}');
    expect(forced.headers['content-encoding']).toBe('gzip');
    expect(dataOf(gunzipSync(forced.bytes).toString())).toEqual([{ a: 1 }]);
  });

  it.each([
    ['br', []],
    ['gzip', ['-H', 'Accept-Encoding: gzip']],
  ])('gives curl --compressed a %s answer, which curl decodes', async (coding, extra) => {
    running = await startOrigin({ httpResponse: { compress: true } });
    const dir = await mkdtemp(join(tmpdir(), 'compressed-'));
    try {
      const [body, headers, raw] = ['body.json', 'headers.txt', 'raw.bin'].map((name) => join(dir, name));
      await writeFile(body!, BODY);
      const curl = (...args: string[]): Promise<{ stdout: string }> =>
        run('curl', ['-sS', '--fail', ...extra, '--data-binary', `@${body}`, ...args, running!.url], {
          encoding: 'utf8',
        });
      // With --compressed curl offers every coding it can read (deflate, gzip, br, zstd here) and decodes.
      const { stdout } = await curl('--compressed', '-D', headers!);
      expect(dataOf(stdout)).toEqual(RECORDS);
      const head = (await readFile(headers!, 'utf8')).toLowerCase();
      expect(head).toContain(`content-encoding: ${coding}\r\n`);
      expect(head).toContain('vary: accept-encoding\r\n');
      // The same request without --compressed shows the bytes on the wire were compressed.
      await curl('-H', `Accept-Encoding: ${coding}`, '-o', raw!);
      const wire = await readFile(raw!);
      expect(wire.length).toBeLessThan(Buffer.byteLength(stdout) / 4);
      const decoded = coding === 'br' ? brotliDecompressSync(wire) : gunzipSync(wire);
      expect(decoded.toString()).toBe(stdout);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { SendResponse, type Pipeline } from 'rest-service-origin';
import { HeapGuard } from '../../src/origin/heap-guard';
import { collectGarbage } from './collect-garbage';
import { send, startOrigin, type TestOrigin } from './origin-helpers';
import { streamRequest } from './raw-client';

const MB = 1_000_000;

const sendRecords = new SendResponse();
const sendErrorRecords = SendResponse.forErrors({ statusCode: 400 });
/** Answers parse failures (error records, decision 0017) with 400, as a pipeline's error handling would. */
const answer400OnErrors: Pipeline = (batch) => {
  sendRecords.write(batch);
  sendErrorRecords.write(batch);
};

/** Resident memory now, in bytes, after a full collection. */
function rss(): number {
  collectGarbage();
  return process.memoryUsage().rss;
}

/** Issue 12, Found 4 and scope 2: the records of one request, and the heap of the process, are bounded. */
describe('records per request', () => {
  let running: TestOrigin | undefined;
  afterEach(async () => {
    await running?.stop();
    running = undefined;
  });

  it('answers 413 to 100 MB of {} (50 million records) with memory bounded, and keeps serving', async () => {
    running = await startOrigin({ dataFormat: { format: 'json' } });
    const before = rss();
    const { answer, sentBytes } = await streamRequest(
      running.url,
      { 'Content-Type': 'application/json' },
      100 * MB,
      Buffer.from('{}'),
    );
    expect(answer?.status).toBe(413);
    expect(answer?.headers['connection']).toBe('close');
    expect(answer?.body).toContain('ORIGIN_HTTP_TOO_MANY_RECORDS');
    // The parse stopped at the limit: most of the body was never read.
    expect(sentBytes).toBeLessThan(100 * MB);
    expect(rss() - before).toBeLessThan(600 * MB);
    expect((await send(running.url, { body: '{"a":1}' })).status).toBe(200);
  });

  it('answers 413 to a 2 MB CSV of one-character lines with memory bounded', async () => {
    running = await startOrigin({ dataFormat: { format: 'delimited' } });
    const before = rss();
    const { answer } = await streamRequest(
      running.url,
      { 'Content-Type': 'text/csv' },
      2 * 1024 * 1024,
      Buffer.from('a\n'),
    );
    expect(answer?.status).toBe(413);
    expect(answer?.body).toContain('ORIGIN_HTTP_TOO_MANY_RECORDS');
    expect(rss() - before).toBeLessThan(600 * MB);
  });

  it('accepts exactly maxRecordsPerRequest records and refuses one more (whole-body parse)', async () => {
    running = await startOrigin({ http: { maxRecordsPerRequest: 3 } });
    const three = await send(running.url, { body: '{"a":1} {"a":2} {"a":3}' });
    expect(three.status).toBe(200);
    expect(three.json).toMatchObject({ data: [{ a: 1 }, { a: 2 }, { a: 3 }] });
    const four = await send(running.url, { body: '{"a":1} {"a":2} {"a":3} {"a":4}' });
    expect(four.status).toBe(413);
    expect(four.json).toMatchObject({ httpStatusCode: 413, data: [], error: [] });
    expect((four.json as { errorMessage: string }).errorMessage).toBe(
      'ORIGIN_HTTP_TOO_MANY_RECORDS - The request body holds more than maxRecordsPerRequest 3 records (failures included).',
    );
  });

  it('counts parse failures as records', async () => {
    running = await startOrigin({ http: { maxRecordsPerRequest: 1 } });
    const answer = await send(running.url, { body: '{"a":1} {"a": {"a":3}' });
    expect(answer.status).toBe(413);
  });

  it('stops a gzip-encoded body at the limit too', async () => {
    const { gzipSync } = await import('node:zlib');
    running = await startOrigin({ http: { maxRecordsPerRequest: 1000 } });
    const body = gzipSync(Buffer.from('{}'.repeat(5 * MB)));
    const answer = await send(running.url, { body, headers: { 'Content-Encoding': 'gzip' } });
    expect(answer.status).toBe(413);
    expect(answer.text).toContain('ORIGIN_HTTP_TOO_MANY_RECORDS');
  });
});

describe('heap guard', () => {
  let running: TestOrigin | undefined;
  afterEach(async () => {
    await running?.stop();
    running = undefined;
  });

  it('refuses new requests with 503 and Retry-After while the heap is above maxHeapUsagePercent', async () => {
    running = await startOrigin({ http: { maxHeapUsagePercent: 1, retryAfterSeconds: 7 } });
    const answer = await send(running.url, { body: '{"a":1}' });
    expect(answer.status).toBe(503);
    expect(answer.headers['retry-after']).toBe('7');
    expect((answer.json as { errorMessage: string }).errorMessage).toMatch(
      /^ORIGIN_HTTP_LOW_MEMORY - The process heap is \d+% used, above maxHeapUsagePercent 1;/,
    );
    expect(running.origin.metrics().inFlight).toBe(0);
  });

  it('admits below the limit, stops reads only past halfway to full, and is off at 100', () => {
    let used = 0.8;
    const MiB = 1024 * 1024;
    // The fraction is of the room objects have: the limit less V8's 48 MiB young generation.
    const read = (): { used_heap_size: number; heap_size_limit: number } => ({
      used_heap_size: used * 1000 * MiB,
      heap_size_limit: 1048 * MiB,
    });
    const guard = new HeapGuard(85, read);
    expect(() => guard.admit(0)).not.toThrow();
    used = 0.9;
    // Read again only after the sampling interval.
    expect(() => guard.admit(1)).not.toThrow();
    expect(() => guard.admit(100)).toThrow(expect.objectContaining({ code: 'ORIGIN_HTTP_LOW_MEMORY' }));
    expect(() => guard.keepReading(200)).not.toThrow();
    used = 0.93;
    expect(() => guard.keepReading(300)).toThrow(expect.objectContaining({ code: 'ORIGIN_HTTP_LOW_MEMORY' }));
    used = 1;
    const off = new HeapGuard(100, read);
    expect(() => off.admit(0)).not.toThrow();
    expect(() => off.keepReading(0)).not.toThrow();
  });
});

/** Issue 12, Found 6: XML whose cost is in one element or one skipped token. */
describe('XML cost', () => {
  let running: TestOrigin | undefined;
  afterEach(async () => {
    await running?.stop();
    running = undefined;
  });

  it('answers 400 to one element with 200,000 attributes (2.3 MB) without quadratic work', async () => {
    running = await startOrigin(
      { dataFormat: { format: 'xml', xml: { delimiterElement: 'r' } } },
      answer400OnErrors,
    );
    const attributes = Array.from({ length: 200_000 }, (_, i) => ` a${i}="1"`).join('');
    const answer = await send(running.url, { body: `<root><r${attributes}/></root>` });
    expect(answer.status).toBe(400);
    expect(answer.text).toContain('ORIGIN_XML_TOO_MANY_ATTRIBUTES');
  });

  it('answers 400 to a 50 MB comment before the delimiter element, with memory bounded', async () => {
    running = await startOrigin(
      { dataFormat: { format: 'xml', xml: { delimiterElement: 'r' } } },
      answer400OnErrors,
    );
    const before = rss();
    const bytes = 50 * MB;
    const head = '<root><!--';
    const { answer } = await streamRequest(
      running.url,
      { 'Content-Type': 'application/xml' },
      bytes,
      Buffer.from('x'.repeat(100)),
      Buffer.from(head),
    );
    expect(answer?.status).toBe(400);
    expect(answer?.body).toContain('ORIGIN_XML_TOKEN_TOO_LONG');
    expect(rss() - before).toBeLessThan(400 * MB);
  });
});

/** The heap guard in a process whose heap is small, against bodies that would each fill it many times over. */
describe('heap guard in a 256 MB heap', () => {
  it('answers 503 to concurrent bodies of tiny values instead of dying, and serves again after', async () => {
    const child = spawn(
      process.execPath,
      [
        '--max-old-space-size=256',
        '--import',
        'tsx',
        join(__dirname, 'heap-child.ts'),
        JSON.stringify({ http: { maxRecordsPerRequest: 100_000_000, maxConcurrentRequests: 4 } }),
      ],
      { stdio: ['pipe', 'pipe', 'inherit'] },
    );
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    try {
      const url = await new Promise<string>((resolve, reject) => {
        child.stdout.once('data', (line: Buffer) => resolve(line.toString().trim()));
        child.once('exit', (code) => reject(new Error(`the origin process exited with ${code}`)));
      });
      const answers = await Promise.all(
        Array.from({ length: 4 }, () =>
          streamRequest(url, { 'Content-Type': 'application/json' }, 60 * MB, Buffer.from('{}')),
        ),
      );
      // Each body would hold some 3 GB of records: every one is stopped by the guard, none by the record limit.
      for (const { answer } of answers) {
        expect(answer?.status).toBe(503);
        expect(answer?.headers['retry-after']).toBe('1');
        expect(answer?.body).toContain('ORIGIN_HTTP_LOW_MEMORY');
      }
      // The refused bodies' records are garbage now; the heap is read again every 10 ms and V8 collects it.
      let status = 0;
      for (let attempt = 0; attempt < 100 && status !== 200; attempt++) {
        status = (await send(url, { body: '{"a":1}' })).status;
        if (status !== 200) await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(status).toBe(200);
      expect(child.exitCode).toBeNull();
    } finally {
      child.stdin.end();
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 5_000))]);
      if (child.exitCode === null) child.kill();
    }
    // Near its limit V8 collects again and again, which makes this slow on a loaded machine.
  }, 120_000);
});

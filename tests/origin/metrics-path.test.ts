import { request } from 'undici';
import {
  InProcessRunnerPool,
  OPENMETRICS_CONTENT_TYPE,
  Origin,
  PROMETHEUS_CONTENT_TYPE,
  echoPipeline,
  type Batch,
  type OriginConfigInput,
  type Pipeline,
} from 'rest-service-origin';
import { parseExposition, seriesKey, type Exposition } from '../support/prometheus-exposition';
import { freePort } from './origin-helpers';

/**
 * A mixed run against two origins sharing one port (application IDs `alpha`: onRecordError discard, `beta`:
 * sendToError) and a third alone (stopPipeline), then a scrape of `http.metricsPath`: every count must be what
 * the client saw. The tally below is kept from the answers the client got, never from the origin.
 */

const PATHS = { metricsPath: '/metrics', healthPath: '/healthz', readinessPath: '/readyz' };

/** What one origin should have counted, tallied from the client's side. */
class Tally {
  readonly requests = new Map<string, number>();
  readonly rejections = new Map<string, number>();
  readonly parseFailures = new Map<string, number>();
  recordsReceived = 0;
  errorRecords = 0;
  dataRecordsSent = 0;
  errorRecordsSent = 0;
  bytesReceived = 0;
  bytesSent = 0;
  answered = 0;
  answeredBytes = 0;
  admitted = 0;

  request(status: number, outcome: string, sentBytes: number): void {
    add(this.requests, `${status} ${outcome}`);
    this.bytesSent += sentBytes;
    if (outcome === 'answered') {
      this.answered++;
      this.answeredBytes += sentBytes;
    }
  }

  get total(): number {
    return [...this.requests.values()].reduce((a, b) => a + b, 0);
  }
}

function add(map: Map<string, number>, key: string, n = 1): void {
  map.set(key, (map.get(key) ?? 0) + n);
}

interface Answer {
  status: number;
  text: string;
  bytes: number;
  json: { data?: unknown[]; error?: unknown[] } | undefined;
}

async function post(
  url: string,
  body: string | Buffer,
  headers: Record<string, string> = {},
  method = 'POST',
): Promise<Answer> {
  const answer = await request(url, { method: method as 'POST', body, headers });
  const bytes = Buffer.from(await answer.body.arrayBuffer());
  const text = bytes.toString('utf8');
  let json: Answer['json'];
  try {
    json = JSON.parse(text) as Answer['json'];
  } catch {
    json = undefined;
  }
  return { status: answer.statusCode, text, bytes: bytes.length, json };
}

async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((resolve) => setTimeout(resolve, 5));
}

/** A pipeline that echoes, holding any batch whose first record has `hold` until `release()`. */
function holdingPipeline(): { pipeline: Pipeline; release(): void } {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const held = (batch: Batch): boolean =>
    (batch.records[0]?.value as { hold?: boolean } | undefined)?.hold === true;
  return {
    pipeline: async (batch, context) => {
      if (held(batch)) await gate;
      await echoPipeline(batch, context);
    },
    release: () => release(),
  };
}

function expectCounts(scrape: Exposition, origin: string, tally: Tally): void {
  const value = (name: string, labels: Record<string, string> = {}): number | undefined =>
    scrape.series.get(seriesKey(name, { origin, ...labels }));
  for (const [key, n] of tally.requests) {
    const [status, outcome] = key.split(' ') as [string, string];
    expect([origin, key, value('rest_origin_requests_total', { status, outcome })]).toEqual([origin, key, n]);
  }
  const requestSeries = [...scrape.series.keys()].filter(
    (k) => k.startsWith('rest_origin_requests_total{') && k.includes(`origin="${origin}"`),
  );
  expect(requestSeries).toHaveLength(tally.requests.size);
  for (const [code, n] of tally.rejections) {
    expect([origin, code, value('rest_origin_rejections_total', { code })]).toEqual([origin, code, n]);
  }
  const rejectionSeries = [...scrape.series.keys()].filter(
    (k) => k.startsWith('rest_origin_rejections_total{') && k.includes(`origin="${origin}"`),
  );
  expect(rejectionSeries).toHaveLength(tally.rejections.size);
  for (const [key, n] of tally.parseFailures) {
    const [code, action] = key.split(' ') as [string, string];
    expect(value('rest_origin_parse_failures_total', { code, action })).toBe(n);
  }
  expect(value('rest_origin_records_received_total')).toBe(tally.recordsReceived);
  expect(value('rest_origin_error_records_total')).toBe(tally.errorRecords);
  expect(value('rest_origin_records_sent_total', { kind: 'data' })).toBe(tally.dataRecordsSent);
  expect(value('rest_origin_records_sent_total', { kind: 'error' })).toBe(tally.errorRecordsSent);
  expect(value('rest_origin_received_bytes_total')).toBe(tally.bytesReceived);
  expect(value('rest_origin_sent_bytes_total')).toBe(tally.bytesSent);
  expect(value('rest_origin_requests_in_flight')).toBe(0);
  expect(value('rest_origin_queue_depth')).toBe(0);
  expect(value('rest_origin_request_duration_seconds_count')).toBe(tally.total);
  expect(value('rest_origin_batch_duration_seconds_count')).toBe(tally.answered);
  expect(value('rest_origin_response_size_bytes_count')).toBe(tally.answered);
  expect(value('rest_origin_response_size_bytes_sum')).toBe(tally.answeredBytes);
  expect(value('rest_origin_admission_wait_seconds_count')).toBe(tally.admitted);
}

describe('http.metricsPath after a mixed run', () => {
  const stops: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const stop of stops.splice(0).reverse()) await stop();
  });

  it('counts every request, record and byte the clients saw, as valid Prometheus and OpenMetrics text', async () => {
    const port = await freePort();
    const hold = holdingPipeline();
    const pool = new InProcessRunnerPool(2, hold.pipeline, { runnerIdleTimeMs: 0 });
    stops.push(() => pool.close());
    const http = { host: '127.0.0.1', port, ...PATHS, maxConcurrentRequests: 1, queueSize: 1 };
    const make = (name: string, id: string, onRecordError: 'discard' | 'sendToError'): Origin => {
      const config: OriginConfigInput = {
        general: { name, onRecordError },
        http: { ...http, applicationIds: [id], maxRecordsPerRequest: 5, maxRequestSizeMb: 1 },
        dataFormat: { format: 'json' },
      };
      const origin = new Origin(config, { runners: pool });
      stops.push(() => origin.destroy());
      return origin;
    };
    const alpha = make('alpha', 'alpha', 'discard');
    const beta = make('beta', 'beta', 'sendToError');
    const url = await alpha.start();
    await beta.start();
    const a = new Tally();
    const b = new Tally();
    const toAlpha = { 'X-ENGINE-APPLICATION-ID': 'alpha' };
    const toBeta = { 'X-ENGINE-APPLICATION-ID': 'beta' };

    /** A request the pipeline answers: records in, records and bytes out. */
    const success = async (tally: Tally, headers: Record<string, string>, body: string, records: number) => {
      const answer = await post(url, body, headers);
      expect(answer.status).toBe(200);
      expect(answer.json?.data).toHaveLength(records);
      tally.request(200, 'answered', answer.bytes);
      tally.recordsReceived += records;
      tally.dataRecordsSent += records;
      tally.bytesReceived += Buffer.byteLength(body);
      tally.admitted++;
    };
    /** A request refused before (or failed in) the pipeline with `code`. */
    const refused = async (
      tally: Tally,
      answer: Answer,
      status: number,
      code: string,
      outcome = 'rejected',
    ): Promise<void> => {
      expect([answer.status, answer.text]).toEqual([status, expect.stringContaining(code)]);
      tally.request(status, outcome, answer.bytes);
      add(tally.rejections, code);
    };

    for (let i = 0; i < 3; i++) await success(a, toAlpha, '{"n":1}{"n":2}', 2);
    for (let i = 0; i < 2; i++) await success(b, toBeta, '{"n":1}', 1);

    // A record that does not parse, under discard (alpha) and sendToError (beta).
    const broken = '{"a":1}\n{"b":}\n{"c":3}';
    const discarded = await post(url, broken, toAlpha);
    expect([discarded.status, discarded.json?.data]).toEqual([200, [{ a: 1 }, { c: 3 }]]);
    a.request(200, 'answered', discarded.bytes);
    a.recordsReceived += 2;
    a.dataRecordsSent += 2;
    a.bytesReceived += Buffer.byteLength(broken);
    a.admitted++;
    add(a.parseFailures, 'ORIGIN_JSON_MALFORMED discard');
    const toError = await post(url, broken, toBeta);
    expect(toError.json?.data).toHaveLength(2);
    expect(toError.json?.error).toHaveLength(1);
    b.request(toError.status, 'answered', toError.bytes);
    b.recordsReceived += 2;
    b.errorRecords += 1;
    b.dataRecordsSent += 2;
    b.errorRecordsSent += 1;
    b.bytesReceived += Buffer.byteLength(broken);
    b.admitted++;
    add(b.parseFailures, 'ORIGIN_JSON_MALFORMED sendToError');

    // Refusals: application ID missing / unknown (the first origin of the port answers them), method, encoding,
    // too many records (admitted and read, then refused), a body over maxRequestSizeMb (refused from its length).
    await refused(a, await post(url, '{}'), 403, 'ORIGIN_APP_ID_MISSING');
    await refused(
      a,
      await post(url, '{}', { 'X-ENGINE-APPLICATION-ID': 'gamma' }),
      403,
      'ORIGIN_APP_ID_INVALID',
    );
    await refused(b, await post(url, '', toBeta, 'TRACE'), 405, 'ORIGIN_HTTP_METHOD_NOT_ALLOWED');
    await refused(
      a,
      await post(url, '{}', { ...toAlpha, 'Content-Encoding': 'br' }),
      415,
      'ORIGIN_HTTP_ENCODING_UNSUPPORTED',
    );
    const tooMany = '{}{}{}{}{}{}';
    await refused(a, await post(url, tooMany, toAlpha), 413, 'ORIGIN_HTTP_TOO_MANY_RECORDS');
    a.bytesReceived += tooMany.length;
    a.admitted++;
    await refused(
      a,
      await post(url, Buffer.alloc(1_100_000, 0x20), toAlpha),
      413,
      'ORIGIN_HTTP_BODY_TOO_LARGE',
    );

    // Queue full: one request holds alpha's only slot, one waits in its queue of one, the next is refused.
    const heldBody = '{"hold":true}';
    const first = post(url, heldBody, toAlpha);
    await until(() => alpha.metrics().inFlight === 1);
    const second = post(url, heldBody, toAlpha);
    await until(() => alpha.metrics().queued === 1);
    await refused(a, await post(url, '{}', toAlpha), 503, 'ORIGIN_HTTP_OVERLOADED');
    hold.release();
    for (const answer of await Promise.all([first, second])) {
      expect(answer.status).toBe(200);
      a.request(200, 'answered', answer.bytes);
      a.recordsReceived += 1;
      a.dataRecordsSent += 1;
      a.bytesReceived += heldBody.length;
      a.admitted++;
    }

    const scraped = await request(new URL(PATHS.metricsPath, url));
    expect(scraped.statusCode).toBe(200);
    expect(scraped.headers['content-type']).toBe(PROMETHEUS_CONTENT_TYPE);
    const text = await scraped.body.text();
    const scrape = parseExposition(text);
    expectCounts(scrape, 'alpha', a);
    expectCounts(scrape, 'beta', b);
    // The second waited for its slot: the admission wait histogram has an observation above its first bucket.
    const waits = scrape.series.get(
      seriesKey('rest_origin_admission_wait_seconds_bucket', { origin: 'alpha', le: '0.0005' }),
    );
    expect(waits).toBeLessThan(a.admitted);
    // Scrapes are not requests: nothing above changed by scraping.
    expect(text).not.toContain('status="200",outcome="rejected"');

    const openMetrics = await request(new URL(PATHS.metricsPath, url), {
      headers: { Accept: 'application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5' },
    });
    expect(openMetrics.headers['content-type']).toBe(OPENMETRICS_CONTENT_TYPE);
    const om = parseExposition(await openMetrics.body.text(), true);
    expect(
      om.series.get(
        seriesKey('rest_origin_requests_total', { origin: 'beta', status: '405', outcome: 'rejected' }),
      ),
    ).toBe(1);
    expect(om.families.get('rest_origin_requests')?.type).toBe('counter');
  });

  it('counts a replayed idempotent answer as answered, with its bytes, but as no batch', async () => {
    const pool = new InProcessRunnerPool(1, echoPipeline, { runnerIdleTimeMs: 0 });
    stops.push(() => pool.close());
    const origin = new Origin(
      {
        general: { name: 'keyed' },
        http: { host: '127.0.0.1', port: 0, maxConcurrentRequests: 1, idempotency: {}, ...PATHS },
        dataFormat: { format: 'json' },
      },
      { runners: pool },
    );
    stops.push(() => origin.destroy());
    const url = await origin.start();
    const key = { 'Idempotency-Key': '"order-1"' };
    const first = await post(url, '{"a":1}', key);
    const replayed = await post(url, '{"a":1}', key);
    expect([first.status, replayed.status, replayed.text]).toEqual([200, 200, first.text]);
    const scrape = parseExposition(await (await request(new URL(PATHS.metricsPath, url))).body.text());
    const value = (name: string, labels: Record<string, string> = {}) =>
      scrape.series.get(seriesKey(name, { origin: 'keyed', ...labels }));
    expect(value('rest_origin_requests_total', { status: '200', outcome: 'answered' })).toBe(2);
    expect(value('rest_origin_sent_bytes_total')).toBe(first.bytes + replayed.bytes);
    expect(value('rest_origin_records_received_total')).toBe(1);
    expect(value('rest_origin_batch_duration_seconds_count')).toBe(1);
    expect(value('rest_origin_request_duration_seconds_count')).toBe(2);
    expect(value('rest_origin_admission_wait_seconds_count')).toBe(2);
  });

  it('counts a failure of the whole body as refused, whatever onRecordError says', async () => {
    const pool = new InProcessRunnerPool(1, echoPipeline, { runnerIdleTimeMs: 0 });
    stops.push(() => pool.close());
    const origin = new Origin(
      {
        general: { name: 'blob', onRecordError: 'sendToError' },
        http: { host: '127.0.0.1', port: 0, maxConcurrentRequests: 1, ...PATHS },
        dataFormat: { format: 'binary', binary: { maxDataSizeBytes: 4 } },
      },
      { runners: pool },
    );
    stops.push(() => origin.destroy());
    const url = await origin.start();
    const answer = await post(url, 'more than four bytes');
    expect([answer.status, answer.text]).toEqual([413, expect.stringContaining('ORIGIN_BINARY_TOO_LARGE')]);
    const scrape = parseExposition(await (await request(new URL(PATHS.metricsPath, url))).body.text());
    const failures = [...scrape.series].filter(([key]) =>
      key.startsWith('rest_origin_parse_failures_total{'),
    );
    const labels = { origin: 'blob', code: 'ORIGIN_BINARY_TOO_LARGE', action: 'refused' };
    expect(failures).toEqual([[seriesKey('rest_origin_parse_failures_total', labels), 1]]);
    const rejections = seriesKey('rest_origin_rejections_total', {
      origin: 'blob',
      code: 'ORIGIN_BINARY_TOO_LARGE',
    });
    expect(scrape.series.get(rejections)).toBe(1);
    expect(scrape.series.get(seriesKey('rest_origin_records_received_total', { origin: 'blob' }))).toBe(0);
    expect(scrape.series.get(seriesKey('rest_origin_error_records_total', { origin: 'blob' }))).toBe(0);
  });

  it('counts a failure under stopPipeline, readable with origin.metrics() after the origin stopped itself', async () => {
    const pool = new InProcessRunnerPool(1, echoPipeline, { runnerIdleTimeMs: 0 });
    stops.push(() => pool.close());
    const origin = new Origin(
      {
        general: { name: 'gamma', onRecordError: 'stopPipeline' },
        http: { host: '127.0.0.1', port: 0, maxConcurrentRequests: 1, ...PATHS },
        dataFormat: { format: 'json' },
      },
      { runners: pool },
    );
    stops.push(() => origin.destroy());
    const url = await origin.start();
    const stopped = new Promise((resolve) => origin.once('stop', resolve));
    const body = '{"a":1}\n{"b":}';
    const answer = await post(url, body);
    expect([answer.status, answer.text]).toEqual([500, expect.stringContaining('ORIGIN_PIPELINE_STOPPED')]);
    await stopped;
    const text = origin.metrics({ format: 'openmetrics' });
    const scrape = parseExposition(text, true);
    const value = (name: string, labels: Record<string, string>) =>
      scrape.series.get(seriesKey(name, { origin: 'gamma', ...labels }));
    expect(
      value('rest_origin_parse_failures_total', { code: 'ORIGIN_JSON_MALFORMED', action: 'stopPipeline' }),
    ).toBe(1);
    expect(value('rest_origin_requests_total', { status: '500', outcome: 'failed' })).toBe(1);
    expect(value('rest_origin_rejections_total', { code: 'ORIGIN_PIPELINE_STOPPED' })).toBe(1);
    expect(value('rest_origin_records_received_total', {})).toBe(0);
    expect(value('rest_origin_received_bytes_total', {})).toBe(body.length);
    expect(value('rest_origin_sent_bytes_total', {})).toBe(answer.bytes);
    // The summary of earlier versions says the same.
    const summary = origin.metrics();
    expect(summary.requests).toEqual({
      total: 1,
      byOutcome: { answered: 0, rejected: 0, failed: 1 },
      byStatus: { '500': 1 },
    });
    expect(summary.rejectedByReason).toEqual({ ORIGIN_PIPELINE_STOPPED: 1 });
  });
});

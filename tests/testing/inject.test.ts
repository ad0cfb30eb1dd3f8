import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { gzipSync } from 'node:zlib';
import {
  DataRecord,
  InProcessRunnerPool,
  Origin,
  SendResponse,
  echoPipeline,
  type OriginConfigInput,
  type Pipeline,
} from 'rest-service-origin';
import { createTestOrigin, type InjectRequest } from 'rest-service-origin/testing';

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/** The same request as `inject` makes, over a real loopback socket, with the same client (node:http). */
function overSocket(url: string, request: InjectRequest): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const target = new URL(url);
    const outgoing = httpRequest({
      host: target.hostname,
      port: target.port,
      agent: false,
      method: request.method ?? 'POST',
      path: request.path ?? '/',
      headers: { Host: 'localhost', ...request.headers },
    });
    outgoing.on('error', reject);
    outgoing.on('response', (answer) => {
      const chunks: Buffer[] = [];
      answer.on('data', (chunk: Buffer) => chunks.push(chunk));
      answer.on('end', () =>
        resolve({
          status: answer.statusCode!,
          headers: answer.headers,
          body: Buffer.concat(chunks).toString(),
        }),
      );
    });
    outgoing.end(request.body === undefined ? undefined : Buffer.from(request.body));
  });
}

/** What must be identical: everything but the clock and the request id the origin gave. */
function comparable({ status, headers, body }: Answer): Answer {
  const { date: _date, ...rest } = headers;
  return { status, headers: rest, body: body.replace(/\(request [^)]+\)/, '(request <id>)') };
}

const json = { dataFormat: { format: 'json' } } as const;
const withIds = { ...json, http: { applicationIds: ['orders'] } } as const;
const failing: Pipeline = () => {
  throw new Error('the stage broke');
};
const created: Pipeline = (batch) => {
  const reply = new SendResponse({ statusCode: 201, headers: { Location: '/orders/1' } });
  reply.write(batch, [new DataRecord({ value: { made: batch.records.length } })]);
};

const cases: [string, OriginConfigInput, Pipeline, InjectRequest][] = [
  ['a JSON body echoed (200)', json, echoPipeline, { path: '/orders?x=1', body: '{"a":1} {"b":2}' }],
  ['an empty body (placeholder record)', json, echoPipeline, { method: 'GET', path: '/' }],
  [
    'a gzip body',
    json,
    echoPipeline,
    { headers: { 'Content-Encoding': 'gzip' }, body: gzipSync('[{"z":26}]') },
  ],
  ['a status the pipeline sets (201)', json, created, { body: '{"a":1}' }],
  ['TRACE refused (405)', json, echoPipeline, { method: 'TRACE' }],
  ['no application ID (403)', withIds, echoPipeline, { body: '{}' }],
  [
    'a wrong application ID (403)',
    withIds,
    echoPipeline,
    { headers: { 'X-ENGINE-APPLICATION-ID': 'x' }, body: '{}' },
  ],
  [
    'an unknown Content-Encoding (415)',
    json,
    echoPipeline,
    { headers: { 'Content-Encoding': 'compress' }, body: 'x' },
  ],
  [
    'a corrupt gzip body (400)',
    json,
    echoPipeline,
    { headers: { 'Content-Encoding': 'gzip' }, body: 'not gzip' },
  ],
  [
    'a body over the size limit (413)',
    { ...json, http: { maxRequestSizeMb: 1 } },
    echoPipeline,
    { body: `[${'1,'.repeat(600_000)}1]` },
  ],
  ['malformed JSON (parse failure)', json, echoPipeline, { body: '{"a":' }],
  [
    'malformed JSON sent to error (error records)',
    { ...json, general: { onRecordError: 'sendToError' } },
    echoPipeline,
    { body: '{"a":1}\n{"b":' },
  ],
  ['a pipeline that throws (500)', json, failing, { body: '{}' }],
];

describe('inject gives the answer a socket gets', () => {
  it.each(cases)('%s', async (_name, config, pipeline, request) => {
    const pool = new InProcessRunnerPool(10, pipeline, { runnerIdleTimeMs: 0 });
    const origin = new Origin(
      { ...config, http: { ...config.http, host: '127.0.0.1', port: 0 } },
      { runners: pool },
    );
    const test = createTestOrigin(config, pipeline);
    try {
      const url = await origin.start();
      const [viaSocket, injected] = await Promise.all([overSocket(url, request), test.inject(request)]);
      expect(comparable(injected)).toEqual(comparable(viaSocket));
    } finally {
      await origin.destroy();
      await pool.close();
      await test.close();
    }
  });
});

describe('createTestOrigin', () => {
  it('gives each answer the batches the pipeline received for that request', async () => {
    const test = createTestOrigin({ ...json, http: { applicationIds: ['orders'] } }, echoPipeline);
    try {
      const [first, refused, second] = await Promise.all([
        test.inject({
          path: '/a?n=1',
          headers: { 'X-ENGINE-APPLICATION-ID': 'orders', 'X-Trace': 't1' },
          body: '{"n":1} {"n":2}',
        }),
        test.inject({ path: '/b', body: '{}' }),
        test.inject({
          path: '/c',
          headers: { 'X-ENGINE-APPLICATION-ID': 'orders' },
          body: '{}',
          remoteAddress: '10.1.2.3',
        }),
      ]);
      expect(first.json()).toEqual({
        httpStatusCode: 200,
        data: [{ n: 1 }, { n: 2 }],
        error: [],
        errorMessage: null,
      });
      expect(first.batches).toHaveLength(1);
      const [batch] = first.batches;
      expect(batch!.records.map((record) => record.value)).toEqual([{ n: 1 }, { n: 2 }]);
      expect(batch!.request).toMatchObject({ path: '/a', queryString: 'n=1', applicationId: 'orders' });
      expect(batch!.records[0]!.header.getAttribute('X-Trace')).toBe('t1');
      expect(refused.status).toBe(403);
      expect(refused.batches).toEqual([]);
      expect(second.batches[0]!.request?.remoteHost).toBe('10.1.2.3');
      expect(test.batches).toHaveLength(2);
      expect(test.origin.metrics().requests.total).toBe(3);
    } finally {
      await test.close();
    }
  });

  it('refuses a config that is not valid, as new Origin does', () => {
    expect(() =>
      createTestOrigin({ http: { port: 70000 }, dataFormat: { format: 'json' } }, echoPipeline),
    ).toThrow(/\/http\/port/);
  });

  it('answers 503 once closed, and opens no port', async () => {
    const test = createTestOrigin(json, echoPipeline);
    expect(test.origin.url).toBeUndefined();
    await test.close();
    const answer = await test.inject({ body: '{}' });
    expect(answer.status).toBe(503);
  });
});

import { request } from 'undici';
import {
  DataRecord,
  SendResponse,
  defaultRegistry,
  echoPipeline,
  fieldValuesToJsonArray,
  parseWhole,
  type Batch,
  type OriginConfigInput,
  type ParseResult,
} from 'rest-service-origin';
import { BufferedResponseSink } from '../../src/response/buffered-response-sink';
import { renderJsonResponse } from '../../src/response/json-response';
import { DeferredRecord } from '../../src/record/deferred-record';
import { startOrigin, type TestOrigin } from './origin-helpers';

// Large bodies on the request path (decision 0090): read over several turns, their records made chunk by chunk,
// their answer rendered in pieces; what the pipeline and the client get is exactly what one whole parse gives.

const BODY_BYTES = 20_000_000;
// 20 MB bodies parsed twice (by the origin and whole, for comparison) on a machine that may be shared.
jest.setTimeout(120_000);

function bodyOf(line: (i: number) => string, header = ''): Buffer {
  const lines = [header];
  let length = header.length;
  for (let i = 0; length < BODY_BYTES; i++) {
    const text = line(i);
    lines.push(text);
    length += text.length;
  }
  return Buffer.from(lines.join(''), 'utf8');
}

const CASES: readonly {
  name: string;
  dataFormat: OriginConfigInput['dataFormat'];
  formatName: string;
  formatConfig: unknown;
  body: () => Buffer;
  /** A one-record body of the same format. */
  small: string;
}[] = [
  {
    name: 'JSON multipleObjects',
    dataFormat: { format: 'json', json: { jsonContent: 'multipleObjects' } },
    formatName: 'json',
    formatConfig: { jsonContent: 'multipleObjects' },
    small: '{"id":1}\n',
    body: () =>
      // A few integers beyond 2^53 take the exact decoder; the rest the native one.
      bodyOf(
        (i) =>
          `{"id":${i},"name":"customer ${i}","city":"Zürich","n":${i % 5000 === 0 ? '12345678901234567' : i}}\n`,
      ),
  },
  {
    name: 'JSON arrayOfObjects',
    dataFormat: { format: 'json', json: { jsonContent: 'arrayOfObjects' } },
    formatName: 'json',
    formatConfig: { jsonContent: 'arrayOfObjects' },
    small: '[{"id":1}]',
    body: () => {
      const lines = bodyOf((i) => `{"id":${i},"name":"customer ${i}","score":${i / 7}},`, '[');
      return Buffer.concat([lines.subarray(0, lines.length - 1), Buffer.from(']')]);
    },
  },
  {
    name: 'CSV with a header line',
    dataFormat: { format: 'delimited', delimited: { headerLine: 'withHeader' } },
    formatName: 'delimited',
    formatConfig: { headerLine: 'withHeader' },
    small: 'id\n1\n',
    body: () =>
      bodyOf(
        (i) =>
          `${i},"customer, ${i}",Zürich,c${i}@example.com,${i % 2 === 0},${i * 1.5},69001,"a ""quoted"" note"\n`,
        'id,name,city,email,active,score,zip,note\n',
      ),
  },
];

async function post(url: string, body: Buffer | string): Promise<{ status: number; text: string }> {
  const answer = await request(url, { method: 'POST', body });
  return { status: answer.statusCode, text: await answer.body.text() };
}

describe.each(CASES)(
  'a 20 MB $name body',
  ({ dataFormat, formatName, formatConfig, body: makeBody, small }) => {
    let body: Buffer;
    let whole: ParseResult;
    let origin: TestOrigin;
    let batches: Batch[] = [];
    /** Per batch: how many of its records reached the pipeline with their value still as text (decision 0125). */
    let deferred: number[] = [];

    beforeAll(async () => {
      body = makeBody();
      whole = parseWhole(defaultRegistry.get(formatName)!, formatConfig, body);
      origin = await startOrigin(
        { dataFormat, http: { maxRequestSizeMb: 50, maxHeapUsagePercent: 100 } },
        (batch, context) => {
          batches.push(batch);
          deferred.push(batch.records.filter((r) => r instanceof DeferredRecord && r.isDeferred).length);
          return echoPipeline(batch, context);
        },
      );
    });
    afterAll(() => origin.stop());
    beforeEach(() => {
      batches = [];
      deferred = [];
    });

    it('gives the pipeline the records of one whole parse, numbered as one parse numbers them, and answers with byte for byte the envelope rendered whole', async () => {
      const answer = await post(origin.url, body);
      expect(answer.status).toBe(200);
      expect(whole.failures).toEqual([]);
      const [batch] = batches;
      const records = batch!.records;
      expect(records).toHaveLength(whole.records.length);
      // The answer was rendered from values kept as text (rows cut by a chunk boundary are made at once).
      expect(deferred[0]).toBeGreaterThan(0.9 * records.length);
      const values = fieldValuesToJsonArray(records.map((record) => record.value));
      expect(values === fieldValuesToJsonArray(whole.records.map((record) => record.value))).toBe(true);
      const requestId = records[0]!.header.sourceId.split('::')[0];
      for (const index of [0, 1, 4095, records.length - 1]) {
        expect(records[index]!.header.sourceId).toBe(`${requestId}::${index}`);
      }
      const sink = new BufferedResponseSink();
      sink.addRecords(
        whole.records.map((record) => new DataRecord(record.value)),
        200,
      );
      const expected = renderJsonResponse(sink, {
        sendRawResponse: false,
        jsonContent: 'multipleObjects',
        charset: 'UTF-8',
      });
      expect(answer.text.length).toBe((expected.body as string).length);
      expect(answer.text === expected.body).toBe(true);
    });

    it('answers one-record requests sent back to back while it is read, its turns leaving them room, and still gives the records of one whole parse (decision 0137)', async () => {
      let uploading = true;
      const large = post(origin.url, body).finally(() => (uploading = false));
      let answered = 0;
      while (uploading && answered < 5000) {
        const answer = await post(origin.url, small);
        expect(answer.status).toBe(200);
        expect(JSON.parse(answer.text).data).toHaveLength(1);
        answered++;
      }
      expect((await large).status).toBe(200);
      expect(answered).toBeGreaterThan(0);
      const largeBatches = batches.filter((batch) => batch.records.length > 1);
      expect(largeBatches).toHaveLength(1);
      const values = fieldValuesToJsonArray(largeBatches[0]!.records.map((record) => record.value));
      expect(values === fieldValuesToJsonArray(whole.records.map((record) => record.value))).toBe(true);
    });
  },
);

describe('a large answer is rendered over several turns', () => {
  it('answers a one-record request sent once the large batch reached the pipeline before the large answer', async () => {
    const body = bodyOf((i) => `{"id":${i},"name":"customer ${i}"}\n`);
    let reached: () => void = () => {};
    const inPipeline = new Promise<void>((resolve) => (reached = resolve));
    const send = new SendResponse();
    const origin = await startOrigin(
      {
        dataFormat: { format: 'json', json: { jsonContent: 'multipleObjects' } },
        http: { maxRequestSizeMb: 50, maxHeapUsagePercent: 100 },
      },
      (batch) => {
        if (batch.records.length > 1) reached();
        send.write(batch);
      },
    );
    try {
      const order: string[] = [];
      const large = request(origin.url, { method: 'POST', body }).then(async (answer) => {
        order.push('large');
        await answer.body.dump();
        return answer.statusCode;
      });
      await inPipeline;
      // Before pieces, the whole answer was rendered and written in the step that ran the pipeline, before this
      // request could even be read.
      const small = await request(origin.url, { method: 'POST', body: '{"a":1}' });
      order.push('small');
      expect(small.statusCode).toBe(200);
      expect(await small.body.json()).toEqual({
        httpStatusCode: 200,
        data: [{ a: 1 }],
        error: [],
        errorMessage: null,
      });
      expect(await large).toBe(200);
      expect(order).toEqual(['small', 'large']);
    } finally {
      await origin.stop();
    }
  });
});

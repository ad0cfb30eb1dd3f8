import { createIdleBatch, createRequestBatch, type RequestInfo } from '../../src/pipeline/batch';
import { DataRecord } from '../../src/record/data-record';
import { BufferedResponseSink } from '../../src/response/buffered-response-sink';

const request: RequestInfo = {
  requestId: 'r-1',
  method: 'POST',
  path: '/orders',
  queryString: 'a=1',
  remoteHost: '127.0.0.1',
  headers: { 'Content-Type': 'application/json' },
  receivedAt: 1_700_000_000_000,
};

describe('createRequestBatch', () => {
  it('keeps the records array as given, in body order', () => {
    const records = [new DataRecord({ n: 1 }), new DataRecord({ n: 2 })];
    const batch = createRequestBatch({ records, request });
    expect(batch.records).toBe(records);
    expect(batch.records.map((r) => r.value)).toEqual([{ n: 1 }, { n: 2 }]);
    expect(batch.request).toBe(request);
    expect(batch.idle).toBe(false);
  });

  // The origin passes its own sink: the pipeline layer builds no response class (DESIGN §3 layering).
  it('gives the batch an empty error list and no response sink by default', () => {
    const batch = createRequestBatch({ records: [], request });
    expect(batch.errorRecords).toEqual([]);
    expect(batch.response).toBeUndefined();
  });

  it('uses the error records and response sink it is given', () => {
    const errorRecords = [new DataRecord('bad')];
    const response = new BufferedResponseSink();
    const batch = createRequestBatch({ records: [], request, errorRecords, response });
    expect(batch.errorRecords).toBe(errorRecords);
    expect(batch.response).toBe(response);
  });
});

describe('createIdleBatch', () => {
  it('makes a batch with no records, no request and no response', () => {
    const batch = createIdleBatch();
    expect(batch).toEqual({ records: [], errorRecords: [], idle: true });
    expect(batch.request).toBeUndefined();
    expect(batch.response).toBeUndefined();
  });

  it('returns a new batch with its own arrays on each call', () => {
    const first = createIdleBatch();
    first.records.push(new DataRecord(1));
    const second = createIdleBatch();
    expect(second).not.toBe(first);
    expect(second.records).toEqual([]);
  });
});

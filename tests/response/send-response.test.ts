import { createIdleBatch, createRequestBatch } from '../../src/pipeline/batch';
import type { ResponseSink } from '../../src/pipeline/response-sink';
import { DataRecord } from '../../src/record/data-record';
import { batchOf, errorRecord } from '../pipeline/batch-fixtures';
import { SendErrorResponse, SendResponse } from '../../src/response/send-response';

describe('SendResponse', () => {
  it('adds all records of the batch with status 200 by default', () => {
    const records = [new DataRecord({ a: 1 }), new DataRecord({ a: 2 })];
    const batch = batchOf(records);
    new SendResponse().write(batch);
    expect(batch.response?.dataRecords).toEqual(records);
    expect(batch.response?.errorRecords).toEqual([]);
    expect(batch.response?.statusCodes).toEqual([200]);
  });

  it('adds the records it is given with its status code and headers', () => {
    const records = [new DataRecord({ a: 1 }), new DataRecord({ a: 2 })];
    const batch = batchOf(records);
    new SendResponse({ statusCode: 201, headers: { Location: '/orders/1' } }).write(batch, records.slice(1));
    expect(batch.response?.dataRecords).toEqual([records[1]]);
    expect(batch.response?.statusCodes).toEqual([201]);
    expect(batch.response?.headers).toEqual({ Location: ['/orders/1'] });
  });

  it('ignores a batch without a response sink', () => {
    const idle = createIdleBatch();
    expect(() => new SendResponse().write(idle, [new DataRecord(1)])).not.toThrow();
    expect(idle.response).toBeUndefined();
  });

  it.each([0, 99, 1000, 1.5])('refuses status code %p at construction', (statusCode) => {
    expect(() => new SendResponse({ statusCode })).toThrow(
      expect.objectContaining({ code: 'ORIGIN_RESPONSE_STATUS_INVALID' }),
    );
  });

  it('accepts any three-digit status code, as the engine accepts 867', () => {
    expect(new SendResponse({ statusCode: 867 }).statusCode).toBe(867);
  });

  it('refuses an invalid header at construction', () => {
    expect(() => new SendResponse({ headers: { 'X-A': 'a\nb' } })).toThrow(
      expect.objectContaining({ code: 'ORIGIN_RESPONSE_HEADER_INVALID' }),
    );
  });

  it('keeps its own copy of the headers it was given', () => {
    const headers: Record<string, string> = { 'X-A': '1' };
    const destination = new SendResponse({ headers });
    headers['X-A'] = 'changed';
    expect(destination.headers).toEqual({ 'X-A': '1' });
  });
});

describe('SendResponse.forErrors', () => {
  it('adds the batch error records with status 500 by default', () => {
    const errors = [errorRecord('x', 'E - bad')];
    const batch = batchOf([new DataRecord(1)], errors);
    const destination = SendResponse.forErrors();
    expect(destination).toBeInstanceOf(SendErrorResponse);
    destination.write(batch);
    expect(batch.response?.errorRecords).toEqual(errors);
    expect(batch.response?.dataRecords).toEqual([]);
    expect(batch.response?.statusCodes).toEqual([500]);
  });

  it('adds the error records it is given with its status code and headers', () => {
    const batch = batchOf([]);
    const failed = [errorRecord('y', 'E - worse')];
    SendResponse.forErrors({ statusCode: 422, headers: { 'X-Error': 'yes' } }).write(batch, failed);
    expect(batch.response?.errorRecords).toEqual(failed);
    expect(batch.response?.statusCodes).toEqual([422]);
    expect(batch.response?.headers).toEqual({ 'X-Error': ['yes'] });
  });

  it('ignores a batch without a response sink', () => {
    expect(() => SendResponse.forErrors().write(createIdleBatch())).not.toThrow();
  });

  it('refuses an invalid status code at construction', () => {
    expect(() => new SendErrorResponse({ statusCode: 42 })).toThrow(
      expect.objectContaining({ code: 'ORIGIN_RESPONSE_STATUS_INVALID' }),
    );
  });
});

// The batch carries the pipeline's ResponseSink interface; a host may give its batches a sink of its own.
describe('SendResponse with a host-made response sink', () => {
  function recordingSink(): ResponseSink & { calls: unknown[][] } {
    const calls: unknown[][] = [];
    return {
      calls,
      addRecords: (records, statusCode, headers) => void calls.push(['data', records, statusCode, headers]),
      addErrorRecords: (records, statusCode, headers) =>
        void calls.push(['error', records, statusCode, headers]),
      dataRecords: [],
      errorRecords: [],
      statusCodes: [],
      headers: {},
      isEmpty: true,
    };
  }

  it('writes data and error records through the interface', () => {
    const sink = recordingSink();
    const records = [new DataRecord({ a: 1 })];
    const errors = [errorRecord('x', 'bad')];
    const { request } = batchOf([]);
    const batch = createRequestBatch({ records, errorRecords: errors, request: request!, response: sink });
    new SendResponse({ headers: { 'X-A': '1' } }).write(batch);
    SendResponse.forErrors().write(batch);
    expect(sink.calls).toEqual([
      ['data', records, 200, { 'X-A': '1' }],
      ['error', errors, 500, undefined],
    ]);
  });
});

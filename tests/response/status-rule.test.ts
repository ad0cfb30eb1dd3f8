import { DataRecord } from '../../src/record/data-record';
import { batchOf, errorRecord } from '../pipeline/batch-fixtures';
import { BufferedResponseSink } from '../../src/response/buffered-response-sink';
import { SendResponse } from '../../src/response/send-response';
import { responseStatus } from '../../src/response/status-rule';

describe('responseStatus', () => {
  it('is 200 when no record reached the response', () => {
    expect(responseStatus(new BufferedResponseSink())).toBe(200);
  });

  it('is the one status code all records came with', () => {
    const batch = batchOf([new DataRecord(1), new DataRecord(2)]);
    new SendResponse({ statusCode: 202 }).write(batch, batch.records.slice(0, 1));
    new SendResponse({ statusCode: 202 }).write(batch, batch.records.slice(1));
    expect(responseStatus(batch.response as BufferedResponseSink)).toBe(202);
  });

  it('is the error form default 500 when only error records came', () => {
    const batch = batchOf([], [errorRecord('x', 'E - bad')]);
    SendResponse.forErrors().write(batch);
    expect(responseStatus(batch.response as BufferedResponseSink)).toBe(500);
  });

  it('is 207 when records came with different status codes', () => {
    const batch = batchOf([new DataRecord(1)], [errorRecord('x', 'E - bad')]);
    new SendResponse().write(batch);
    SendResponse.forErrors().write(batch);
    expect(responseStatus(batch.response as BufferedResponseSink)).toBe(207);
  });
});

import { createRequestBatch, type Batch } from '../../src/pipeline/batch';
import { DataRecord } from '../../src/record/data-record';
import { BufferedResponseSink } from '../../src/response/buffered-response-sink';

/** A request batch of `records` (and `errorRecords`) with a fixed, plain request and a new, empty response sink. */
export function batchOf(records: DataRecord[], errorRecords: DataRecord[] = [], requestId = 'r-1'): Batch {
  return createRequestBatch({
    records,
    errorRecords,
    response: new BufferedResponseSink(),
    request: {
      requestId,
      method: 'POST',
      path: '/',
      queryString: '',
      remoteHost: '127.0.0.1',
      headers: {},
      receivedAt: 0,
    },
  });
}

/** An error record whose value is `value` and whose header carries `message`. */
export const errorRecord = (value: string, message: string): DataRecord =>
  DataRecord.createErrorRecord(new DataRecord(value), { code: 'E', message, stage: 'origin' });

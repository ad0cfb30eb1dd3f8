import { DataRecord, writeEngineRecords, type Batch } from 'rest-service-origin';
import { injectOrigin, type ServedOrigin } from './origin-helpers';

describe('origin reading Engine Record bodies', () => {
  let running: ServedOrigin | undefined;
  afterEach(async () => {
    await running?.stop();
    running = undefined;
  });

  it('hands error records to the pipeline as error records, with their error and attributes', async () => {
    let seen: DataRecord[] = [];
    running = injectOrigin({ dataFormat: { format: 'engineRecord' } }, (batch: Batch) => {
      seen = batch.records;
    });
    const plain = new DataRecord({ order: 1 }, { attributes: { origin: 'store-7' } });
    const failed = DataRecord.createErrorRecord(new DataRecord({ order: 2 }), {
      code: 'ORDERS_01',
      message: 'ORDERS_01 - quantity missing',
      stage: 'validate',
      timestamp: 1_700_000_000_000,
    });
    const answer = await running.send({ body: writeEngineRecords([plain, failed]) });
    expect(answer.status).toBe(200);
    expect(seen.map((r) => r.value)).toEqual([{ order: 1 }, { order: 2 }]);
    expect(seen[0]?.header.isErrorRecord).toBe(false);
    expect(seen[0]?.header.getAttribute('origin')).toBe('store-7');
    expect(seen[1]?.header).toMatchObject({
      isErrorRecord: true,
      errorCode: 'ORDERS_01',
      errorMessage: 'ORDERS_01 - quantity missing',
      errorStage: 'validate',
      errorTimestamp: 1_700_000_000_000,
    });
    // The request's own attributes are there too.
    expect(seen[1]?.header.getAttribute('method')).toBe('POST');
  });
});

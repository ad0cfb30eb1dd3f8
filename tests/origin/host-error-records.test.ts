import { DataRecord, SendResponse, type Pipeline } from 'rest-service-origin';
import { injectOrigin, type ServedOrigin } from './origin-helpers';

/** A pipeline whose own stage turns each record into an error record, as host code does. */
function failingStage(message: string): Pipeline {
  return (batch) => {
    const errors = batch.records.map((record) =>
      DataRecord.createErrorRecord(record, { code: 'ORDERS_01', message, stage: 'validate-orders' }),
    );
    SendResponse.forErrors().write(batch, errors);
  };
}

describe('error records made by host code', () => {
  let running: ServedOrigin | undefined;
  afterEach(async () => {
    await running?.stop();
    running = undefined;
  });

  it('answer with errorMessage in the <CODE> - <text> form, as the origin’s own do', async () => {
    running = injectOrigin({}, failingStage('the order total is negative'));
    const answer = await running.send({ body: '{"total":-1}' });
    expect((answer.json as { errorMessage: unknown }).errorMessage).toBe(
      'ORDERS_01 - the order total is negative',
    );
  });

  it('keep a message that is in that form already', async () => {
    running = injectOrigin({}, failingStage('ORDERS_01 - the order total is negative'));
    const answer = await running.send({ body: '{"total":-1}' });
    expect((answer.json as { errorMessage: unknown }).errorMessage).toBe(
      'ORDERS_01 - the order total is negative',
    );
  });

  it('answer the same in XML', async () => {
    running = injectOrigin(
      { httpResponse: { dataFormat: 'xml', prettyFormat: false } },
      failingStage('the order total is negative'),
    );
    const answer = await running.send({ body: '{"total":-1}' });
    expect(answer.text).toContain('<errorMessage>ORDERS_01 - the order total is negative</errorMessage>');
  });
});

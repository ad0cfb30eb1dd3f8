import type { ParsedRecord } from '../../src/formats/data-format';
import { failure } from '../../src/formats/failure';
import { applyRecordErrorPolicy } from '../../src/origin/record-error-policy';
import type { RequestRecordSource } from '../../src/record/data-record';

const origin: RequestRecordSource = { requestId: 'r-7', baseAttributes: { method: 'POST' } };
const STAGE = 'REST Service 1';
const parsed: ParsedRecord[] = [{ value: { a: 1 } }, { value: { b: 2 }, attributes: { part: 'x' } }];
const recordFailure = failure({
  code: 'ORIGIN_JSON_MALFORMED',
  params: { offset: 9, detail: 'unexpected token' },
  recordIndex: 1,
  byteOffset: 9,
  excerpt: '{"c":',
  canContinue: true,
});
const stageFailure = failure({
  code: 'ORIGIN_JSON_ARRAY_EXPECTED',
  params: { found: '{' },
  scope: 'stage',
  recordIndex: 0,
  byteOffset: 0,
  excerpt: '{',
  canContinue: false,
});

describe('applyRecordErrorPolicy', () => {
  it('makes one record per parsed record, in order, with the request attributes and its own', () => {
    const outcome = applyRecordErrorPolicy(parsed, [], 'discard', origin, STAGE);
    expect(outcome.records.map((r) => r.value)).toEqual([{ a: 1 }, { b: 2 }]);
    expect(outcome.records[1]?.header.getAttribute('method')).toBe('POST');
    expect(outcome.records[1]?.header.getAttribute('part')).toBe('x');
    expect(outcome).toMatchObject({
      errorRecords: [],
      discarded: 0,
      stopFailure: undefined,
      stageFailure: undefined,
    });
  });

  it('counts failed records under discard', () => {
    const outcome = applyRecordErrorPolicy(parsed, [recordFailure], 'discard', origin, STAGE);
    expect(outcome.records).toHaveLength(2);
    expect(outcome.discarded).toBe(1);
    expect(outcome.errorRecords).toEqual([]);
  });

  it('makes an error record per failure under sendToError: the excerpt, the code and message, the stage', () => {
    const outcome = applyRecordErrorPolicy(parsed, [recordFailure], 'sendToError', origin, STAGE);
    expect(outcome.errorRecords).toHaveLength(1);
    const [error] = outcome.errorRecords;
    expect(error?.value).toBe('{"c":');
    expect(error?.header.errorCode).toBe('ORIGIN_JSON_MALFORMED');
    expect(error?.header.errorMessage).toBe(`ORIGIN_JSON_MALFORMED - ${recordFailure.message}`);
    expect(error?.header.errorStage).toBe('REST Service 1');
    expect(error?.header.getAttribute('errorRecordIndex')).toBe('1');
    expect(error?.header.getAttribute('errorByteOffset')).toBe('9');
    expect(outcome.discarded).toBe(0);
  });

  it('reports the first failed record under stopPipeline', () => {
    const outcome = applyRecordErrorPolicy(parsed, [recordFailure], 'stopPipeline', origin, STAGE);
    expect(outcome.stopFailure).toBe(recordFailure);
    expect(outcome.errorRecords).toEqual([]);
  });

  it('lets a stage failure win over every policy', () => {
    for (const policy of ['discard', 'sendToError', 'stopPipeline'] as const) {
      const outcome = applyRecordErrorPolicy(parsed, [recordFailure, stageFailure], policy, origin, STAGE);
      expect(outcome.stageFailure).toBe(stageFailure);
      expect(outcome).toMatchObject({ errorRecords: [], discarded: 0, stopFailure: undefined });
    }
  });
});

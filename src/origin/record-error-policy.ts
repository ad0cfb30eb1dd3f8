import type { ParseFailure, ParsedRecord, ParsedRecordError } from '../formats/data-format';
import { DataRecord, requestRecord, type RequestRecordSource } from '../record/data-record';
import { deferredRequestRecord } from '../record/deferred-record';
import type { OnRecordError } from './config';

/** The records of one input after the On Record Error policy, ready to become a batch. */
export interface PolicyOutcome {
  readonly records: DataRecord[];
  readonly errorRecords: DataRecord[];
  readonly discarded: number;
  /** Set under `stopPipeline` when a record failed: the pipeline must stop and no batch is made. */
  readonly stopFailure: ParseFailure | undefined;
  /** A failure of the whole input (`scope: 'stage'`): no batch is made; the request is answered with its code. */
  readonly stageFailure: ParseFailure | undefined;
}

/**
 * Turns parser output into records and error records under `policy`:
 * - `discard` drops each failed record (counted);
 * - `sendToError` makes an error record per failure: its value is the raw excerpt of the bad input (a STRING),
 *   its header carries the error code, `"<CODE> - <message>"`, the stage name and the time, plus the attributes
 *   `errorRecordIndex` and `errorByteOffset`;
 * - `stopPipeline` reports the first failed record so that the origin answers 500 and stops.
 * A `stage`-scoped failure always wins: the input as a whole is refused.
 *
 * `source` gives the request id and attributes every record shares (read only when a record's header is first
 * read, or for an error record); `stageName` is the stage error records name as theirs.
 */
export function applyRecordErrorPolicy(
  parsed: readonly ParsedRecord[],
  failures: readonly ParseFailure[],
  policy: OnRecordError,
  source: RequestRecordSource,
  stageName: string,
): PolicyOutcome {
  const records = parsed.map((record, index) => requestRecordOf(record, source, index));
  return applyRecordErrorPolicyToRecords(records, failures, policy, source, stageName);
}

/**
 * The record of the request made from the `index`-th parsed record of its body: what
 * {@link applyRecordErrorPolicy} makes of each. The origin makes them while a large body is parsed, chunk by
 * chunk, so that no single step makes all of them at once (decision 0090).
 */
export function requestRecordOf(
  parsed: ParsedRecord,
  source: RequestRecordSource,
  index: number,
): DataRecord {
  // The records' headers are built when first read (most pipelines never read them); they are the same then.
  // A large body's value kept as its text is decoded on first read (decision 0125).
  const made =
    parsed.deferred === undefined
      ? requestRecord(parsed.value, source, index, parsed.attributes)
      : deferredRequestRecord(parsed.deferred, source, index, parsed.attributes);
  if (parsed.error) markError(made, parsed.error);
  return made;
}

/**
 * {@link applyRecordErrorPolicy} for records already made with {@link requestRecordOf}, in body order; `records`
 * becomes the outcome's `records` (not copied).
 */
export function applyRecordErrorPolicyToRecords(
  records: DataRecord[],
  failures: readonly ParseFailure[],
  policy: OnRecordError,
  source: RequestRecordSource,
  stageName: string,
): PolicyOutcome {
  // Nearly every body parses without a failure: no searching, filtering or copying then.
  if (failures.length === 0) {
    return { records, errorRecords: [], discarded: 0, stopFailure: undefined, stageFailure: undefined };
  }
  const stageFailure = failures.find((f) => f.scope === 'stage');
  const recordFailures = failures.filter((f) => f.scope === 'record');
  const none = { records, errorRecords: [], discarded: 0, stopFailure: undefined, stageFailure };
  if (stageFailure || recordFailures.length === 0) return none;
  switch (policy) {
    case 'discard':
      return { ...none, discarded: recordFailures.length };
    case 'stopPipeline':
      return { ...none, stopFailure: recordFailures[0] };
    case 'sendToError':
      return {
        ...none,
        errorRecords: recordFailures.map((failure) => errorRecordOf(failure, source, stageName)),
      };
  }
}

function errorRecordOf(failure: ParseFailure, source: RequestRecordSource, stageName: string): DataRecord {
  const record = new DataRecord(failure.excerpt, {
    baseAttributes: source.baseAttributes,
    attributes: {
      errorRecordIndex: String(failure.recordIndex),
      errorByteOffset: String(failure.byteOffset),
    },
    sourceId: `${source.requestId}::error::${failure.recordIndex}`,
  });
  markError(record, {
    code: failure.code,
    message: `${failure.code} - ${failure.message}`,
    stage: stageName,
    timestamp: Date.now(),
  });
  return record;
}

function markError(record: DataRecord, error: ParsedRecordError): void {
  record.header.errorCode = error.code;
  record.header.errorMessage = error.message;
  record.header.errorStage = error.stage;
  if (error.timestamp !== undefined) record.header.errorTimestamp = error.timestamp;
}

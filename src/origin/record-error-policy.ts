import type { ParseFailure, ParsedRecord, ParsedRecordError } from '../formats/data-format';
import { DataRecord, requestRecord, type RequestRecordSource } from '../record/data-record';
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
  // The records' headers are built when first read (most pipelines never read them); they are the same then.
  const records = parsed.map((record, index) => {
    const made = requestRecord(record.value, source, index, record.attributes);
    if (record.error) markError(made, record.error);
    return made;
  });
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

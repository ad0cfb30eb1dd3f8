import type { DataRecord } from '../../record/data-record';
import type { DataFormat, ParseFailure } from '../data-format';
import { EngineRecordParser, type EngineParsedRecord } from './engine-record-parser';
import { ENGINE_RECORD_FORMAT_SCHEMA, type EngineRecordFormatConfig } from './engine-record-options';

/**
 * The built-in `engineRecord` format: records written by `writeEngineRecords` (another pipeline's output, or
 * its error records) read back exactly, one per line (see `EngineRecordParser`).
 */
export const engineRecordFormat: DataFormat<EngineRecordFormatConfig> = {
  name: 'engineRecord',
  description: 'Engine Record: records serialized with their field types, header and error information.',
  configSchema: ENGINE_RECORD_FORMAT_SCHEMA,
  createParser: () => new EngineRecordParser(),
};

/**
 * Reads a whole Engine Record body into full records: value trees, header attributes, source ids and, for error
 * records, the error code, message, stage and timestamp. `failures` are as the parser reports them.
 */
export function readEngineRecords(bytes: Uint8Array): { records: DataRecord[]; failures: ParseFailure[] } {
  const parser = new EngineRecordParser();
  const first = parser.push(bytes);
  const last = parser.end();
  const parsed = [...first.records, ...last.records] as EngineParsedRecord[];
  return { records: parsed.map((r) => r.record), failures: [...first.failures, ...last.failures] };
}

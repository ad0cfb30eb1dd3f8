import type { DataFormat, ParseResult, ParseSource, Parser } from './data-format';
import { resolveFormatConfig } from './format-config';

/**
 * Parses one whole input held in one buffer, as a test or a host that already has the bytes would. `formatConfig`
 * is the format's own options object (`{ jsonContent: 'arrayOfObjects' }`), validated and completed with defaults
 * by {@link resolveFormatConfig} (which throws `ORIGIN_CONFIG_INVALID` when it is wrong). Uses the parser's
 * `parseAll` when it has one, else one `push` and `end`. `source` defaults to a one-off source with an empty
 * `originState`.
 */
export function parseWhole<C>(
  format: DataFormat<C>,
  formatConfig: unknown,
  bytes: Uint8Array,
  source: ParseSource = { originState: new Map() },
): ParseResult {
  const parser = format.createParser(resolveFormatConfig(format, formatConfig), source);
  if (parser.parseAll) return parser.parseAll(bytes);
  return concatResults([parser.push(bytes), parser.end()]);
}

/**
 * Parses one input that arrives in chunks: every chunk is pushed in order, then `end` is called, and the records
 * and failures of every step are concatenated. Config and source are treated as in {@link parseWhole}.
 */
export async function parseStream<C>(
  format: DataFormat<C>,
  formatConfig: unknown,
  chunks: AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
  source: ParseSource = { originState: new Map() },
): Promise<ParseResult> {
  const parser: Parser = format.createParser(resolveFormatConfig(format, formatConfig), source);
  const results: ParseResult[] = [];
  for await (const chunk of chunks) results.push(parser.push(chunk));
  results.push(parser.end());
  return concatResults(results);
}

/** The records and failures of `results`, in order, as one result. */
export function concatResults(results: readonly ParseResult[]): ParseResult {
  if (results.length === 1 && results[0]) return results[0];
  const merged: ParseResult = { records: [], failures: [] };
  for (const result of results) {
    for (const record of result.records) merged.records.push(record);
    for (const failure of result.failures) merged.failures.push(failure);
  }
  return merged;
}

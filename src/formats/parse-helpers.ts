import type { CompressionConfig } from './compression/compression-options';
import { createCompressionParser } from './compression/compression-parser';
import type { DataFormat, ParseResult, ParseSource, Parser } from './data-format';
import { resolveFormatConfig } from './format-config';

/**
 * How a whole input is packed, for {@link parseWhole} and {@link parseStream}: `compression` as under
 * `dataFormat.compression`, and the most bytes decompression may produce (default 100 MB, the default
 * maxRequestSizeMb).
 */
export interface ParsePacking {
  readonly compression: CompressionConfig;
  readonly maxDecodedBytes?: number;
}

function createParser<C>(
  format: DataFormat<C>,
  formatConfig: unknown,
  source: ParseSource,
  packing: ParsePacking | undefined,
): Parser {
  const config = resolveFormatConfig(format, formatConfig);
  if (packing === undefined || packing.compression.format === 'none')
    return format.createParser(config, source);
  return createCompressionParser(format as DataFormat, config, packing.compression, source, {
    maxDecodedBytes: packing.maxDecodedBytes ?? 100_000_000,
  });
}

/**
 * Parses one whole input held in one buffer, as a test or a host that already has the bytes would. `formatConfig`
 * is the format's own options object (`{ jsonContent: 'arrayOfObjects' }`), validated and completed with defaults
 * by {@link resolveFormatConfig} (which throws `ORIGIN_CONFIG_INVALID` when it is wrong). Uses the parser's
 * `parseAll` when it has one, else one `push` and `end`. `source` defaults to a one-off source with an empty
 * `originState`. With `packing`, the input is a compressed file or an archive (see `createCompressionParser`).
 */
export function parseWhole<C>(
  format: DataFormat<C>,
  formatConfig: unknown,
  bytes: Uint8Array,
  source: ParseSource = { originState: new Map() },
  packing?: ParsePacking,
): ParseResult {
  const parser = createParser(format, formatConfig, source, packing);
  if (parser.parseAll) return parser.parseAll(bytes);
  return concatResults([parser.push(bytes), parser.end()]);
}

/**
 * Parses one input that arrives in chunks: every chunk is pushed in order, then `end` is called, and the records
 * and failures of every step are concatenated. Config, source and packing are treated as in {@link parseWhole}.
 */
export async function parseStream<C>(
  format: DataFormat<C>,
  formatConfig: unknown,
  chunks: AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
  source: ParseSource = { originState: new Map() },
  packing?: ParsePacking,
): Promise<ParseResult> {
  const parser = createParser(format, formatConfig, source, packing);
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

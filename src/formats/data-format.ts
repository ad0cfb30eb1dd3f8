import type { ErrorCode } from '../errors/error-table';
import type { DeferredBytes, DeferredValue } from '../record/deferred-record';
import type { FieldValue } from '../record/field';

/**
 * A JSON Schema (draft 2020-12 subset that ajv understands) describing a format's own options. Every property
 * carries a `default` (so an empty object is a complete config) and a `description` (which `docs/config.md`
 * shows).
 */
export type JsonSchema = { readonly [keyword: string]: unknown };

/** One record a parser produced: its value and the record header attributes the format adds (e.g. `avroSchema`). */
export interface ParsedRecord {
  readonly value: FieldValue;
  readonly attributes?: Readonly<Record<string, string>>;
  /**
   * Set when the input itself carries an error record (the Engine Record format): the record keeps its error
   * code, message, stage and time in its header when it becomes a `DataRecord`.
   */
  readonly error?: ParsedRecordError;
  /**
   * Set, with `value` null, by a parser asked to {@link Parser.deferValues}: the record's value as its source text
   * (or the bytes holding it, decision 0135) and the function that decodes it (decision 0125). The record's value is
   * `deferred.decode(deferredText(deferred))`.
   */
  readonly deferred?: DeferredValue | DeferredBytes;
}

/** The error information of an error record read from the input. */
export interface ParsedRecordError {
  readonly code: string;
  readonly message: string;
  readonly stage: string;
  readonly timestamp?: number;
}

/**
 * A record the parser could not produce. Failures are data, not exceptions: the parser reports them and carries
 * on when `canContinue` is true.
 *
 * - `scope: 'record'`: one record is lost; the stage's On Record Error policy decides what happens to it.
 * - `scope: 'stage'`: the input as a whole is refused (spec §7.2, Binary over Max Data Size): no record and no
 *   error record come from it, and the request is answered with the code's HTTP status.
 */
export interface ParseFailure {
  readonly code: ErrorCode;
  /** One sentence naming the problem (the code's message template filled in). */
  readonly message: string;
  readonly scope: 'record' | 'stage';
  /** Index the record would have had among the records of this input (0-based). */
  readonly recordIndex: number;
  /** Byte offset in the input where the bad record (or the problem) starts. */
  readonly byteOffset: number;
  /** The start of the offending input as text, at most {@link MAX_EXCERPT_CHARS} characters. */
  readonly excerpt: string;
  /** Whether parsing went on after this failure. */
  readonly canContinue: boolean;
}

/** The longest raw excerpt a failure carries. */
export const MAX_EXCERPT_CHARS = 256;

/** What one `push` or `end` produced. Records are in input order. */
export interface ParseResult {
  readonly records: ParsedRecord[];
  readonly failures: ParseFailure[];
}

/**
 * Where the bytes come from, and state that outlives one input. `originState` is one `Map` per origin and format
 * that lives as long as the origin (NetFlow v9 keeps its template cache there); it is empty for a one-off parse.
 */
export interface ParseSource {
  readonly remoteAddress?: string;
  readonly originState: Map<string, unknown>;
  /**
   * Most bytes a format may produce, all together, by decompressing data the input carries compressed (Avro's
   * block codecs); past it the input is refused with a `'stage'` failure answered 413. The origin sets
   * `http.maxRequestSizeMb` here; absent, only the format's own limits apply.
   */
  readonly maxDecodedBytes?: number;
}

/**
 * An incremental parser for one input (one request body, or one archive entry).
 *
 * Contract: call `push` with each chunk in order, then `end` once. Chunk boundaries may fall anywhere, including
 * inside a multi-byte character; any chunking gives the same records and failures as a single `push`. The parser
 * does not keep a reference to a chunk after `push` returns, so the caller may reuse its buffers. Neither method
 * throws on bad input: bad input is a {@link ParseFailure}. After a failure with `canContinue: false`, further
 * input is ignored.
 */
export interface Parser {
  /** Takes the next chunk of the input; returns the records and failures it completed. */
  push(chunk: Uint8Array): ParseResult;
  /** Ends the input; returns what was left (a last record, or a failure for a truncated input). */
  end(): ParseResult;
  /** Optional fast path for a whole input in one buffer; must give exactly what `push(bytes)` + `end()` give. */
  parseAll?(bytes: Uint8Array): ParseResult;
  /**
   * Optional: from now on, yield records whose value can be kept as its source text as {@link ParsedRecord}s with
   * `deferred` set (decision 0125). The origin asks this of a body past its whole-body size, so that a large
   * body's records hold a string each rather than a tree of objects until the pipeline reads them. A parser may
   * defer some records and not others; records and failures stay exactly what they would be otherwise.
   */
  deferValues?(): void;
}

/**
 * A data format: a name, the JSON Schema of its options (the format's sub-object of `dataFormat`, keyed by the
 * format's name), and a factory of parsers.
 *
 * @typeParam C - the format's config with defaults applied.
 */
export interface DataFormat<C = unknown> {
  /** Registry name, also the key of the format's options under `dataFormat` (`json`, `binary`, …). */
  readonly name: string;
  /** One line for docs. */
  readonly description: string;
  readonly configSchema: JsonSchema;
  /**
   * The record header attribute names the format's parsers write (`avroSchema`); a name ending in `*` stands for
   * every name it starts (`xmlns:*`). The origin reserves them: a request header of such a name (in any case) is
   * not copied into records, so that a client cannot forge them (decision 0046). Omit when the format writes
   * none, or when its attributes come from the input itself (Engine Record).
   */
  readonly headerAttributes?: readonly string[];
  /** Makes a parser for one input. `config` has been validated against `configSchema` with defaults applied. */
  createParser(config: C, source: ParseSource): Parser;
}

import { TextDecoder } from 'node:util';
import type { FieldValue } from '../../record/field';
import { ListMapShape, listMapShapeOf } from '../../record/list-map';
import type { ParsedRecord, ParseFailure, ParseResult, Parser } from '../data-format';
import { failure } from '../failure';
import { TextArena } from '../text-arena';
import { TextInput } from '../text-input';
import { dialectOf } from './delimited-dialect';
import type { DelimitedFormatConfig } from './delimited-options';
import {
  DelimitedTokenizer,
  type RowPosition,
  type RowProblem,
  type RowSink,
  type TokenizerSettings,
} from './delimited-tokenizer';

/**
 * Parses one delimited body into records, one per delimited line: every value is a STRING (or null, with
 * `parseNulls`); the root is a LIST_MAP keyed by header name or column index (`listMap`), or a list of
 * `{ header, value }` maps (`list`).
 *
 * Bad rows are failures, and parsing goes on with the next row: a row longer than `maxRecordLengthChars`
 * (`ORIGIN_DELIMITED_RECORD_TOO_LONG`, read past without being kept), a row with more columns than the header
 * when extra columns are not allowed (`ORIGIN_DELIMITED_COLUMNS_MISMATCH`), a malformed quoted value
 * (`ORIGIN_DELIMITED_MALFORMED`), and the wide-file limits (`ORIGIN_DELIMITED_TOO_MANY_COLUMNS`,
 * `ORIGIN_DELIMITED_COLUMN_TOO_LONG`). A failure's `recordIndex` counts data rows (not the header).
 */
export class DelimitedParser implements Parser {
  readonly #input: TextInput;
  readonly #decoder = new TextDecoder('utf-8');
  readonly #tokenizer: DelimitedTokenizer;
  readonly #rows: RecordBuilder;
  /** Decoded text not read yet (the tokenizer's look-ahead tail). */
  #pending = '';

  /** @throws `OriginError('ORIGIN_CHARSET_UNSUPPORTED')` when `config.charset` has no decoder here. */
  constructor(config: DelimitedFormatConfig) {
    this.#input = new TextInput(config.charset, config.ignoreControlCharacters);
    const dialect = dialectOf(config);
    this.#tokenizer = new DelimitedTokenizer(dialect);
    this.#rows = new RecordBuilder(config, dialect);
  }

  /** From now on, a row's value is kept as its raw text and made on first read (decision 0125). */
  deferValues(): void {
    this.#rows.defer();
  }

  /**
   * Characters this parser holds between calls: the unread tail and the record in progress. Bounded by the
   * limits: about `maxRecordLengthChars` (standard) or `maxColumns` × `maxCharactersPerColumn` (wide file).
   */
  get bufferedChars(): number {
    return this.#pending.length + this.#tokenizer.heldChars;
  }

  push(chunk: Uint8Array): ParseResult {
    const { bytes, skipped } = this.#input.push(chunk);
    this.#tokenizer.skipBytes(skipped);
    this.#read(this.#decoder.decode(bytes, { stream: true }), false);
    return this.#rows.take();
  }

  end(): ParseResult {
    const { bytes, skipped } = this.#input.end();
    this.#tokenizer.skipBytes(skipped);
    this.#read(this.#decoder.decode(bytes), true);
    return this.#rows.take();
  }

  /** `push(bytes)` then `end()`, with their results as one. */
  parseAll(bytes: Uint8Array): ParseResult {
    const first = this.push(bytes);
    const last = this.end();
    if (last.records.length === 0 && last.failures.length === 0) return first;
    return { records: [...first.records, ...last.records], failures: [...first.failures, ...last.failures] };
  }

  #read(text: string, final: boolean): void {
    const all = this.#pending.length === 0 ? text : this.#pending + text;
    const used = this.#tokenizer.push(all, final, this.#rows);
    this.#pending = used === all.length ? '' : all.slice(used);
  }
}

const MAX_SHAPES_PER_BODY = 16;

/** Keeps the columns of the one row a text holds; more rows, or a bad one, leave `columns` undefined. */
class OneRow implements RowSink {
  columns: (string | null)[] | undefined;
  #rows = 0;

  row(columns: (string | null)[]): void {
    this.columns = this.#rows++ === 0 ? columns : undefined;
  }

  bad(): void {
    this.#rows = 2;
    this.columns = undefined;
  }
}

/**
 * Copies of `columns` that share no characters with the text they were read from. A substring of 13 or more
 * characters is a view of its parent string in V8; `JSON.parse(JSON.stringify(s))` is a fresh string equal to `s`
 * for every string, lone surrogates included.
 */
function detached(columns: readonly (string | null)[]): (string | null)[] {
  return columns.map((column) =>
    column === null || column.length < 13 ? column : (JSON.parse(JSON.stringify(column)) as string),
  );
}

function sameColumns(a: readonly (string | null)[] | undefined, b: readonly (string | null)[]): boolean {
  if (a === undefined || a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Turns rows into records: header handling, extra columns, root field type. */
class RecordBuilder implements RowSink {
  readonly #config: DelimitedFormatConfig;
  /** Still to come: `true` while the first row is to be the header (withHeader) or skipped (ignoreHeader). */
  #headerPending: boolean;
  #headers: string[] | undefined;
  #index = 0;
  /**
   * The list-map shapes of this body's rows by column count, each made once. Past a few lengths (a ragged file),
   * rows take their shape from the shared bounded cache instead, so that this map stays small.
   */
  readonly #shapes = new Map<number, ListMapShape>();
  #records: ParsedRecord[] = [];
  #failures: ParseFailure[] = [];
  /** The dialect of one row alone (no lines to skip): what a deferred row's text is read with again. */
  readonly #rowDialect: TokenizerSettings;
  /** Set while rows are deferred: their texts are copied out of the heap (decision 0135). */
  #texts: TextArena | undefined;

  constructor(config: DelimitedFormatConfig, dialect: TokenizerSettings) {
    this.#config = config;
    this.#headerPending = config.headerLine !== 'noHeader';
    this.#rowDialect = { ...dialect, linesToSkip: 0 };
  }

  defer(): void {
    this.#texts ??= new TextArena();
  }

  row(columns: (string | null)[], position: () => RowPosition, rawText: () => string | undefined): void {
    if (this.#headerPending) {
      this.#headerPending = false;
      if (this.#config.headerLine === 'withHeader') {
        // Blank names get the reference engine's `empty-<index>`, so that every column keeps a key.
        this.#headers = columns.map((name, i) => (name === null || name.trim() === '' ? `empty-${i}` : name));
      }
      return;
    }
    const index = this.#index++;
    const headers = this.#headers;
    if (headers && columns.length > headers.length && !this.#config.allowExtraColumns) {
      const { byteOffset, line, excerpt } = position();
      this.#failures.push(
        failure({
          code: 'ORIGIN_DELIMITED_COLUMNS_MISMATCH',
          params: { line, count: columns.length, expected: headers.length },
          recordIndex: index,
          byteOffset,
          excerpt,
          canContinue: true,
        }),
      );
      return;
    }
    const texts = this.#texts;
    const text = texts === undefined ? undefined : rawText();
    // A row is deferred only when its text, read alone, gives exactly its columns again (it does unless the
    // dialect reads the row differently out of context, e.g. an empty line): the value made on first read is then
    // the one made now. Reading the row twice costs time, but only short-lived garbage.
    if (text !== undefined && sameColumns(this.#columnsOf(text), columns)) {
      this.#records.push({ value: null, deferred: texts!.write(text, this.#decodeRow) });
      return;
    }
    // A large body's row made at once (one cut by a piece boundary, about one per 16 KiB) gets columns of its own:
    // V8 makes a longer substring a view that keeps the whole decoded piece alive, and those pieces would then
    // live as long as the batch, as much heap again as the deferred rows' records (decision 0135).
    this.#records.push({ value: this.#value(texts === undefined ? columns : detached(columns), headers) });
  }

  /** The columns of one row's raw text read alone; `undefined` unless it is exactly one good row. */
  #columnsOf(text: string): (string | null)[] | undefined {
    const sink = new OneRow();
    new DelimitedTokenizer(this.#rowDialect).push(text, true, sink);
    return sink.columns;
  }

  /** The value of a deferred row from its raw text (checked when it was deferred: always one good row). */
  readonly #decodeRow = (text: string): FieldValue => this.#value(this.#columnsOf(text)!, this.#headers);

  #value(columns: (string | null)[], headers: string[] | undefined): FieldValue {
    if (this.#config.rootFieldType === 'list') {
      const cells: FieldValue[] = [];
      for (let i = 0; i < columns.length; i++) {
        const value = columns[i] ?? null;
        cells.push(headers === undefined ? { value } : { header: this.#nameOf(i, headers), value });
      }
      return cells;
    }
    // Columns hold no undefined (the tokenizer pushes each value), as create requires.
    return this.#shapeOf(columns.length, headers).create(columns);
  }

  #shapeOf(count: number, headers: string[] | undefined): ListMapShape {
    const known = this.#shapes.get(count);
    if (known !== undefined) return known;
    const keys: string[] = [];
    for (let i = 0; i < count; i++) keys.push(headers === undefined ? String(i) : this.#nameOf(i, headers));
    if (this.#shapes.size >= MAX_SHAPES_PER_BODY) return listMapShapeOf(keys);
    // A header may repeat a name: the shape keeps its first position and its last value, as Map.set did.
    const shape = new ListMapShape(keys);
    this.#shapes.set(count, shape);
    return shape;
  }

  #nameOf(i: number, headers: string[]): string {
    return headers[i] ?? `${this.#config.extraColumnPrefix}${i - headers.length + 1}`;
  }

  bad(problem: RowProblem, position: () => RowPosition): void {
    const index = this.#headerPending ? this.#index : this.#index++;
    const { byteOffset, line, excerpt } = position();
    const { code, ...rest } = problem;
    this.#failures.push(
      failure({
        code,
        params: { line, ...rest },
        recordIndex: index,
        byteOffset,
        excerpt,
        canContinue: true,
      }),
    );
  }

  take(): ParseResult {
    const result = { records: this.#records, failures: this.#failures };
    this.#records = [];
    this.#failures = [];
    return result;
  }
}

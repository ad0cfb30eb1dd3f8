import { MAX_EXCERPT_CHARS } from '../data-format';
import { truncateExcerpt } from '../failure';

/**
 * How escape characters are read.
 *
 * - `commons`: Apache Commons CSV: `\n` `\r` `\t` `\b` `\f` stand for their control character, an escaped
 *   delimiter, quote, escape or comment marker stands for itself, and any other escaped character keeps its
 *   escape (`\N` stays `\N`, so it can be a null constant). Used by custom and multi-character.
 * - `mysql`: MySQL and MariaDB (`LOAD DATA`): `\0` `\b` `\n` `\r` `\t` `\Z` stand for NUL, backspace, LF, CR,
 *   tab and Ctrl-Z; `\N` stays `\N` (the null marker); any other escaped character, a line break included, stands
 *   for itself.
 * - `postgresText`: PostgreSQL COPY TEXT: `\b` `\f` `\n` `\r` `\t` `\v`, octal `\NNN`, hex `\xHH`; `\N` stays `\N`
 *   (the null marker); any other escaped character stands for itself.
 * - `quoteOnly`: the wide-file parser: inside quotes the escape character escapes only a quote or itself.
 */
export type EscapeStyle = 'commons' | 'mysql' | 'postgresText' | 'quoteOnly';

/** The resolved dialect a {@link DelimitedTokenizer} reads; built by `dialectOf` from the format's config. */
export interface TokenizerSettings {
  /** One or more characters between columns. */
  readonly fieldDelimiter: string;
  /** One or more characters ending a record; `undefined` accepts LF, CR and CRLF. */
  readonly lineDelimiter: string | undefined;
  /** Quote character, or `''` for none. Quotes open a field only at its start. */
  readonly quote: string;
  /** Escape character, or `''` for none. The same character as `quote` means doubled quotes only. */
  readonly escape: string;
  readonly escapeStyle: EscapeStyle;
  /** A line that starts with this character is a comment; `''` for none. */
  readonly comment: string;
  /** Skip lines that hold nothing; otherwise an empty line is a record with one empty column. */
  readonly ignoreEmptyLines: boolean;
  /** Trim spaces around unquoted values and around quotes (tab-separated values). */
  readonly trimSpaces: boolean;
  /** Raw unquoted text of a column that means null (compared before unescaping); `undefined` for none. */
  readonly nullConstant: string | undefined;
  /** Physical lines skipped before the first record. */
  readonly linesToSkip: number;
  /** Longest record in characters, line delimiter excluded (`Infinity` for no limit). */
  readonly maxRecordChars: number;
  /** Most columns in one record (`Infinity` for no limit). */
  readonly maxColumns: number;
  /** Most characters in one column value (`Infinity` for no limit). */
  readonly maxColumnChars: number;
}

/** Why a row was not read. */
export type RowProblem =
  | { readonly code: 'ORIGIN_DELIMITED_MALFORMED'; readonly detail: string }
  | { readonly code: 'ORIGIN_DELIMITED_RECORD_TOO_LONG'; readonly length: number; readonly limit: number }
  | { readonly code: 'ORIGIN_DELIMITED_TOO_MANY_COLUMNS'; readonly limit: number }
  | { readonly code: 'ORIGIN_DELIMITED_COLUMN_TOO_LONG'; readonly limit: number };

/** Where a row starts, for failures: computed on request only, since good rows never need it. */
export interface RowPosition {
  /** UTF-8 byte offset of the row's first character in the (transcoded) body. */
  readonly byteOffset: number;
  /** 1-based physical line on which the row starts (line breaks inside quoted values count). */
  readonly line: number;
  /** The start of the row's raw text. */
  readonly excerpt: string;
}

/**
 * Receives what the tokenizer reads, in input order. `position()` and `rawText()` are valid only during the call;
 * `rawText()` is the row's text as it stood in the input (line delimiter excluded) when the row lies whole in the
 * piece being read, else `undefined`.
 */
export interface RowSink {
  row(columns: (string | null)[], position: () => RowPosition, rawText: () => string | undefined): void;
  bad(problem: RowProblem, position: () => RowPosition): void;
}

const LF = 0x0a;
const CR = 0x0d;
const SPACE = 0x20;

const enum State {
  Start,
  Unquoted,
  Quoted,
  QuotedEnd,
  Comment,
}

/**
 * Splits delimited text into rows of column values. Resumable: `push` takes text in any pieces and gives the
 * same rows as one piece, because all state between pieces lives in fields and `push` leaves a short tail
 * unread (returned for the next call) wherever a delimiter, CRLF or escape sequence might straddle the cut.
 *
 * Memory stays bounded: once a record passes `maxRecordChars` (or a column passes `maxColumnChars`, or the
 * columns pass `maxColumns`) its values are dropped as they are read and only its length, state and the head of
 * its raw text (for the excerpt) are kept until it ends; then it is reported to `bad`.
 */
export class DelimitedTokenizer {
  readonly #s: TokenizerSettings;
  readonly #fd: string;
  readonly #fd0: number;
  readonly #fdLen: number;
  readonly #ld: string | undefined;
  readonly #ld0: number;
  readonly #quote: number;
  readonly #escape: number;
  readonly #comment: number;
  readonly #nullLen: number;
  /** Characters left unread at the end of a piece that is not the last: room for any lookahead. */
  readonly #holdback: number;

  #state = State.Start;
  #linesToSkip: number;
  #columns: (string | null)[] = [];
  #columnCount = 0;
  #value = '';
  #quoted = false;
  #runStart = 0;
  /** Start of the current column's raw text in this piece, for the null constant; raw text of earlier pieces. */
  #fieldStart = 0;
  #rawCarry = '';
  /** Start of the current record in this piece; what earlier pieces held of it. */
  #recStart = 0;
  #recCharsCarry = 0;
  #rawHead = '';
  #recByte = -1;
  #recLine = -1;
  #problem: RowProblem | undefined;
  #skipping = false;
  /** Bytes and lines before the current piece. */
  #byteBase = 0;
  #lineBase = 0;
  #text = '';
  #end = 0;
  /** Positions found by indexOf in the current piece; below the read position means "look again". */
  #cachedLf = -1;
  #cachedCr = -1;
  #cachedBreak = -1;
  #cachedEscape = -1;
  #cachedFd = -1;
  /** `#position` bound once, not per row: rows are many and their position is rarely asked for. */
  readonly #positionOf = (): RowPosition => this.#position();
  readonly #rawTextOf = (): string | undefined =>
    this.#recCharsCarry === 0 ? this.#text.slice(this.#recStart, this.#end) : undefined;

  constructor(settings: TokenizerSettings) {
    this.#s = settings;
    this.#fd = settings.fieldDelimiter;
    this.#fd0 = this.#fd.charCodeAt(0);
    this.#fdLen = this.#fd.length;
    this.#ld = settings.lineDelimiter;
    this.#ld0 = this.#ld === undefined ? -1 : this.#ld.charCodeAt(0);
    this.#quote = settings.quote === '' ? -1 : settings.quote.charCodeAt(0);
    this.#escape = settings.escape === '' ? -1 : settings.escape.charCodeAt(0);
    this.#comment = settings.comment === '' ? -1 : settings.comment.charCodeAt(0);
    this.#nullLen = settings.nullConstant === undefined ? -1 : settings.nullConstant.length;
    this.#linesToSkip = settings.linesToSkip;
    this.#holdback = Math.max(this.#fdLen, this.#ld?.length ?? 2, 4) + 1;
  }

  /** Characters of the record in progress held between pieces: its values so far and the head of its raw text. */
  get heldChars(): number {
    let held = this.#value.length + this.#rawHead.length + this.#rawCarry.length;
    for (const column of this.#columns) held += column?.length ?? 0;
    return held;
  }

  /**
   * Counts bytes that precede the text (a skipped byte order mark) into byte offsets. The first record's offset
   * may be fixed already: an empty first piece (or one the byte order mark check held back) carries it as 0.
   */
  skipBytes(count: number): void {
    this.#byteBase += count;
    if (this.#recByte >= 0) this.#recByte += count;
  }

  /**
   * Reads `text` and reports every row that ends in it. Returns how many leading characters were read; the
   * caller passes the rest again in front of the next piece. With `final`, everything is read and the last row
   * (one without a line delimiter) is reported.
   */
  push(text: string, final: boolean, sink: RowSink): number {
    this.#text = text;
    this.#cachedLf = this.#cachedCr = this.#cachedBreak = this.#cachedEscape = this.#cachedFd = -1;
    const n = text.length;
    const limit = final ? n : n - this.#holdback;
    let i = 0;
    while (i < limit) {
      if (this.#linesToSkip > 0) {
        i = this.#skipLine(text, i, limit, final);
        continue;
      }
      switch (this.#state) {
        case State.Start:
          i = this.#start(text, i, sink);
          break;
        case State.Unquoted:
          i = this.#unquoted(text, i, limit, sink);
          break;
        case State.Quoted:
          i = this.#quotedValue(text, i, limit);
          break;
        case State.QuotedEnd:
          i = this.#quotedEnd(text, i, sink);
          break;
        case State.Comment: {
          const br = this.#breakAt(text, i);
          if (br > 0) {
            i += br;
            this.#startRecord(i);
            this.#state = State.Start;
          } else i++;
          break;
        }
      }
    }
    if (final) {
      this.#finish(n, sink);
      return n;
    }
    // Never stop between the halves of a surrogate pair: the byte offsets of the next piece would count each half on
    // its own (3 bytes each, not 4 for the pair), so that offsets after it depended on where a chunk ended.
    if (i > 0 && i < n && isHighSurrogate(text.charCodeAt(i - 1))) i--;
    this.#carry(text, i);
    return i;
  }

  #skipLine(text: string, from: number, limit: number, final: boolean): number {
    for (let i = from; i < limit; i++) {
      const br = this.#breakAt(text, i);
      if (br > 0) {
        this.#linesToSkip--;
        this.#startRecord(i + br);
        return i + br;
      }
    }
    if (final) this.#linesToSkip = 0;
    this.#startRecord(limit);
    return limit;
  }

  /** Length of the line delimiter at `i`, 0 when there is none. */
  #breakAt(text: string, i: number): number {
    const c = text.charCodeAt(i);
    if (this.#ld === undefined) {
      if (c === LF) return 1;
      if (c === CR) return text.charCodeAt(i + 1) === LF ? 2 : 1;
      return 0;
    }
    return c === this.#ld0 && text.startsWith(this.#ld, i) ? this.#ld.length : 0;
  }

  #fieldAt(text: string, i: number): boolean {
    return text.charCodeAt(i) === this.#fd0 && (this.#fdLen === 1 || text.startsWith(this.#fd, i));
  }

  #recordChars(i: number): number {
    return this.#recCharsCarry + (i - this.#recStart);
  }

  #start(text: string, i: number, sink: RowSink): number {
    const c = text.charCodeAt(i);
    if (this.#columnCount === 0 && this.#recordChars(i) === 0) {
      if (c === this.#comment) {
        this.#state = State.Comment;
        return i + 1;
      }
      const br = this.#breakAt(text, i);
      if (br > 0) {
        if (!this.#s.ignoreEmptyLines) {
          this.#endField(text, i);
          this.#endRecord(i, sink);
        }
        this.#startRecord(i + br);
        return i + br;
      }
    }
    const br = this.#breakAt(text, i);
    if (br > 0) {
      this.#endField(text, i);
      this.#endRecord(i, sink);
      this.#startRecord(i + br);
      return i + br;
    }
    if (this.#fieldAt(text, i)) {
      this.#endField(text, i);
      this.#fieldStart = i + this.#fdLen;
      return i + this.#fdLen;
    }
    if (c === this.#quote) {
      this.#quoted = true;
      this.#state = State.Quoted;
      this.#runStart = i + 1;
      return i + 1;
    }
    if (this.#s.trimSpaces && c === SPACE) {
      this.#fieldStart = i + 1;
      return i + 1;
    }
    this.#state = State.Unquoted;
    this.#runStart = i;
    return i;
  }

  #unquoted(text: string, from: number, limit: number, sink: RowSink): number {
    // Finding the next delimiter, line break and escape with indexOf (native) is several times faster than
    // looking at every character; the line break and escape positions are cached across columns.
    const n = text.length;
    if (this.#cachedFd < from) {
      const at = text.indexOf(this.#fd, from);
      this.#cachedFd = at < 0 ? n : at;
    }
    const fdAt = this.#cachedFd;
    const brAt = this.#nextBreak(text, from);
    // An escape that is also the quote (PostgreSQL CSV) only doubles quotes inside quoted values.
    const escAt =
      this.#s.escapeStyle === 'quoteOnly' || this.#escape === this.#quote ? n : this.#nextEscape(text, from);
    const stop = Math.min(fdAt, brAt, escAt);
    if (stop >= limit) return limit;
    if (stop === escAt) return this.#unescape(text, stop);
    if (stop === fdAt) {
      this.#endField(text, stop);
      this.#state = State.Start;
      this.#fieldStart = stop + this.#fdLen;
      return stop + this.#fdLen;
    }
    const br = this.#breakAt(text, stop);
    this.#endField(text, stop);
    this.#endRecord(stop, sink);
    this.#startRecord(stop + br);
    return stop + br;
  }

  /** Index of the next line break at or after `i` (text length when there is none). */
  #nextBreak(text: string, i: number): number {
    const n = text.length;
    if (this.#ld !== undefined) {
      if (this.#cachedBreak < i) {
        const at = text.indexOf(this.#ld, i);
        this.#cachedBreak = at < 0 ? n : at;
      }
      return this.#cachedBreak;
    }
    if (this.#cachedLf < i) {
      const at = text.indexOf('\n', i);
      this.#cachedLf = at < 0 ? n : at;
    }
    if (this.#cachedCr < i) {
      const at = text.indexOf('\r', i);
      this.#cachedCr = at < 0 ? n : at;
    }
    return Math.min(this.#cachedLf, this.#cachedCr);
  }

  /** Index of the next escape character at or after `i` (text length when there is none). */
  #nextEscape(text: string, i: number): number {
    if (this.#escape < 0) return text.length;
    if (this.#cachedEscape < i) {
      const at = text.indexOf(this.#s.escape, i);
      this.#cachedEscape = at < 0 ? text.length : at;
    }
    return this.#cachedEscape;
  }

  #quotedValue(text: string, from: number, limit: number): number {
    const n = text.length;
    let qAt = text.indexOf(this.#s.quote, from);
    if (qAt < 0) qAt = n;
    const escAt = this.#escape === this.#quote ? n : this.#nextEscape(text, from);
    const i = Math.min(qAt, escAt);
    if (i >= limit) return limit;
    if (i === qAt) {
      this.#flush(text, i);
      if (text.charCodeAt(i + 1) === this.#quote) {
        if (!this.#skipping) this.#value += this.#s.quote;
        this.#runStart = i + 2;
        return i + 2;
      }
      this.#state = State.QuotedEnd;
      return i + 1;
    }
    if (this.#s.escapeStyle !== 'quoteOnly') return this.#unescape(text, i);
    const next = text.charCodeAt(i + 1);
    if (next === this.#quote || next === this.#escape) {
      this.#flush(text, i);
      this.#runStart = i + 1;
      return i + 2;
    }
    return i + 1;
  }

  #quotedEnd(text: string, i: number, sink: RowSink): number {
    const br = this.#breakAt(text, i);
    if (br > 0) {
      this.#endField(text, i);
      this.#endRecord(i, sink);
      this.#startRecord(i + br);
      return i + br;
    }
    if (this.#fieldAt(text, i)) {
      this.#endField(text, i);
      this.#state = State.Start;
      this.#fieldStart = i + this.#fdLen;
      return i + this.#fdLen;
    }
    if (this.#s.trimSpaces && text.charCodeAt(i) === SPACE) return i + 1;
    this.#malformed(`unexpected character '${text[i] ?? ''}' after a closing quote`);
    // Read on to the end of the record so that the next one starts in the right place.
    this.#state = State.Unquoted;
    this.#runStart = i;
    return i;
  }

  /** Reads the escape sequence at `i` (inside or outside quotes) and returns the index after it. */
  #unescape(text: string, i: number): number {
    this.#flush(text, i);
    const style = this.#s.escapeStyle;
    const [value, length] =
      style === 'postgresText'
        ? postgresEscape(text, i)
        : style === 'mysql'
          ? mysqlEscape(text, i)
          : this.#commonsEscape(text, i);
    if (!this.#skipping) this.#value += value;
    this.#runStart = i + length;
    return i + length;
  }

  #commonsEscape(text: string, i: number): [string, number] {
    const escape = text[i] ?? '';
    const next = text[i + 1];
    if (next === undefined) return [escape, 1];
    switch (next) {
      case 'n':
        return ['\n', 2];
      case 'r':
        return ['\r', 2];
      case 't':
        return ['\t', 2];
      case 'b':
        return ['\b', 2];
      case 'f':
        return ['\f', 2];
      case '\n':
      case '\r':
      case '\t':
      case '\b':
      case '\f':
        return [next, 2];
    }
    if (text.startsWith(this.#fd, i + 1)) return [this.#fd, 1 + this.#fdLen];
    if (next === this.#s.quote || next === this.#s.escape || next === this.#s.comment) return [next, 2];
    return [escape + next, 2];
  }

  /** Appends the unread run before `i` to the column value. */
  #flush(text: string, i: number): void {
    if (!this.#skipping && i > this.#runStart) this.#value += text.slice(this.#runStart, i);
  }

  #endField(text: string, i: number): void {
    const state = this.#state;
    if (state === State.Unquoted || state === State.Quoted) this.#flush(text, i);
    this.#columnCount++;
    if (!this.#skipping) {
      let value: string | null = this.#value;
      if (this.#s.trimSpaces && !this.#quoted) value = value.replace(/ +$/, '');
      if (
        !this.#quoted &&
        this.#nullLen === this.#rawCarry.length + (i - this.#fieldStart) &&
        this.#rawCarry + text.slice(this.#fieldStart, i) === this.#s.nullConstant
      ) {
        value = null;
      }
      if (this.#columnCount > this.#s.maxColumns) this.#tooManyColumns();
      else if (value !== null && value.length > this.#s.maxColumnChars) this.#columnTooLong();
      else this.#columns.push(value);
    }
    this.#value = '';
    this.#quoted = false;
    this.#rawCarry = '';
    this.#state = State.Start;
  }

  /**
   * A malformed record is reported as malformed even when it also passed a column limit. A limit may be found
   * before the malformation or after it, depending on where a piece ended (a column's length is checked when a
   * piece ends inside it), while the malformation is found at the same character whatever the cut; so it wins, and
   * the problem reported does not depend on the chunking. The first malformation of a record is the one reported.
   */
  #malformed(detail: string): void {
    if (this.#problem?.code !== 'ORIGIN_DELIMITED_MALFORMED') {
      this.#problem = { code: 'ORIGIN_DELIMITED_MALFORMED', detail };
    }
  }

  #tooManyColumns(): void {
    this.#problem ??= { code: 'ORIGIN_DELIMITED_TOO_MANY_COLUMNS', limit: this.#s.maxColumns };
    this.#drop();
  }

  #columnTooLong(): void {
    this.#problem ??= { code: 'ORIGIN_DELIMITED_COLUMN_TOO_LONG', limit: this.#s.maxColumnChars };
    this.#drop();
  }

  #drop(): void {
    this.#skipping = true;
    this.#columns = [];
    this.#value = '';
  }

  #endRecord(i: number, sink: RowSink): void {
    this.#end = i;
    const length = this.#recordChars(i);
    const position = this.#positionOf;
    if (length > this.#s.maxRecordChars) {
      sink.bad({ code: 'ORIGIN_DELIMITED_RECORD_TOO_LONG', length, limit: this.#s.maxRecordChars }, position);
    } else if (this.#problem) {
      sink.bad(this.#problem, position);
    } else {
      sink.row(this.#columns, position, this.#rawTextOf);
    }
  }

  #startRecord(i: number): void {
    this.#columns = [];
    this.#columnCount = 0;
    this.#value = '';
    this.#quoted = false;
    this.#rawCarry = '';
    this.#fieldStart = i;
    this.#recStart = i;
    this.#recCharsCarry = 0;
    this.#rawHead = '';
    this.#recByte = -1;
    this.#recLine = -1;
    this.#problem = undefined;
    this.#skipping = false;
    this.#state = State.Start;
  }

  #position(): RowPosition {
    const text = this.#text;
    const byteOffset =
      this.#recByte >= 0 ? this.#recByte : this.#byteBase + Buffer.byteLength(text.slice(0, this.#recStart));
    const line = this.#recLine >= 0 ? this.#recLine : this.#lineBase + this.#breaks(text, this.#recStart) + 1;
    // One character past the excerpt, so that truncateExcerpt sees a surrogate pair the cut would halve, as it
    // does when the head comes from earlier pieces.
    const head =
      this.#rawHead + text.slice(this.#recStart, Math.min(this.#end, this.#recStart + MAX_EXCERPT_CHARS + 1));
    return { byteOffset, line, excerpt: truncateExcerpt(head) };
  }

  /** Line breaks in `text` before `to` (a CR whose LF is at `to` is counted with that LF, later). */
  #breaks(text: string, to: number): number {
    let count = 0;
    if (this.#ld !== undefined) {
      for (
        let at = text.indexOf(this.#ld);
        at >= 0 && at < to;
        at = text.indexOf(this.#ld, at + this.#ld.length)
      ) {
        count++;
      }
      return count;
    }
    for (let at = text.indexOf('\n'); at >= 0 && at < to; at = text.indexOf('\n', at + 1)) count++;
    for (let at = text.indexOf('\r'); at >= 0 && at < to; at = text.indexOf('\r', at + 1)) {
      if (text.charCodeAt(at + 1) !== LF) count++;
    }
    return count;
  }

  /** Moves the state of a record that goes on past the end of this piece into fields; `i` is where reading stopped. */
  #carry(text: string, i: number): void {
    const state = this.#state;
    if (state === State.Unquoted || state === State.Quoted) this.#flush(text, i);
    this.#runStart = 0;
    if (this.#nullLen >= 0 && !this.#quoted && this.#rawCarry.length <= this.#nullLen) {
      this.#rawCarry += text.slice(this.#fieldStart, Math.min(i, this.#fieldStart + this.#nullLen + 1));
    }
    this.#fieldStart = 0;
    if (this.#rawHead.length < MAX_EXCERPT_CHARS) {
      this.#rawHead += text.slice(
        this.#recStart,
        Math.min(i, this.#recStart + MAX_EXCERPT_CHARS - this.#rawHead.length),
      );
    }
    if (this.#recByte < 0) {
      this.#recByte = this.#byteBase + Buffer.byteLength(text.slice(0, this.#recStart));
      this.#recLine = this.#lineBase + this.#breaks(text, this.#recStart) + 1;
    }
    this.#byteBase += Buffer.byteLength(text.slice(0, i));
    this.#lineBase += this.#breaks(text, i);
    this.#recCharsCarry += i - this.#recStart;
    this.#recStart = 0;
    if (state === State.Comment || this.#skipping) return;
    if (this.#recCharsCarry > this.#s.maxRecordChars) {
      this.#drop();
    } else if (state === State.Unquoted || state === State.Quoted) {
      // Checked in the order endField checks them, so the problem reported does not depend on the cut.
      if (this.#columnCount + 1 > this.#s.maxColumns) this.#tooManyColumns();
      else if (this.#value.length > this.#s.maxColumnChars) this.#columnTooLong();
    }
  }

  #finish(n: number, sink: RowSink): void {
    const state = this.#state;
    if (state === State.Comment || this.#linesToSkip > 0) return;
    if (state === State.Quoted) this.#malformed('a quoted value is not closed');
    if (this.#columnCount > 0 || this.#recordChars(n) > 0 || state !== State.Start) {
      this.#endField(this.#text, n);
      this.#endRecord(n, sink);
    }
    this.#startRecord(n);
  }
}

/** MySQL `LOAD DATA` escape at `i` (the escape character): the text it stands for and its length. */
function mysqlEscape(text: string, i: number): [string, number] {
  const next = text[i + 1];
  if (next === undefined) return [text[i] ?? '', 1];
  switch (next) {
    case '0':
      return ['\0', 2];
    case 'b':
      return ['\b', 2];
    case 'n':
      return ['\n', 2];
    case 'r':
      return ['\r', 2];
    case 't':
      return ['\t', 2];
    case 'Z':
      return ['\x1a', 2];
    case 'N':
      return [text[i] + 'N', 2];
  }
  // A surrogate pair stands for itself whole.
  const code = text.charCodeAt(i + 1);
  if (code >= 0xd800 && code <= 0xdbff && i + 2 < text.length) return [text.slice(i + 1, i + 3), 3];
  return [next, 2];
}

/** PostgreSQL COPY TEXT escape at `i` (a backslash): the text it stands for and its length. */
function postgresEscape(text: string, i: number): [string, number] {
  const next = text[i + 1];
  if (next === undefined) return ['\\', 1];
  switch (next) {
    case 'b':
      return ['\b', 2];
    case 'f':
      return ['\f', 2];
    case 'n':
      return ['\n', 2];
    case 'r':
      return ['\r', 2];
    case 't':
      return ['\t', 2];
    case 'v':
      return ['\v', 2];
    case 'N':
      return ['\\N', 2];
  }
  const octal = /^[0-7]{1,3}/.exec(text.slice(i + 1, i + 4));
  if (octal) return [String.fromCharCode(parseInt(octal[0], 8)), 1 + octal[0].length];
  if (next === 'x') {
    const hex = /^[0-9A-Fa-f]{1,2}/.exec(text.slice(i + 2, i + 4));
    if (hex) return [String.fromCharCode(parseInt(hex[0], 16)), 2 + hex[0].length];
  }
  return [next, 2];
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

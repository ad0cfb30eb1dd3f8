import type { FieldValue, PlainMap } from '../../../record/field';
import type { ParseFailure, ParseResult, ParsedRecord, Parser } from '../../data-format';
import { failure } from '../../failure';
import { TextInput } from '../../text-input';

/** Options of the syslog message parser: the `datagram` format's shared text keys, defaults applied. */
export interface SyslogParserOptions {
  /** Charset of the messages; transcoded to UTF-8 before parsing. */
  charset: string;
  /** Remove ASCII control characters other than tab, LF and CR before parsing. */
  ignoreControlCharacters: boolean;
  /** How a body splits into messages; see {@link SyslogFraming}. */
  framing: SyslogFraming;
}

/**
 * How a body splits into messages (docs/decisions/0055-one-syslog-datagram-is-one-message.md):
 * - `auto`: octet counting (RFC 6587 §3.4.1) when the body starts with a digit, which no message can;
 *   otherwise the body is one message, line feeds included (one datagram is one message, RFC 5426 §3.1);
 * - `octetCounting`: every body is octet-counted;
 * - `nonTransparent`: one message per line (RFC 6587 §3.4.2, LF or CRLF; empty lines skipped), as TCP
 *   senders without octet counting write them.
 */
export type SyslogFraming = 'auto' | 'octetCounting' | 'nonTransparent';

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const DAY_MS = 86_400_000;

/**
 * Makes a parser of a body holding one or more syslog messages, one record per message (a plain MAP with
 * `priority`, `facility`, `severity`, `version`, `timestamp`, `host`, `appName`, `procId`, `msgId`,
 * `structuredData`, `message`, `raw`; docs/formats/datagram.md).
 *
 * Framing as `options.framing` says ({@link SyslogFraming}); by default a body that starts with a digit is
 * octet-counted (RFC 6587 §3.4.1, `<length> <message>…`) and any other body is one message, whose trailing LF,
 * CRLF or NULs are not part of it. Formats: RFC 5424, RFC 3164 (the year,
 * which the message lacks, is the one that puts the time within 11 months before and 1 month after now, in UTC),
 * and the common non-standard forms (an RFC 3339 time without the version digit; no hostname).
 *
 * A message that cannot be read is an `ORIGIN_SYSLOG_MALFORMED` failure and parsing goes on with the next one; an
 * octet count that passes the end of the body ends parsing. The body is collected until `end`.
 *
 * @throws `OriginError('ORIGIN_CHARSET_UNSUPPORTED')` from the factory when `charset` has no decoder.
 */
export function createSyslogParser(options: SyslogParserOptions): Parser {
  const input = new TextInput(options.charset, options.ignoreControlCharacters);
  const chunks: Buffer[] = [];
  let done = false;
  return {
    push(chunk) {
      if (!done) chunks.push(Buffer.from(input.push(chunk).bytes));
      return { records: [], failures: [] };
    },
    end() {
      if (done) return { records: [], failures: [] };
      done = true;
      chunks.push(input.end().bytes);
      const body = Buffer.concat(chunks);
      chunks.length = 0;
      return parseSyslogBody(body, Date.now(), options.framing);
    },
  };
}

/** Splits a UTF-8 body into messages as `framing` says and parses each; `nowMs` anchors the RFC 3164 year. */
export function parseSyslogBody(body: Buffer, nowMs: number, framing: SyslogFraming = 'auto'): ParseResult {
  const records: ParsedRecord[] = [];
  const failures: ParseFailure[] = [];
  const one = (bytes: Buffer, offset: number): void => {
    const text = bytes.toString('utf8');
    const parsed = parseSyslogMessage(text, nowMs);
    if (typeof parsed === 'string') {
      failures.push(
        failure({
          code: 'ORIGIN_SYSLOG_MALFORMED',
          params: { offset, detail: parsed },
          recordIndex: records.length,
          byteOffset: offset,
          excerpt: text,
          canContinue: true,
        }),
      );
    } else {
      records.push({ value: parsed });
    }
  };
  const first = body[0];
  const counted = first !== undefined && first >= 0x30 && first <= 0x39;
  if (framing === 'octetCounting' || (framing === 'auto' && counted)) {
    splitOctetCounted(body, records, failures, one);
  } else if (framing === 'nonTransparent') {
    let at = 0;
    while (at < body.length) {
      let end = body.indexOf(0x0a, at);
      if (end < 0) end = body.length;
      const stop = trimEnd(body, at, end);
      if (stop > at) one(body.subarray(at, stop), at);
      at = end + 1;
    }
  } else {
    const stop = trimEnd(body, 0, body.length);
    if (stop > 0) one(body.subarray(0, stop), 0);
  }
  return { records, failures };
}

/**
 * Where a message in `body[from, to)` ends: before trailing NULs (some senders end datagrams with one), then a
 * trailing LF or CRLF, which ends a line, not the text (rsyslog drops it on reception too).
 */
function trimEnd(body: Buffer, from: number, to: number): number {
  let stop = to;
  while (stop > from && body[stop - 1] === 0) stop--;
  if (stop > from && body[stop - 1] === 0x0a) stop--;
  if (stop > from && body[stop - 1] === 0x0d) stop--;
  return stop;
}

/**
 * RFC 6587 §3.4.1: `<length> <message>` frames, each trimmed as {@link trimEnd} says; a count that passes the end
 * of the body ends parsing.
 */
function splitOctetCounted(
  body: Buffer,
  records: ParsedRecord[],
  failures: ParseFailure[],
  one: (bytes: Buffer, offset: number) => void,
): void {
  let at = 0;
  while (at < body.length) {
    const space = body.indexOf(0x20, at);
    const digits = space < 0 ? '' : body.toString('latin1', at, space);
    if (!/^[1-9]\d{0,8}$/.test(digits)) {
      // Whitespace between frames is tolerated; anything else breaks the framing.
      if (/^\s+$/.test(body.toString('latin1', at))) break;
      failures.push(framingFailure(body, at, records.length, 'expected an octet count and a space'));
      break;
    }
    const length = Number(digits);
    const start = space + 1;
    if (start + length > body.length) {
      failures.push(
        framingFailure(
          body,
          at,
          records.length,
          `the octet count ${length} passes the end of the body by ${start + length - body.length} bytes`,
        ),
      );
      break;
    }
    // rsyslog's forwarding templates end each message with LF, inside the counted octets; it is not part of it.
    const stop = trimEnd(body, start, start + length);
    if (stop > start) one(body.subarray(start, stop), start);
    at = start + length;
    while (at < body.length && (body[at] === 0x0a || body[at] === 0x0d)) at++;
  }
}

function framingFailure(body: Buffer, at: number, recordIndex: number, detail: string): ParseFailure {
  return failure({
    code: 'ORIGIN_SYSLOG_MALFORMED',
    params: { offset: at, detail },
    recordIndex,
    byteOffset: at,
    excerpt: body.subarray(at),
    canContinue: false,
  });
}

/** One message as a record value, or a sentence saying why it cannot be read. */
export function parseSyslogMessage(raw: string, nowMs: number): PlainMap | string {
  const pri = /^<(\d{1,3})>/.exec(raw);
  if (!pri) return 'it does not start with a priority such as <34>';
  const priority = Number(pri[1]);
  if (priority > 191) return `priority ${priority} is above 191`;
  const record: PlainMap = {
    priority,
    facility: priority >> 3,
    severity: priority & 7,
    version: 0,
    timestamp: null,
    host: null,
    appName: null,
    procId: null,
    msgId: null,
    structuredData: null,
    message: '',
    raw,
  };
  const rest = raw.slice(pri[0].length);
  const v5424 = /^([1-9]\d{0,2}) /.exec(rest);
  if (v5424) {
    record.version = Number(v5424[1]);
    return parse5424(rest.slice(v5424[0].length), record);
  }
  return parseBsd(rest, record, nowMs);
}

/** RFC 5424 after `VERSION SP`: TIMESTAMP HOSTNAME APP-NAME PROCID MSGID STRUCTURED-DATA [SP MSG]. */
function parse5424(text: string, record: PlainMap): PlainMap | string {
  const head = /^(\S+) (\S+) (\S+) (\S+) (\S+) ?/.exec(text);
  if (!head) return 'an RFC 5424 header needs TIMESTAMP HOSTNAME APP-NAME PROCID MSGID';
  const [, time = '', host = '', appName = '', procId = '', msgId = ''] = head;
  if (time !== '-') {
    const ms = rfc3339(time);
    if (ms === undefined) return `'${time}' is not an RFC 3339 timestamp`;
    record.timestamp = ms;
  }
  record.host = nil(host);
  record.appName = nil(appName);
  record.procId = nil(procId);
  record.msgId = nil(msgId);
  let at = head[0].length;
  if (text.startsWith('-', at)) {
    at++;
  } else if (text.startsWith('[', at)) {
    const sd = structuredData(text, at);
    if (typeof sd === 'string') return sd;
    record.structuredData = sd.value;
    at = sd.end;
  } else if (at < text.length) {
    return 'STRUCTURED-DATA must be - or start with [';
  }
  if (at < text.length && text[at] !== ' ') return 'STRUCTURED-DATA must be followed by a space';
  // A UTF-8 message starts with a byte order mark (RFC 5424 §6.4), which is not part of the text.
  record.message = text.slice(at + 1).replace(/^\uFEFF/, '');
  return record;
}

function nil(token: string): string | null {
  return token === '-' ? null : token;
}

/** `[id name="value"…]…` at `start`: a map of SD-ID to a map of parameter values, and where it ends. */
function structuredData(text: string, start: number): { value: PlainMap; end: number } | string {
  const value: PlainMap = {};
  let at = start;
  while (text[at] === '[') {
    const id = /^[^\s\]="]+/.exec(text.slice(at + 1, at + 1 + 64));
    if (!id) return `bad SD-ID at character ${at + 1}`;
    at += 1 + id[0].length;
    const params: PlainMap = {};
    for (;;) {
      if (text[at] === ']') {
        at++;
        break;
      }
      const param = / ([^\s\]="]+)="/y;
      param.lastIndex = at;
      const m = param.exec(text);
      if (!m) return `bad SD-PARAM in [${id[0]} at character ${at}`;
      at = param.lastIndex;
      let v = '';
      for (;;) {
        const c = text[at];
        if (c === undefined) return `unterminated value of ${m[1] ?? ''} in [${id[0]}`;
        if (c === '"') break;
        if (c === '\\' && (text[at + 1] === '"' || text[at + 1] === '\\' || text[at + 1] === ']')) {
          v += text[at + 1];
          at += 2;
        } else {
          v += c;
          at++;
        }
      }
      at++;
      params[m[1] ?? ''] = v;
    }
    value[id[0]] = params;
  }
  return { value, end: at };
}

/** RFC 3339 (a missing offset is read as UTC) to UNIX ms; digits past milliseconds are cut. */
function rfc3339(text: string): number | undefined {
  const m =
    /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?([Zz]|[+-]\d{2}:?\d{2})?$/.exec(
      text,
    );
  if (!m) return undefined;
  const [, y, mo, d, h, mi, s, frac, zone] = m;
  const month = Number(mo);
  const day = Number(d);
  if (month < 1 || month > 12 || day < 1 || day > 31 || Number(h) > 23 || Number(mi) > 59 || Number(s) > 60) {
    return undefined;
  }
  let ms =
    Date.UTC(Number(y), month - 1, day, Number(h), Number(mi), Number(s)) +
    Number((frac ?? '').padEnd(3, '0').slice(0, 3));
  if (zone && zone !== 'Z' && zone !== 'z') {
    const sign = zone.startsWith('-') ? -1 : 1;
    const digits = zone.slice(1).replace(':', '');
    ms -= sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2))) * 60_000;
  }
  return ms;
}

/**
 * RFC 3164 and the non-standard forms: `[TIMESTAMP SP] [HOSTNAME SP] TAG[PID]: MSG` (or `TAG[PID] MSG`, see
 * `readTag`), where TIMESTAMP is `Mmm dd hh:mm:ss` or RFC 3339. A first word that is followed by `:` or holds `[`
 * is a tag, not a hostname.
 */
function parseBsd(text: string, record: PlainMap, nowMs: number): PlainMap {
  let rest = text;
  const bsd = /^([A-Z][a-z]{2}) ([ \d]\d) (\d{2}):(\d{2}):(\d{2}) /.exec(rest);
  const iso = /^(\d{4}-\d{2}-\d{2}T\S+) /.exec(rest);
  if (bsd && MONTHS.includes(bsd[1] ?? '')) {
    record.timestamp = bsdTime(bsd, nowMs);
    rest = rest.slice(bsd[0].length);
  } else if (iso) {
    const ms = rfc3339(iso[1] ?? '');
    if (ms !== undefined) {
      record.timestamp = ms;
      rest = rest.slice(iso[0].length);
    }
  }
  if (record.timestamp !== null) {
    const word = /^([^\s:[]+) /.exec(rest);
    if (word) {
      record.host = word[1] ?? null;
      rest = rest.slice(word[0].length);
    }
  }
  const tag = readTag(rest);
  if (tag) {
    record.appName = tag.appName;
    record.procId = tag.procId;
    rest = rest.slice(tag.length);
  }
  record.message = rest;
  return record;
}

/**
 * The TAG at the start of `text` as rsyslog reads it (pmrfc3164): the characters up to the first `:` or space,
 * the colon included; the app name is the tag up to `[` and the process id what stands between `[` and `]`. A tag
 * ended by a space counts only when it holds `[PID]` (rsyslog's `TraditionalForwardFormat` writes a colon-less
 * tag as received): a plain first word followed by a space stays in the message. One space after the tag
 * separates it from the message and is not part of it.
 */
function readTag(
  text: string,
): { appName: string | null; procId: string | null; length: number } | undefined {
  const m = /^([^\s:]{1,512})(:|(?= ))/.exec(text);
  if (!m) return undefined;
  const word = m[1] ?? '';
  const open = word.indexOf('[');
  const close = open < 0 ? -1 : word.indexOf(']', open);
  if (m[2] !== ':' && close < 0) return undefined;
  const appName = open < 0 ? word : word.slice(0, open);
  const length = m[0].length + (text[m[0].length] === ' ' ? 1 : 0);
  return {
    appName: appName === '' ? null : appName,
    procId: close < 0 ? null : word.slice(open + 1, close),
    length,
  };
}

/** `Mmm dd hh:mm:ss` in UTC, in the year that puts it between 11 months before and 1 month after `nowMs`. */
function bsdTime(m: RegExpExecArray, nowMs: number): FieldValue {
  const month = MONTHS.indexOf(m[1] ?? '');
  const day = Number((m[2] ?? '').trim());
  const year = new Date(nowMs).getUTCFullYear();
  const at = (y: number): number => Date.UTC(y, month, day, Number(m[3]), Number(m[4]), Number(m[5]));
  for (const y of [year, year - 1, year + 1]) {
    const t = at(y);
    if (t - nowMs <= 31 * DAY_MS && nowMs - t < 334 * DAY_MS) return t;
  }
  return at(year);
}

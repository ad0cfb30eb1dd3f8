import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import type { ParseResult } from '../../../../src/formats/data-format';
import {
  createSyslogParser,
  type SyslogParserOptions,
} from '../../../../src/formats/datagram/syslog/syslog-parser';

const FIXTURES = join(__dirname, '..', '..', '..', 'fixtures', 'formats', 'datagram', 'syslog');
const UTF8: SyslogParserOptions = { charset: 'UTF-8', ignoreControlCharacters: false, framing: 'auto' };

function parse(body: string | Uint8Array, options: Partial<SyslogParserOptions> = {}): ParseResult {
  const parser = createSyslogParser({ ...UTF8, ...options });
  const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
  const a = parser.push(bytes);
  const b = parser.end();
  return { records: [...a.records, ...b.records], failures: [...a.failures, ...b.failures] };
}

function withNow<T>(nowMs: number, run: () => T): T {
  jest.useFakeTimers({ now: nowMs });
  try {
    return run();
  } finally {
    jest.useRealTimers();
  }
}

describe('syslog messages from logger', () => {
  const names = readdirSync(FIXTURES)
    .filter((f) => f.endsWith('.packet'))
    .map((f) => f.slice(0, -'.packet'.length));

  it('has fixtures for RFC 5424 and RFC 3164 from logger and rsyslog', () => {
    expect(names).toEqual(
      expect.arrayContaining([
        'rfc5424-sd',
        'rfc5424-plain',
        'rfc3164',
        'rsyslog-forward-3164',
        'rsyslog-forward-3164-tag-without-colon',
        'rsyslog-forward-5424-multiline',
        'logger-3164-multiline',
        'logger-5424-octet-count',
      ]),
    );
  });

  it.each(names)('parses %s to the values logger was told to send', (name) => {
    const expected = JSON.parse(readFileSync(join(FIXTURES, `${name}.expected.json`), 'utf8')) as {
      capturedAtMs: number;
      record: Record<string, unknown>;
    };
    const { records, failures } = withNow(expected.capturedAtMs, () =>
      parse(readFileSync(join(FIXTURES, `${name}.packet`))),
    );
    expect(failures).toEqual([]);
    expect(records).toEqual([{ value: expected.record }]);
  });
});

describe('syslog formats', () => {
  it('parses RFC 5424 with fractional time, offset, escapes in structured data and a BOM before the message', () => {
    const raw =
      '<165>1 2003-10-11T22:14:15.003123-07:00 mymachine.example.com evntslog 99 ID47 [exampleSDID@32473 iut="3" eventSource="App\\"lication\\]"][examplePriority@32473 class="high"] \uFEFFAn application event';
    const { records, failures } = parse(raw);
    expect(failures).toEqual([]);
    expect(records[0]!.value).toEqual({
      priority: 165,
      facility: 20,
      severity: 5,
      version: 1,
      timestamp: Date.UTC(2003, 9, 12, 5, 14, 15, 3),
      host: 'mymachine.example.com',
      appName: 'evntslog',
      procId: '99',
      msgId: 'ID47',
      structuredData: {
        'exampleSDID@32473': { iut: '3', eventSource: 'App"lication]' },
        'examplePriority@32473': { class: 'high' },
      },
      message: 'An application event',
      raw,
    });
  });

  it('reads nil values of RFC 5424 as null and a message-less packet as an empty message', () => {
    const value = parse('<34>1 - - - - - -').records[0]!.value;
    expect(value).toMatchObject({
      timestamp: null,
      host: null,
      appName: null,
      procId: null,
      msgId: null,
      structuredData: null,
      message: '',
    });
  });

  it('infers the RFC 3164 year so that the time lies between 11 months before and 1 month after now (UTC)', () => {
    const now = Date.UTC(2024, 0, 10);
    const december = withNow(now, () => parse('<13>Dec 31 23:59:59 host app: late').records[0]!.value);
    expect(december).toMatchObject({
      timestamp: Date.UTC(2023, 11, 31, 23, 59, 59),
      host: 'host',
      appName: 'app',
      message: 'late',
    });
    const february = withNow(now, () => parse('<13>Feb  1 00:00:00 host app: soon').records[0]!.value);
    expect(february).toMatchObject({ timestamp: Date.UTC(2024, 1, 1) });
    const november = withNow(
      Date.UTC(2023, 11, 15),
      () => parse('<13>Jan  2 00:00:00 h a: x').records[0]!.value,
    );
    expect(november).toMatchObject({ timestamp: Date.UTC(2024, 0, 2) });
  });

  it('reads the non-standard RFC 3339 date without a version digit, a message without hostname, and TAG[PID] without a colon', () => {
    expect(parse('<14>2021-05-06T07:08:09.5Z web01 nginx[12]: GET /').records[0]!.value).toMatchObject({
      version: 0,
      timestamp: Date.UTC(2021, 4, 6, 7, 8, 9, 500),
      host: 'web01',
      appName: 'nginx',
      procId: '12',
      message: 'GET /',
    });
    expect(parse('<14>Mar  4 05:06:07 cron[55]: job done').records[0]!.value).toMatchObject({
      host: null,
      appName: 'cron',
      procId: '55',
      message: 'job done',
    });
    expect(parse('<14>Mar  4 05:06:07 host cron[55] job done').records[0]!.value).toMatchObject({
      host: 'host',
      appName: 'cron',
      procId: '55',
      message: 'job done',
    });
    expect(parse('<14>Mar  4 05:06:07 host cron job done').records[0]!.value).toMatchObject({
      appName: null,
      procId: null,
      message: 'cron job done',
    });
    expect(parse('<14>no header at all').records[0]!.value).toMatchObject({
      timestamp: null,
      message: 'no header at all',
    });
  });
});

describe('syslog framing', () => {
  it('reads a body as one message by default, keeping its line feeds and dropping a trailing LF or NUL', () => {
    const { records, failures } = parse('<14>1 - - a - - - one\r\n<14>1 - - b - - - two\r\n\u0000');
    expect(failures).toEqual([]);
    expect(records.map((r) => (r.value as { message: string }).message)).toEqual([
      'one\r\n<14>1 - - b - - - two',
    ]);
  });

  it('splits a body by lines, skipping empty ones, with nonTransparent framing', () => {
    const { records } = parse('<14>1 - - a - - - one\r\n\n<14>1 - - b - - - two\n', {
      framing: 'nonTransparent',
    });
    expect(records.map((r) => (r.value as { message: string }).message)).toEqual(['one', 'two']);
  });

  it('fails a body without an octet count when octetCounting framing is asked for', () => {
    const { records, failures } = parse('<14>1 - - a - - - one', { framing: 'octetCounting' });
    expect(records).toEqual([]);
    expect(failures).toMatchObject([{ code: 'ORIGIN_SYSLOG_MALFORMED', canContinue: false }]);
  });

  it('splits an octet-counted body (RFC 6587), where messages may hold newlines', () => {
    const m1 = '<14>1 - - a - - - line1\nline2';
    const m2 = '<14>1 - - b - - - é';
    const body = `${Buffer.byteLength(m1)} ${m1}${Buffer.byteLength(m2)} ${m2}`;
    const { records, failures } = parse(body);
    expect(failures).toEqual([]);
    expect(records.map((r) => (r.value as { message: string }).message)).toEqual(['line1\nline2', 'é']);
  });

  it('fails an octet count past the end and stops there', () => {
    const { records, failures } = parse('20 <14>1 - - a - - - x');
    expect(records).toEqual([]);
    expect(failures).toMatchObject([{ code: 'ORIGIN_SYSLOG_MALFORMED', canContinue: false }]);
  });

  it('fails a message without priority and goes on with the next', () => {
    const { records, failures } = parse('hello\n<999>bad\n<14>1 - - - - - - ok', {
      framing: 'nonTransparent',
    });
    expect(records).toHaveLength(1);
    expect(failures.map((f) => [f.code, f.recordIndex, f.byteOffset])).toEqual([
      ['ORIGIN_SYSLOG_MALFORMED', 0, 0],
      ['ORIGIN_SYSLOG_MALFORMED', 0, 6],
    ]);
  });

  it('transcodes the charset and removes control characters when asked', () => {
    const latin1 = Buffer.from('<14>1 - - - - - - caf\u00e9\u0007', 'latin1');
    expect(
      parse(latin1, { charset: 'ISO-8859-1', ignoreControlCharacters: true }).records[0]!.value,
    ).toMatchObject({ message: 'café' });
  });

  it('gives the same result for any chunking and never throws on random bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), fc.integer({ min: 0, max: 300 }), (bytes, cut) => {
        const whole = withNow(0, () => parse(bytes));
        const parser = createSyslogParser(UTF8);
        const split = withNow(0, () => {
          const a = parser.push(bytes.subarray(0, cut));
          const b = parser.push(bytes.subarray(cut));
          const c = parser.end();
          return {
            records: [...a.records, ...b.records, ...c.records],
            failures: [...a.failures, ...b.failures, ...c.failures],
          };
        });
        expect(split).toEqual(whole);
      }),
      { numRuns: 300 },
    );
  });
});

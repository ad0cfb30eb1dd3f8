import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { injectOrigin, type ServedOrigin } from './origin-helpers';

const FIXTURES = join(__dirname, '..', 'fixtures', 'formats', 'datagram', 'syslog');

/** The rsyslog fixtures: datagrams forwarded or sent by rsyslog and logger, with rsyslog's own reading. */
const names = readdirSync(FIXTURES)
  .filter((f) => /^(rsyslog|logger)-.*\.packet$/.test(f))
  .map((f) => f.slice(0, -'.packet'.length));

describe('origin receiving syslog datagrams written by rsyslog and logger', () => {
  let running: ServedOrigin | undefined;
  beforeAll(async () => {
    running = injectOrigin({ dataFormat: { format: 'datagram', datagram: { packetFormat: 'syslog' } } });
  });
  afterAll(async () => {
    jest.useRealTimers();
    await running?.stop();
  });

  it('has the rsyslog and logger fixtures', () => {
    expect(names.length).toBeGreaterThanOrEqual(5);
  });

  it.each(names)('answers %s with the one record rsyslog read from it', async (name) => {
    const expected = JSON.parse(readFileSync(join(FIXTURES, `${name}.expected.json`), 'utf8')) as {
      capturedAtMs: number;
      record: Record<string, unknown>;
    };
    // RFC 3164 carries no year: the origin infers it from the clock, so only Date is set to the capture time.
    jest.useFakeTimers({
      now: expected.capturedAtMs,
      doNotFake: [
        'hrtime',
        'nextTick',
        'performance',
        'queueMicrotask',
        'setImmediate',
        'clearImmediate',
        'setInterval',
        'clearInterval',
        'setTimeout',
        'clearTimeout',
      ],
    });
    try {
      const answer = await running!.send({ body: readFileSync(join(FIXTURES, `${name}.packet`)) });
      expect(answer.status).toBe(200);
      const envelope = answer.json as { data: unknown[]; error: unknown[] };
      expect(envelope.error).toEqual([]);
      expect(envelope.data).toEqual([expected.record]);
    } finally {
      jest.useRealTimers();
    }
  });
});

describe('origin receiving TCP streams rsyslog forwarded, with the framing they use', () => {
  let running: ServedOrigin | undefined;
  afterEach(async () => {
    jest.useRealTimers();
    await running?.stop();
    running = undefined;
  });

  it.each([
    ['rsyslog-tcp-octet-counted', 'auto'],
    ['rsyslog-tcp-octet-counted', 'octetCounting'],
    ['rsyslog-tcp-lines', 'nonTransparent'],
  ] as const)(
    'answers %s read with syslogFraming %s with the records rsyslog read',
    async (name, framing) => {
      const expected = JSON.parse(readFileSync(join(FIXTURES, `${name}.expected.json`), 'utf8')) as {
        capturedAtMs: number;
        records: Record<string, unknown>[];
      };
      expect(expected.records).toHaveLength(3);
      running = injectOrigin({
        dataFormat: { format: 'datagram', datagram: { packetFormat: 'syslog', syslogFraming: framing } },
      });
      jest.useFakeTimers({
        now: expected.capturedAtMs,
        doNotFake: [
          'hrtime',
          'nextTick',
          'performance',
          'queueMicrotask',
          'setImmediate',
          'clearImmediate',
          'setInterval',
          'clearInterval',
          'setTimeout',
          'clearTimeout',
        ],
      });
      const answer = await running.send({ body: readFileSync(join(FIXTURES, `${name}.stream`)) });
      const envelope = answer.json as { data: unknown[]; error: unknown[] };
      expect(envelope.error).toEqual([]);
      expect(envelope.data).toEqual(expected.records);
    },
  );
});

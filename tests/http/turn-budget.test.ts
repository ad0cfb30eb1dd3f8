import { Readable } from 'node:stream';
import { compressSync } from 'snappy';

import { readBody, type RequestBodyStream } from '../../src/http/body-reader';
import { TURN_PAUSE_MS, TurnBudget, noteRequestBegun } from '../../src/http/turn-budget';
import { jsonFormat } from '../../src/formats/json/json-format';
import { resolveFormatConfig } from '../../src/formats/format-config';
import { parseWhole } from '../../src/formats/parse-helpers';
import type { ParsedRecord } from '../../src/formats/data-format';
import { fieldValuesToJsonArray } from '../../src/record/json-text';

const BODY_BYTES = 20_000_000;
const CHUNK_BYTES = 64 * 1024;

/** 20 MB of JSON objects, one per line. */
function jsonLines(): Buffer {
  const lines: string[] = [];
  let length = 0;
  for (let i = 0; length < BODY_BYTES; i++) {
    const line = `{"id":${i},"name":"customer ${i}","tags":["a","b"],"address":{"city":"Lyon"}}\n`;
    lines.push(line);
    length += line.length;
  }
  return Buffer.from(lines.join(''), 'latin1');
}

/**
 * A body whose every byte is in the stream's buffer before it is read: without turns, a flowing stream hands all
 * of it over in one synchronous loop (as a request does whose body arrived while it waited for a slot, or as
 * libuv does when one read callback gets many chunks).
 */
function bufferedBody(bytes: Buffer, headers: Record<string, string> = {}): RequestBodyStream {
  const body = new Readable({ read() {} });
  for (let at = 0; at < bytes.length; at += CHUNK_BYTES) body.push(bytes.subarray(at, at + CHUNK_BYTES));
  body.push(null);
  return Object.assign(body, { headers });
}

/**
 * Reads `body` into JSON records with a real parser, counting the `setImmediate` ticks that ran between the first
 * chunk handed over and the end of the read: each is a turn in which other clients could be served.
 */
async function readCountingTicks(
  body: RequestBodyStream,
): Promise<{ ticks: number; records: ParsedRecord[]; bytes: number }> {
  const config = resolveFormatConfig(jsonFormat, { jsonContent: 'multipleObjects' });
  const parser = jsonFormat.createParser(config, { originState: new Map() });
  const records: ParsedRecord[] = [];
  let counting = false;
  let reading = true;
  let ticks = 0;
  const tick = (): void => {
    if (counting) ticks++;
    if (reading) setImmediate(tick);
  };
  setImmediate(tick);
  const bytes = await new Promise<number>((resolve, reject) =>
    readBody(
      body,
      { maxRequestBytes: 10 * BODY_BYTES },
      (chunk) => {
        counting = true;
        records.push(...parser.push(chunk).records);
      },
      (error, decoded) => {
        counting = false;
        reading = false;
        if (error === undefined) resolve(decoded);
        else reject(error as Error);
      },
    ),
  );
  records.push(...parser.end().records);
  return { ticks, records, bytes };
}

function wholeRecords(bytes: Buffer): ParsedRecord[] {
  const config = resolveFormatConfig(jsonFormat, { jsonContent: 'multipleObjects' });
  return parseWhole(jsonFormat, config, bytes).records;
}

const text = (records: readonly ParsedRecord[]): string =>
  fieldValuesToJsonArray(records.map((record) => record.value));

describe('a large body is read over several event-loop turns (decision 0090)', () => {
  const body = jsonLines();
  const expected = text(wholeRecords(body));

  it('an unencoded body: other callbacks run while its 20 MB are parsed, and the records are those of one parse', async () => {
    const { ticks, records, bytes } = await readCountingTicks(bufferedBody(body));
    expect(bytes).toBe(body.length);
    // Before turns, every chunk was parsed in one synchronous loop: 0 ticks.
    expect(ticks).toBeGreaterThan(2);
    expect(text(records)).toBe(expected);
  });

  it('a raw snappy body, whose decoded chunks come in microtasks: the same', async () => {
    const compressed = compressSync(body);
    const { ticks, records, bytes } = await readCountingTicks(
      bufferedBody(compressed, { 'content-encoding': 'snappy' }),
    );
    expect(bytes).toBe(body.length);
    expect(ticks).toBeGreaterThan(2);
    expect(text(records)).toBe(expected);
  });

  it('a small body is handed over in the turn it arrives in', async () => {
    const small = Buffer.from('{"a":1}\n{"b":2}\n');
    const { ticks, records } = await readCountingTicks(bufferedBody(small));
    expect(ticks).toBe(0);
    expect(records).toHaveLength(2);
  });
});

describe('TurnBudget', () => {
  it('is not spent before its budget, is spent after it, and resumes in a later turn', async () => {
    const turns = new TurnBudget(5);
    turns.begin();
    expect(turns.spent()).toBe(false);
    const startedAt = performance.now();
    while (performance.now() - startedAt < 6);
    expect(turns.spent()).toBe(true);
    let resumed = false;
    turns.next(() => (resumed = true));
    await Promise.resolve();
    expect(resumed).toBe(false);
    await new Promise((resolve) => setImmediate(resolve));
    expect(resumed).toBe(true);
    // The next turn starts its own clock.
    turns.begin();
    expect(turns.spent()).toBe(false);
  });

  it('forgets a cancelled callback', async () => {
    const turns = new TurnBudget(0);
    turns.begin();
    let resumed = false;
    turns.next(() => (resumed = true));
    turns.cancel();
    await new Promise((resolve) => setImmediate(resolve));
    expect(resumed).toBe(false);
  });

  /**
   * Runs one turn of `turns` (which `between` may mark as having begun requests), ends it, and says in which order
   * the resumed callback and a marker `setImmediate` queued behind the turn's end ran, and with what delay, if any,
   * the turn's end put the callback on a timer. The delay is read from the call, not timed: how late a timer fires
   * depends on the machine's load.
   */
  async function resumeOrder(
    turns: TurnBudget,
    between: () => void,
  ): Promise<{ order: string[]; pauseMs: number | undefined }> {
    const timers = jest.spyOn(global, 'setTimeout');
    try {
      turns.begin();
      between();
      const order: string[] = [];
      let resume: (() => void) | undefined;
      const resumed = new Promise<void>((resolve) => {
        resume = () => {
          order.push('resumed');
          resolve();
        };
        turns.next(resume);
      });
      setImmediate(() => order.push('check phase'));
      await resumed;
      await new Promise((resolve) => setImmediate(resolve));
      const pause = timers.mock.calls.find(([callback]) => callback === resume);
      return { order, pauseMs: pause?.[1] };
    } finally {
      timers.mockRestore();
    }
  }

  const spentTurn = (turns: TurnBudget, others: boolean) => () => {
    expect(turns.spent()).toBe(true);
    if (others) noteRequestBegun();
  };

  it('waits a timer before the next turn when its turn was spent and other requests began meanwhile (decision 0137)', async () => {
    const turns = new TurnBudget(0);
    const { order, pauseMs } = await resumeOrder(turns, spentTurn(turns, true));
    expect(order).toEqual(['check phase', 'resumed']);
    // A budget of 0 is spent at once: the pause is at least the shortest there is (more only if this process was
    // held up between the two clock reads).
    expect(pauseMs).toBeGreaterThanOrEqual(TURN_PAUSE_MS);
  });

  it('waits at least as long as its turn held the loop', async () => {
    const turns = new TurnBudget(0);
    const { pauseMs } = await resumeOrder(turns, () => {
      const startedAt = performance.now();
      while (performance.now() - startedAt < 6);
      expect(turns.spent()).toBe(true);
      noteRequestBegun();
    });
    expect(pauseMs).toBeGreaterThanOrEqual(6);
  });

  it('goes on in the check phase when no other request began', async () => {
    const turns = new TurnBudget(0);
    const { order, pauseMs } = await resumeOrder(turns, spentTurn(turns, false));
    expect(order).toEqual(['resumed', 'check phase']);
    expect(pauseMs).toBeUndefined();
  });

  it('goes on in the check phase when its turn was not spent, even with other requests about', async () => {
    const turns = new TurnBudget(60_000);
    const { order, pauseMs } = await resumeOrder(turns, () => {
      expect(turns.spent()).toBe(false);
      noteRequestBegun();
    });
    expect(order).toEqual(['resumed', 'check phase']);
    expect(pauseMs).toBeUndefined();
  });

  it('looks only at the requests begun since the previous turn ended', async () => {
    const turns = new TurnBudget(0);
    noteRequestBegun();
    expect((await resumeOrder(turns, spentTurn(turns, false))).order).toEqual(['check phase', 'resumed']);
    expect((await resumeOrder(turns, spentTurn(turns, false))).order).toEqual(['resumed', 'check phase']);
  });
});

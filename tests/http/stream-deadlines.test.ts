import type { Http2Stream } from 'node:http2';
import { Deadline, StreamDeadlines } from '../../src/http/stream-deadlines';

// The deadlines only keep the stream and hand it back: a plain object stands in for one.
function stream(): Http2Stream {
  return {} as Http2Stream;
}

/** A stream's deadline, as the port makes one when the stream opens. */
function deadlineOf(s: Http2Stream): Deadline {
  return new Deadline(s);
}

describe('StreamDeadlines: the deadlines of a port’s HTTP/2 streams, checked by one timer', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('expires a stream once its deadline passed, within a quarter of its timeout, with the timeout it was set with', () => {
    const expired: [Http2Stream, number][] = [];
    const deadlines = new StreamDeadlines((s, timeoutMs) => expired.push([s, timeoutMs]));
    const late = stream();
    deadlines.set(deadlineOf(late), 400);
    jest.advanceTimersByTime(399);
    expect(expired).toEqual([]);
    jest.advanceTimersByTime(100);
    expect(expired).toEqual([[late, 400]]);
    // Once: the stream's deadline is gone.
    jest.advanceTimersByTime(2000);
    expect(expired).toHaveLength(1);
    deadlines.clearAll();
  });

  it('never expires a stream whose deadline was cleared, and stops its timer when none is left', () => {
    const expired: Http2Stream[] = [];
    const deadlines = new StreamDeadlines((s) => expired.push(s));
    const cleared = deadlineOf(stream());
    const kept = stream();
    deadlines.set(cleared, 100);
    deadlines.set(deadlineOf(kept), 100);
    deadlines.clear(cleared);
    jest.advanceTimersByTime(200);
    expect(expired).toEqual([kept]);
    expect(jest.getTimerCount()).toBe(0);
  });

  it('a stream set again gets the new deadline in place of the old one', () => {
    const expired: Http2Stream[] = [];
    const deadlines = new StreamDeadlines((s) => expired.push(s));
    const renewed = stream();
    const deadline = deadlineOf(renewed);
    deadlines.set(deadline, 100);
    jest.advanceTimersByTime(80);
    deadlines.set(deadline, 100);
    jest.advanceTimersByTime(80);
    expect(expired).toEqual([]);
    jest.advanceTimersByTime(50);
    expect(expired).toEqual([renewed]);
  });

  it('checks as often as its shortest timeout needs, and at least once a second', () => {
    const expired: Http2Stream[] = [];
    const deadlines = new StreamDeadlines((s) => expired.push(s));
    const long = stream();
    deadlines.set(deadlineOf(long), 300_000);
    const short = stream();
    deadlines.set(deadlineOf(short), 40);
    jest.advanceTimersByTime(50);
    expect(expired).toEqual([short]);
    jest.advanceTimersByTime(300_000);
    expect(expired).toEqual([short, long]);
    deadlines.clearAll();
    expect(jest.getTimerCount()).toBe(0);
  });

  it('expires in the order the deadlines pass, whatever order they were set in, and clears any one of them', () => {
    const expired: Http2Stream[] = [];
    const deadlines = new StreamDeadlines((s) => expired.push(s));
    const streams = Array.from({ length: 6 }, stream);
    const set = streams.map(deadlineOf);
    // Timeouts out of order: 300, 100, 500, 200, 400, 600 ms.
    [300, 100, 500, 200, 400, 600].forEach((ms, i) => deadlines.set(set[i]!, ms));
    deadlines.clear(set[0]!); // 300: a middle one
    deadlines.clear(set[1]!); // 100: the first one
    deadlines.clear(set[5]!); // 600: the last one
    jest.advanceTimersByTime(1000);
    expect(expired).toEqual([streams[3], streams[4], streams[2]]);
    expect(jest.getTimerCount()).toBe(0);
  });

  it('a deadline taken out of the list keeps no link to another (nothing it held stays alive through it)', () => {
    const deadlines = new StreamDeadlines(() => undefined);
    const [first, middle, last] = [stream(), stream(), stream()].map(deadlineOf);
    deadlines.set(first!, 100);
    deadlines.set(middle!, 100);
    deadlines.set(last!, 100);
    deadlines.clear(middle!);
    expect([middle!.prev, middle!.next, middle!.listed]).toEqual([undefined, undefined, false]);
    expect(first!.next).toBe(last);
    expect(last!.prev).toBe(first);
    deadlines.clearAll();
    for (const d of [first, last])
      expect([d!.prev, d!.next, d!.listed]).toEqual([undefined, undefined, false]);
  });
});

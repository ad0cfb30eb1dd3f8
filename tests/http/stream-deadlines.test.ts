import type { Http2Stream } from 'node:http2';
import { StreamDeadlines } from '../../src/http/stream-deadlines';

// The deadlines only key their map by the stream and hand it back: a plain object stands in for one.
function stream(): Http2Stream {
  return {} as Http2Stream;
}

describe('StreamDeadlines: the deadlines of a port’s HTTP/2 streams, checked by one timer', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('expires a stream once its deadline passed, within a quarter of its timeout, with the timeout it was set with', () => {
    const expired: [Http2Stream, number][] = [];
    const deadlines = new StreamDeadlines((s, timeoutMs) => expired.push([s, timeoutMs]));
    const late = stream();
    deadlines.set(late, 400);
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
    const cleared = stream();
    const kept = stream();
    deadlines.set(cleared, 100);
    deadlines.set(kept, 100);
    deadlines.clear(cleared);
    jest.advanceTimersByTime(200);
    expect(expired).toEqual([kept]);
    expect(jest.getTimerCount()).toBe(0);
  });

  it('a stream set again gets the new deadline in place of the old one', () => {
    const expired: Http2Stream[] = [];
    const deadlines = new StreamDeadlines((s) => expired.push(s));
    const renewed = stream();
    deadlines.set(renewed, 100);
    jest.advanceTimersByTime(80);
    deadlines.set(renewed, 100);
    jest.advanceTimersByTime(80);
    expect(expired).toEqual([]);
    jest.advanceTimersByTime(50);
    expect(expired).toEqual([renewed]);
  });

  it('checks as often as its shortest timeout needs, and at least once a second', () => {
    const expired: Http2Stream[] = [];
    const deadlines = new StreamDeadlines((s) => expired.push(s));
    const long = stream();
    deadlines.set(long, 300_000);
    const short = stream();
    deadlines.set(short, 40);
    jest.advanceTimersByTime(50);
    expect(expired).toEqual([short]);
    jest.advanceTimersByTime(300_000);
    expect(expired).toEqual([short, long]);
    deadlines.clearAll();
    expect(jest.getTimerCount()).toBe(0);
  });
});

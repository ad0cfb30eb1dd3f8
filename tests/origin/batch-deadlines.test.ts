import { BatchDeadlines } from '../../src/origin/batch-deadlines';
import { OriginError } from '../../src/errors/origin-error';

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('BatchDeadlines', () => {
  it('gives up on a batch once its timeout has passed, with ORIGIN_PIPELINE_TIMEOUT', async () => {
    const deadlines = new BatchDeadlines(20);
    const reasons: OriginError[] = [];
    deadlines.add((reason) => reasons.push(reason));
    await wait(80);
    expect(reasons.map((r) => r.code)).toEqual(['ORIGIN_PIPELINE_TIMEOUT']);
    expect(reasons[0]?.message).toContain('responseTimeoutMs 20');
    expect(deadlines.size).toBe(0);
    deadlines.stop();
  });

  it('leaves alone a batch that finished in time', async () => {
    const deadlines = new BatchDeadlines(20);
    const giveUp = jest.fn();
    const clock = deadlines.add(giveUp);
    deadlines.delete(clock);
    deadlines.delete(clock);
    expect(deadlines.size).toBe(0);
    await wait(80);
    expect(giveUp).not.toHaveBeenCalled();
    deadlines.stop();
  });

  it('keeps the other clocks when one in the middle stops, and gives up on them in start order', async () => {
    const deadlines = new BatchDeadlines(20);
    const given: string[] = [];
    deadlines.add(() => given.push('first'));
    const middle = deadlines.add(() => given.push('middle'));
    deadlines.add(() => given.push('last'));
    deadlines.delete(middle);
    expect(deadlines.size).toBe(2);
    await wait(80);
    expect(given).toEqual(['first', 'last']);
    expect(deadlines.size).toBe(0);
    deadlines.stop();
  });

  it('gives up on every running batch at once with the reason it is given', () => {
    const deadlines = new BatchDeadlines(60_000);
    const first = jest.fn();
    const second = jest.fn();
    deadlines.add(first);
    deadlines.add(second);
    const reason = new OriginError('ORIGIN_HTTP_CLOSING');
    deadlines.giveUpAll(reason);
    expect(first).toHaveBeenCalledWith(reason);
    expect(second).toHaveBeenCalledWith(reason);
    expect(deadlines.size).toBe(0);
  });

  it('remembers the first reason it gave up on everything with, so that no later batch starts', () => {
    const deadlines = new BatchDeadlines(1000);
    expect(deadlines.abandonedWith).toBeUndefined();
    const reason = new OriginError('ORIGIN_HTTP_CLOSING');
    deadlines.giveUpAll(reason);
    deadlines.giveUpAll(new OriginError('ORIGIN_PIPELINE_TIMEOUT', { timeoutMs: 1 }));
    expect(deadlines.abandonedWith).toBe(reason);
  });
});

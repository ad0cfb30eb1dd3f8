import { performance } from 'node:perf_hooks';

import { TurnBudget } from '../../src/http/turn-budget';
import {
  LONG_WORK_BODY_BYTES,
  LONGEST_ANSWER_WAIT_MS,
  notePipelineRun,
  queuedAnswerCount,
  writeAnswersBeforeWork,
  writeAtPassEnd,
  writeQueuedAnswers,
  type QueuedAnswer,
} from '../../src/http/pass-end-answers';

const nextCheckPhase = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** An answer that notes in `written` when it was written. */
function answer(name: string, written: string[], then?: () => void): QueuedAnswer {
  return {
    writeAnswer: () => {
      written.push(name);
      then?.();
    },
  };
}

afterEach(() => {
  writeQueuedAnswers();
  jest.restoreAllMocks();
});

describe('answers written at the end of the loop pass', () => {
  it('are written in the check phase, in the order they were queued, not when queued', async () => {
    const written: string[] = [];
    writeAtPassEnd(answer('a', written));
    writeAtPassEnd(answer('b', written));
    expect(written).toEqual([]);
    expect(queuedAnswerCount()).toBe(2);
    await nextCheckPhase();
    expect(written).toEqual(['a', 'b']);
    expect(queuedAnswerCount()).toBe(0);
  });

  it('come after the I/O and timer callbacks that were ready when they were queued', async () => {
    const events: string[] = [];
    await new Promise<void>((resolve) => {
      setTimeout(() => {
        writeAtPassEnd(answer('answer', events));
        // Queued after the answer, in the same pass: still before it is written.
        process.nextTick(() => events.push('tick'));
        void Promise.resolve().then(() => events.push('microtask'));
      }, 0);
      setTimeout(() => events.push('timer'), 0);
      setTimeout(() => setImmediate(resolve), 5);
    });
    expect(events).toEqual(['tick', 'microtask', 'timer', 'answer']);
  });

  it('write an answer queued by another answer in the same pass', async () => {
    const written: string[] = [];
    writeAtPassEnd(answer('first', written, () => writeAtPassEnd(answer('queued while writing', written))));
    await nextCheckPhase();
    expect(written).toEqual(['first', 'queued while writing']);
  });

  it('are all written when one throws, and the error is thrown apart, uncaught as before', async () => {
    const written: string[] = [];
    const rethrown: unknown[] = [];
    jest.spyOn(process, 'nextTick').mockImplementation(((_callback: unknown, error: unknown) => {
      rethrown.push(error);
    }) as typeof process.nextTick);
    const failure = new Error('a listener failed');
    writeAtPassEnd(answer('a', written));
    writeAtPassEnd({
      writeAnswer: () => {
        throw failure;
      },
    });
    writeAtPassEnd(answer('c', written));
    writeQueuedAnswers();
    expect(written).toEqual(['a', 'c']);
    expect(rethrown).toEqual([failure]);
  });

  it('are written before short work once the oldest waited the longest wait, not before', () => {
    const written: string[] = [];
    let now = 1_000;
    jest.spyOn(performance, 'now').mockImplementation(() => now);
    notePipelineRun(0.01);
    writeAtPassEnd(answer('old', written));
    now += LONGEST_ANSWER_WAIT_MS / 2;
    writeAtPassEnd(answer('newer', written));
    writeAnswersBeforeWork(100);
    expect(written).toEqual([]);
    now += LONGEST_ANSWER_WAIT_MS / 2;
    writeAnswersBeforeWork(100);
    expect(written).toEqual(['old', 'newer']);
  });

  it('are written at once before a large body is parsed', () => {
    const written: string[] = [];
    notePipelineRun(0.01);
    writeAtPassEnd(answer('small', written));
    writeAnswersBeforeWork(LONG_WORK_BODY_BYTES - 1);
    expect(written).toEqual([]);
    writeAnswersBeforeWork(LONG_WORK_BODY_BYTES);
    expect(written).toEqual(['small']);
  });

  it('are written at once before the next run while the last pipeline run was long, queued again after a short one', () => {
    const written: string[] = [];
    notePipelineRun(LONGEST_ANSWER_WAIT_MS);
    writeAtPassEnd(answer('before a slow pipeline', written));
    writeAnswersBeforeWork(100);
    expect(written).toEqual(['before a slow pipeline']);
    notePipelineRun(LONGEST_ANSWER_WAIT_MS / 10);
    writeAtPassEnd(answer('before a fast one', written));
    writeAnswersBeforeWork(100);
    expect(written).toEqual(['before a slow pipeline']);
  });

  it('are written before a large request begins a turn, which may hold the loop for its whole budget', () => {
    const written: string[] = [];
    writeAtPassEnd(answer('small', written));
    const turn = new TurnBudget();
    turn.begin();
    expect(written).toEqual(['small']);
    turn.cancel();
  });
});

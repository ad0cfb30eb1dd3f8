/**
 * Answers written together at the end of the event loop's I/O phase (decision 0138).
 *
 * Under load, one pass of the loop's poll phase reads the requests of many connections. Written as each is
 * rendered, their answers interleave with the reads and parses of the others; queued and written one after
 * another in the check phase that follows (`setImmediate`), they cost less: the same code runs back to back, and
 * each answer is more likely to find its reader already awake (on loopback the kernel wakes the peer on the
 * writer's CPU). A lone request waits one `setImmediate` for its answer.
 *
 * Bounds on the wait:
 * - {@link writeAnswersQueuedLong} writes the queue before new work once its oldest answer waited
 *   {@link LONGEST_ANSWER_WAIT_MS}, so that a run of slow requests in one pass does not hold the answers of the
 *   fast ones before them;
 * - {@link writeQueuedAnswers} writes it at once: a large request's turn (src/http/turn-budget.ts) calls it before
 *   its work, which may hold the loop for a whole turn.
 *
 * The queue is the process's, as the loop is: the answers of every origin in the process share it.
 */

import { performance } from 'node:perf_hooks';

/** An answer rendered and ready to be written. */
export interface QueuedAnswer {
  /** Writes the answer and finishes its request; never throws for a gone client (the response says so). */
  writeAnswer(): void;
}

/**
 * How long the oldest queued answer may wait before new work writes the queue first: the turn of decision 0129,
 * the time a large request may hold the loop before others are served.
 */
export const LONGEST_ANSWER_WAIT_MS = 1;

let queued: QueuedAnswer[] = [];
/** `performance.now()` when the oldest queued answer was queued. */
let oldestQueuedAt = 0;
let writeScheduled = false;
/** The queue is being written: a write that leads to another answer queues it behind the others. */
let writing = false;

/** Queues `answer` to be written at the end of this pass of the loop, after the I/O callbacks ready now. */
export function writeAtTurnEnd(answer: QueuedAnswer): void {
  if (queued.length === 0) oldestQueuedAt = performance.now();
  queued.push(answer);
  if (writeScheduled) return;
  writeScheduled = true;
  setImmediate(writeScheduledAnswers);
}

/** Writes the queued answers now, when there are any; what a write queues meanwhile is written too. */
export function writeQueuedAnswers(): void {
  if (writing || queued.length === 0) return;
  writing = true;
  let failures: unknown[] | undefined;
  // Answers queued by these writes (a slot freed, a waiting request served at once) join this pass.
  for (let i = 0; i < queued.length; i++) {
    try {
      queued[i]!.writeAnswer();
    } catch (error) {
      // One answer's failure (a host's event listener that throws) must not leave the others unwritten.
      (failures ??= []).push(error);
    }
  }
  queued = [];
  writing = false;
  // As if each had been thrown where its answer was written: uncaught, one by one.
  if (failures !== undefined) for (const error of failures) process.nextTick(rethrow, error);
}

/**
 * Writes the queue before new work when its oldest answer waited {@link LONGEST_ANSWER_WAIT_MS} already. Reads the
 * clock only when answers are queued.
 */
export function writeAnswersQueuedLong(): void {
  if (queued.length === 0 || performance.now() - oldestQueuedAt < LONGEST_ANSWER_WAIT_MS) return;
  writeQueuedAnswers();
}

/** How many answers wait to be written (for tests and diagnostics). */
export function queuedAnswerCount(): number {
  return queued.length;
}

function writeScheduledAnswers(): void {
  writeScheduled = false;
  writeQueuedAnswers();
}

function rethrow(error: unknown): never {
  throw error;
}

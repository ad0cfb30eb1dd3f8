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
 * - {@link writeAnswersBeforeWork} writes the queue before a request's parse and pipeline run when that work may be
 *   long (a large body, or a pipeline whose last run was long) or once the oldest answer waited
 *   {@link LONGEST_ANSWER_WAIT_MS}, so that slow requests in one pass do not hold the answers of the fast ones
 *   before them;
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
export function writeAtPassEnd(answer: QueuedAnswer): void {
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
 * A body at least this long is parsed for long enough (about 0.3 ms per 64 KiB of JSON or CSV on the project's
 * machine) that the answers queued before it are written first.
 */
export const LONG_WORK_BODY_BYTES = 64 * 1024;

/** Whether the last pipeline run took {@link LONGEST_ANSWER_WAIT_MS} or more: the next may too. */
let lastRunWasLong = false;

/** Notes how long a request's pipeline run took, which {@link writeAnswersBeforeWork} takes as a forecast. */
export function notePipelineRun(ms: number): void {
  lastRunWasLong = ms >= LONGEST_ANSWER_WAIT_MS;
}

/**
 * Writes the queue before a request's parse and pipeline run of a body of `bodyBytes`, when that work may be long
 * (a body of {@link LONG_WORK_BODY_BYTES} or more, or a pipeline whose last run took
 * {@link LONGEST_ANSWER_WAIT_MS} or more) or when the oldest queued answer waited that long already. Reads the clock
 * only when answers are queued and the work looks short.
 */
export function writeAnswersBeforeWork(bodyBytes: number): void {
  if (queued.length === 0) return;
  const longWork = lastRunWasLong || bodyBytes >= LONG_WORK_BODY_BYTES;
  if (!longWork && performance.now() - oldestQueuedAt < LONGEST_ANSWER_WAIT_MS) return;
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

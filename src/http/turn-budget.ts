import { writeQueuedAnswers } from './pass-end-answers';

/**
 * How long one request's work may hold the event loop in one turn before it steps aside for other clients
 * (decision 0090; 2 ms there, 1 ms since decision 0129). Measured on the project's machine: a 64 KiB chunk of JSON
 * or CSV parses into records in 0.3–1 ms, so a turn holds a chunk or two; the one-record requests of other clients
 * then wait about this long behind a 50 MB upload (their loaded p50 fell from about 3 to 2 ms at 1 ms), and the
 * upload itself did not take measurably longer.
 */
export const TURN_BUDGET_MS = 1;

/**
 * The shortest wait between a spent turn and the next while other requests are being served (decision 0137): Node's
 * shortest timer. The wait is as long as the turn held the loop, garbage collection included, and never shorter
 * than this, so that the loop has as much time for the other clients' I/O, and V8's helper threads for their
 * collection work, as the large request had, on a server whose loop and helpers share one core.
 */
export const TURN_PAUSE_MS = 1;

/**
 * Requests begun in this process, by every origin in it: the event loop the turns share is the process's. A turn
 * budget reads it at each turn's end to see whether other requests began since the last one (decision 0137).
 */
let requestsBegun = 0;

/** Counts a request the origin began; called once per request, large or small. */
export function noteRequestBegun(): void {
  requestsBegun++;
}

/**
 * Bounds the work one request does per event-loop turn. A step calls {@link TurnBudget.begin} before each piece
 * of work and {@link TurnBudget.spent} after it; once the turn's pieces together took `budgetMs`, the step stops
 * and calls {@link TurnBudget.next}, whose callback runs in the event loop's check phase (`setImmediate`), after
 * the I/O callbacks of other sockets that were ready. A turn begins at the first `begin` after the previous turn
 * ended, and ends at that `setImmediate`, so a budget never spans two turns.
 *
 * When the turn that ended had spent its budget and other requests began since the previous turn's end, the next
 * turn waits on a timer as long as the turn held the loop (at least {@link TURN_PAUSE_MS}) instead of the check
 * phase: while others are served, a large request has at most about half the loop (decision 0137). With no one
 * else about, turns follow each other at once.
 *
 * One object per large request (the origin makes one only once a body has more than one chunk): a small body never
 * pays for a clock reading or a `setImmediate`.
 */
export class TurnBudget {
  readonly #budgetMs: number;
  /** `performance.now()` when this turn's first piece began; negative between turns. */
  #startedAt = -1;
  #waiting: (() => void) | undefined;
  /** How long this turn's pieces held the loop, garbage collection included, once they spent its budget. */
  #spentAfterMs: number | undefined;
  /** {@link requestsBegun} when the previous turn ended (or this budget was made). */
  #requestsSeen = requestsBegun;

  constructor(budgetMs: number = TURN_BUDGET_MS) {
    this.#budgetMs = budgetMs;
  }

  /** Marks a piece of work about to run; the first of a turn starts the turn's clock. */
  begin(): void {
    if (this.#startedAt >= 0) return;
    // A turn may hold the loop for its whole budget: the answers queued for this pass go out first (0138).
    writeQueuedAnswers();
    this.#startedAt = performance.now();
    setImmediate(this.#endTurn);
  }

  /** Whether this turn's pieces took the whole budget: the caller should stop and wait for {@link next}. */
  spent(): boolean {
    if (this.#startedAt < 0) return false;
    const heldMs = performance.now() - this.#startedAt;
    if (heldMs < this.#budgetMs) return false;
    this.#spentAfterMs = heldMs;
    return true;
  }

  /**
   * Calls `resume` once this turn ends (in the check phase of the loop, after pending I/O), or after the pause that
   * follows a spent turn while others are served (decision 0137). Replaces a callback given earlier in the same
   * turn.
   */
  next(resume: () => void): void {
    this.#waiting = resume;
    // `spent()` is only true inside a turn, whose end is scheduled; this covers a caller that asks outside one.
    if (this.#startedAt < 0) this.begin();
  }

  /** Resolves once this turn ends: {@link next} for `async` callers. */
  nextTurn(): Promise<void> {
    return new Promise<void>((resolve) => this.next(resolve));
  }

  /** Forgets a callback given to {@link next} (the work was abandoned). */
  cancel(): void {
    this.#waiting = undefined;
  }

  readonly #endTurn = (): void => {
    this.#startedAt = -1;
    const othersBegan = requestsBegun !== this.#requestsSeen;
    this.#requestsSeen = requestsBegun;
    const spentAfterMs = this.#spentAfterMs;
    this.#spentAfterMs = undefined;
    const pauseMs =
      othersBegan && spentAfterMs !== undefined ? Math.max(TURN_PAUSE_MS, Math.round(spentAfterMs)) : 0;
    const waiting = this.#waiting;
    this.#waiting = undefined;
    if (waiting === undefined) return;
    if (pauseMs > 0) setTimeout(waiting, pauseMs);
    else waiting();
  };
}

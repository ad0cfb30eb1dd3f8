/**
 * How long one request's work may hold the event loop in one turn before it steps aside for other clients
 * (decision 0090; 2 ms there, 1 ms since decision 0129). Measured on the project's machine: a 64 KiB chunk of JSON
 * or CSV parses into records in 0.3–1 ms, so a turn holds a chunk or two; the one-record requests of other clients
 * then wait about this long behind a 50 MB upload (their loaded p50 fell from about 3 to 2 ms at 1 ms), and the
 * upload itself did not take measurably longer.
 */
export const TURN_BUDGET_MS = 1;

/**
 * Bounds the work one request does per event-loop turn. A step calls {@link TurnBudget.begin} before each piece
 * of work and {@link TurnBudget.spent} after it; once the turn's pieces together took `budgetMs`, the step stops
 * and calls {@link TurnBudget.next}, whose callback runs in the event loop's check phase (`setImmediate`), after
 * the I/O callbacks of other sockets that were ready. A turn begins at the first `begin` after the previous turn
 * ended, and ends at that `setImmediate`, so a budget never spans two turns.
 *
 * One object per large request (the origin makes one only once a body has more than one chunk): a small body never
 * pays for a clock reading or a `setImmediate`.
 */
export class TurnBudget {
  readonly #budgetMs: number;
  /** `performance.now()` when this turn's first piece began; negative between turns. */
  #startedAt = -1;
  #waiting: (() => void) | undefined;

  constructor(budgetMs: number = TURN_BUDGET_MS) {
    this.#budgetMs = budgetMs;
  }

  /** Marks a piece of work about to run; the first of a turn starts the turn's clock. */
  begin(): void {
    if (this.#startedAt >= 0) return;
    this.#startedAt = performance.now();
    setImmediate(this.#endTurn);
  }

  /** Whether this turn's pieces took the whole budget: the caller should stop and wait for {@link next}. */
  spent(): boolean {
    return this.#startedAt >= 0 && performance.now() - this.#startedAt >= this.#budgetMs;
  }

  /**
   * Calls `resume` once this turn ends (in the check phase of the loop, after pending I/O). Replaces a callback
   * given earlier in the same turn.
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
    const waiting = this.#waiting;
    this.#waiting = undefined;
    waiting?.();
  };
}

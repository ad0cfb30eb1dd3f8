import { TurnBudget } from '../http/turn-budget';
import type { ResponseSink } from '../pipeline/response-sink';
import type { RenderedPieces } from '../response/json-response';
import type { ResponseRenderer } from '../response/response-renderer';

/**
 * Responses with more records than this (data and error records together) are rendered in pieces over several
 * event-loop turns when the renderer can (decision 0090); smaller ones, nearly all, in one step as before. About
 * 2 ms of rendering on the project's machine (the turns themselves take 1 ms, decision 0129).
 */
export const RENDER_IN_TURNS_MIN_RECORDS = 4096;

/** A response rendered in pieces: its body is the pieces' bytes in order. */
export interface PiecedResponse {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly pieces: readonly Buffer[];
}

/** Whether the response in `sink` is large enough to be rendered in turns by `renderer`. */
export function rendersInTurns(renderer: ResponseRenderer, sink: ResponseSink): boolean {
  return (
    renderer.pieces !== undefined &&
    sink.dataRecords.length + sink.errorRecords.length > RENDER_IN_TURNS_MIN_RECORDS
  );
}

/**
 * Renders the response in `sink` a piece at a time, as many pieces per event-loop turn as fit in the turn budget
 * (decision 0090), then calls `done` with the whole response, or with what the rendering threw. `renderer` must
 * have `pieces` ({@link rendersInTurns}). `done` is always called in a later turn than this call.
 */
export function renderInTurns(
  renderer: ResponseRenderer,
  sink: ResponseSink,
  done: (error: unknown, response?: PiecedResponse) => void,
): void {
  let rendering: RenderedPieces;
  try {
    rendering = renderer.pieces!(sink);
  } catch (error) {
    setImmediate(done, error);
    return;
  }
  const pieces: Buffer[] = [];
  const turns = new TurnBudget();
  const turn = (): void => {
    turns.begin();
    try {
      for (;;) {
        const piece = rendering.next();
        if (piece === undefined) {
          done(undefined, { status: rendering.status, headers: rendering.headers, pieces });
          return;
        }
        pieces.push(piece);
        if (turns.spent()) break;
      }
    } catch (error) {
      done(error);
      return;
    }
    turns.next(turn);
  };
  // The first piece waits for the next turn too: the step that ran the batch may have used this one.
  turns.next(turn);
}

import { measureMemory } from 'node:vm';

/**
 * Asks V8 to start a full garbage collection now: `vm.measureMemory` with `execution: 'eager'` is the one public
 * API that does (a documented effect: "the GC will be started right away"), without `--expose-gc`. Most of the
 * marking runs on V8's helper threads; on the project's machine the event loop paused for about 40 ms with a 20 MB
 * live heap. Node marks `vm.measureMemory` experimental and prints one `ExperimentalWarning` on its first use.
 */
export function collectGarbageSoon(): void {
  measureMemory({ mode: 'summary', execution: 'eager' }).catch(ignore);
}

function ignore(): void {}

/** How long after the first collection the second one runs, if no large body came meanwhile. */
export const SECOND_COLLECTION_DELAY_MS = 3000;

/**
 * Gives the memory of large bodies back to the operating system once they are answered (decision 0091). V8 frees
 * garbage only when a collection runs, and runs one only when the program allocates: an origin that goes idle
 * after a 100 MB body keeps the body's records (hundreds of MB) resident, garbage, until traffic makes the heap
 * grow again. So each request whose body passes `thresholdBytes` {@link enter}s while it is read and
 * {@link leave}s once answered; when the last one leaves, one collection is asked for on the next turn (it frees
 * the records), and a second one {@link SECOND_COLLECTION_DELAY_MS} later (V8 shrinks the young generation, grown
 * while the body was parsed, only in a collection that runs while the program allocates little). Neither runs if
 * a large body entered meanwhile: its live records would make a collection long.
 */
export class MemoryRelease {
  /** Bodies of at least this many decoded bytes count as large; `Infinity` when the release is off. */
  readonly thresholdBytes: number;
  readonly #collect: () => void;
  #large = 0;
  /** Counts the times the last large request left: a collection asked for before the latest one is dropped. */
  #generation = 0;

  /** `releaseMemoryAfterMb` is `http.releaseMemoryAfterMb` (MB of 10^6 bytes; 0 turns the release off). */
  constructor(releaseMemoryAfterMb: number, collect: () => void = collectGarbageSoon) {
    this.thresholdBytes =
      releaseMemoryAfterMb > 0 ? releaseMemoryAfterMb * 1_000_000 : Number.POSITIVE_INFINITY;
    this.#collect = collect;
  }

  /** A body being read passed the threshold. */
  enter(): void {
    this.#large++;
  }

  /** A request that {@link enter}ed is answered (or refused); each `enter` is matched by exactly one `leave`. */
  leave(): void {
    this.#large--;
    if (this.#large > 0) return;
    const generation = ++this.#generation;
    // The next turn: the answer is written first, and the request's last references are gone.
    setImmediate(() => {
      if (!this.#collectIfIdle(generation)) return;
      setTimeout(() => this.#collectIfIdle(generation), SECOND_COLLECTION_DELAY_MS).unref();
    });
  }

  /** Collects unless a large body entered, or the last one left again, since `generation`; says whether it did. */
  #collectIfIdle(generation: number): boolean {
    if (this.#large > 0 || generation !== this.#generation) return false;
    this.#collect();
    return true;
  }
}

import type { ErrorCode, ErrorParams } from '../../errors/error-table';

/** A step that takes bytes in order: a decompressor, an archive reader, or the parser of one entry. */
export interface ByteSink {
  write(chunk: Uint8Array): void;
  end(): void;
}

/**
 * Why a container (gzip stream, zip or tar archive) cannot be read on. Thrown inside the steps and turned into one
 * stage failure by the compression parser; it never leaves the parser.
 */
export class ContainerError extends Error {
  readonly code: ErrorCode;
  readonly params: ErrorParams;

  constructor(code: ErrorCode, params: ErrorParams) {
    super(code);
    this.code = code;
    this.params = params;
  }
}

/** What a reader calls for each file entry of an archive; `undefined` when the entry is not selected. */
export type OpenEntry = (name: string) => ByteSink | undefined;

/**
 * `sink` fed in blocks of exactly `size` bytes (the last one shorter, at `end`), whatever the chunks written. The
 * decompressors and readers behind it then see the same calls for every chunking of one input, so that they stop
 * at the same fault with the same message (a stream that is both badly compressed and a bad tar otherwise reports
 * whichever the chunk boundaries reveal first), as the parser contract wants. Holds less than `size` bytes.
 */
export function inBlocks(sink: ByteSink, size: number): ByteSink {
  const block = new Uint8Array(size);
  let filled = 0;
  return {
    write: (chunk) => {
      let at = 0;
      while (at < chunk.length) {
        const take = Math.min(size - filled, chunk.length - at);
        block.set(chunk.subarray(at, at + take), filled);
        filled += take;
        at += take;
        if (filled === size) {
          filled = 0;
          // A copy: the readers behind may keep a view of what they were given (fflate's zip reader does).
          sink.write(block.slice());
        }
      }
    },
    end: () => {
      if (filled > 0) sink.write(block.slice(0, filled));
      filled = 0;
      sink.end();
    },
  };
}

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

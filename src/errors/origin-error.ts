import {
  ERROR_TABLE,
  formatMessage,
  type ErrorCategory,
  type ErrorCode,
  type ErrorParams,
} from './error-table';

/**
 * The one error class of the library. `code` is a literal type, so `err.code === 'ORIGIN_APP_ID_MISSING'` narrows;
 * `category` and `httpStatus` come from the error table; `params` are the values the message was built from;
 * `cause` keeps the underlying error when there is one.
 */
export class OriginError<C extends ErrorCode = ErrorCode> extends Error {
  override readonly name = 'OriginError';
  readonly code: C;
  readonly category: ErrorCategory;
  readonly httpStatus: number;
  readonly params: ErrorParams;

  /**
   * @param options.message - the message when it was already formatted elsewhere (a parse failure carries its
   *   message, not its parameters); by default the code's template filled from `params`.
   */
  constructor(code: C, params: ErrorParams = {}, options?: { cause?: unknown; message?: string }) {
    super(options?.message ?? formatMessage(ERROR_TABLE[code].message, params), { cause: options?.cause });
    this.code = code;
    this.category = ERROR_TABLE[code].category;
    this.httpStatus = ERROR_TABLE[code].httpStatus;
    this.params = params;
  }

  /** `"<CODE> - <message>"`, the form the response envelope's `errorMessage` carries. */
  describe(): string {
    return `${this.code} - ${this.message}`;
  }
}

/** True when `error` is an {@link OriginError}, optionally of the given code. */
export function isOriginError<C extends ErrorCode>(error: unknown, code?: C): error is OriginError<C> {
  return error instanceof OriginError && (code === undefined || error.code === code);
}

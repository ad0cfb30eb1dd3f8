import {
  ERROR_TABLE,
  formatMessage,
  type ErrorCategory,
  type ErrorCode,
  type ErrorParams,
} from './error-table';

/**
 * Marks an {@link OriginError} whatever copy of the package made it: the ESM and the CJS build (or two installed
 * versions) each have their own class, so `instanceof` fails across them, but `Symbol.for` gives them one key.
 */
const ORIGIN_ERROR_BRAND = Symbol.for('rest-service-origin.OriginError');

/**
 * The one error class of the library. `code` is a literal type, so `err.code === 'ORIGIN_APP_ID_MISSING'` narrows;
 * `category` and `httpStatus` come from the error table; `params` are the values the message was built from;
 * `cause` keeps the underlying error when there is one.
 */
export class OriginError<C extends ErrorCode = ErrorCode> extends Error {
  // On the prototype, so it marks subclasses too and stays out of own keys (equality checks, logging).
  static {
    Object.defineProperty(this.prototype, ORIGIN_ERROR_BRAND, { value: true });
  }

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

/**
 * True when `error` is an {@link OriginError}, optionally of the given code. It recognises one made by another
 * copy of this package in the same process (the CJS build when this is the ESM one, or the reverse), which
 * `instanceof OriginError` does not.
 */
export function isOriginError<C extends ErrorCode>(error: unknown, code?: C): error is OriginError<C> {
  if (typeof error !== 'object' || error === null) return false;
  if ((error as { [ORIGIN_ERROR_BRAND]?: unknown })[ORIGIN_ERROR_BRAND] !== true) return false;
  return code === undefined || (error as OriginError).code === code;
}

import { ERROR_TABLE, formatMessage, type ErrorCode, type ErrorParams } from '../errors/error-table';
import { MAX_EXCERPT_CHARS, type ParseFailure } from './data-format';

/** What a parser knows about a failure; {@link failure} turns it into a {@link ParseFailure}. */
export interface FailureInit {
  readonly code: ErrorCode;
  /** Fill the code's message template. */
  readonly params?: ErrorParams;
  /** Defaults to `'record'`. */
  readonly scope?: 'record' | 'stage';
  readonly recordIndex: number;
  readonly byteOffset: number;
  /** The offending input: text, or bytes that are decoded as UTF-8. Truncated to {@link MAX_EXCERPT_CHARS}. */
  readonly excerpt: string | Uint8Array;
  readonly canContinue: boolean;
}

/**
 * Builds a {@link ParseFailure}: the message is the code's template from the error table filled with `params`,
 * and the excerpt is cut to at most {@link MAX_EXCERPT_CHARS} characters (never inside a surrogate pair).
 */
export function failure(init: FailureInit): ParseFailure {
  return {
    code: init.code,
    message: formatMessage(ERROR_TABLE[init.code].message, init.params ?? {}),
    scope: init.scope ?? 'record',
    recordIndex: init.recordIndex,
    byteOffset: init.byteOffset,
    excerpt:
      typeof init.excerpt === 'string' ? truncateExcerpt(init.excerpt) : excerptFromBytes(init.excerpt),
    canContinue: init.canContinue,
  };
}

/**
 * The bytes an excerpt needs at most: no UTF-8 character is longer than 4 bytes, so this many bytes always hold
 * {@link MAX_EXCERPT_CHARS} characters. A parser that keeps the head of a record for its excerpt keeps this much.
 */
export const MAX_EXCERPT_BYTES = MAX_EXCERPT_CHARS * 4;

/** `text` cut to at most {@link MAX_EXCERPT_CHARS} UTF-16 code units, without leaving half a surrogate pair. */
export function truncateExcerpt(text: string): string {
  if (text.length <= MAX_EXCERPT_CHARS) return text;
  const last = text.charCodeAt(MAX_EXCERPT_CHARS - 1);
  // A high surrogate at the cut would leave a lone half of a character behind.
  const end = last >= 0xd800 && last <= 0xdbff ? MAX_EXCERPT_CHARS - 1 : MAX_EXCERPT_CHARS;
  return text.slice(0, end);
}

/**
 * The excerpt of raw bytes: their head of at most {@link MAX_EXCERPT_BYTES} is decoded as UTF-8 (invalid
 * sequences become U+FFFD) and truncated. A head that long always decodes to more than the excerpt keeps, so a
 * character cut at its end never shows: the excerpt depends only on the input, not on how much of it beyond that
 * head the caller kept.
 */
export function excerptFromBytes(bytes: Uint8Array): string {
  return truncateExcerpt(new TextDecoder().decode(bytes.subarray(0, MAX_EXCERPT_BYTES)));
}

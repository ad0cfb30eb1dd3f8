import type { ResponseSink } from '../pipeline/response-sink';

/** The status of a response whose records came with different status codes. */
export const MULTI_STATUS = 207;

/**
 * The status code of the response to one batch, as the engine decides it: no record in the response → 200; all
 * records sent with one status code → that code; records sent with different codes → 207 (Multi-Status).
 */
export function responseStatus(sink: Pick<ResponseSink, 'statusCodes'>): number {
  const codes = sink.statusCodes;
  if (codes.length === 0) return 200;
  if (codes.length === 1) return codes[0] as number;
  return MULTI_STATUS;
}

import { randomFillSync } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { JsonSchema } from '../formats/data-format';
import type { TraceContext } from '../pipeline/batch';

/**
 * What the origin does with W3C Trace Context (`http.traceContext`, an addition; docs/trace-context.md, decision
 * 0116): `continue` (default) continues a valid incoming `traceparent` with a span of its own and starts none;
 * `start` also starts a new trace for a request without one; `off` ignores trace context (the headers are then
 * ordinary header attributes and nothing is echoed).
 */
export type TraceContextMode = 'continue' | 'start' | 'off';

/** The values of `http.traceContext`. */
export const TRACE_CONTEXT_MODES: readonly TraceContextMode[] = ['continue', 'start', 'off'];

/** The JSON Schema of `http.traceContext`. */
export function traceContextSchema(): JsonSchema {
  return {
    type: 'string',
    enum: TRACE_CONTEXT_MODES,
    default: 'continue',
    description:
      "(addition) W3C Trace Context (docs/trace-context.md). continue: a valid incoming traceparent is continued with a span of the origin's own (new span id, same trace id and flags), kept on the batch's request info and as the records' traceparent/tracestate header attributes, and echoed as the answer's traceparent; an invalid one is ignored; a request without one gets none. start: as continue, and a request without a valid traceparent starts a new trace (flags 00, not sampled). off: trace context is not read; traceparent and tracestate are ordinary header attributes.",
  };
}

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;
const ZERO_TRACE_ID = '0'.repeat(32);
const ZERO_SPAN_ID = '0'.repeat(16);
// A tracestate list member: `key=value`, key a simple or multi-tenant key, value printable ASCII without `,` `=`.
const TRACESTATE_MEMBER =
  /^(?:[a-z][a-z0-9_\-*/]{0,255}|[a-z0-9][a-z0-9_\-*/]{0,240}@[a-z][a-z0-9_\-*/]{0,13})=[\x20-\x2b\x2d-\x3c\x3e-\x7e]{0,255}[\x21-\x2b\x2d-\x3c\x3e-\x7e]$/;
const TRACESTATE_MAX_MEMBERS = 32;

/**
 * The trace context of a request with headers `headers`, or `undefined` when it has none to continue (and
 * `mode` is not `start`). Strict W3C Trace Context parsing: `traceparent` is one header value of four lower-case
 * hex fields, version `ff` refused, an all-zero trace or parent id refused; version `00` must have exactly four
 * fields, a later version may carry more after a `-` (the first four are read, as the standard says). A repeated
 * `traceparent` is invalid. An invalid `traceparent` is ignored (not an error), and so is the `tracestate` with
 * it; an invalid `tracestate` (a malformed member, more than 32 members, a repeated key) is dropped alone.
 */
export function traceContextOf(
  headers: IncomingHttpHeaders,
  mode: TraceContextMode,
): TraceContext | undefined {
  if (mode === 'off') return undefined;
  const incoming = parseTraceparent(headers.traceparent);
  if (incoming === undefined) return mode === 'start' ? startTrace() : undefined;
  const spanId = newSpanId();
  const traceState = parseTracestate(headers.tracestate);
  return {
    traceId: incoming.traceId,
    parentId: incoming.parentId,
    spanId,
    traceFlags: incoming.traceFlags,
    ...(traceState === undefined ? {} : { traceState }),
    traceparent: `00-${incoming.traceId}-${spanId}-${incoming.traceFlags}`,
  };
}

/** The fields of a valid `traceparent` value, else `undefined`. */
export function parseTraceparent(
  value: string | string[] | undefined,
): { traceId: string; parentId: string; traceFlags: string } | undefined {
  // Node joins a repeated traceparent with ', ', which the pattern refuses; an array never comes from Node.
  if (typeof value !== 'string') return undefined;
  const match = TRACEPARENT.exec(value);
  if (match === null) return undefined;
  const [, version, traceId, parentId, traceFlags, rest] = match as unknown as [
    string,
    string,
    string,
    string,
    string,
    string | undefined,
  ];
  if (version === 'ff') return undefined;
  if (version === '00' && rest !== undefined) return undefined;
  if (traceId === ZERO_TRACE_ID || parentId === ZERO_SPAN_ID) return undefined;
  // A later version's flags may have bits version 00 does not know; they are kept as sent, like the others.
  return { traceId, parentId, traceFlags };
}

/**
 * A valid `tracestate` value (members trimmed, empty members dropped, joined by `,`), else `undefined`. Node
 * joins repeated `tracestate` headers with `, `, which is how the standard says to combine them.
 */
export function parseTracestate(value: string | string[] | undefined): string | undefined {
  if (value === undefined) return undefined;
  const joined = Array.isArray(value) ? value.join(',') : value;
  const members = joined
    .split(',')
    .map((member) => member.trim())
    .filter((member) => member !== '');
  if (members.length === 0 || members.length > TRACESTATE_MAX_MEMBERS) return undefined;
  const keys = new Set<string>();
  for (const member of members) {
    if (!TRACESTATE_MEMBER.test(member)) return undefined;
    const key = member.slice(0, member.indexOf('='));
    if (keys.has(key)) return undefined;
    keys.add(key);
  }
  return members.join(',');
}

function startTrace(): TraceContext {
  const bytes = randomBytes(24);
  let traceId = bytes.toString('hex', 0, 16);
  let spanId = bytes.toString('hex', 16, 24);
  // All-zero ids are invalid; the chance is 2^-128 and 2^-64, but the answer must still be valid.
  if (traceId === ZERO_TRACE_ID) traceId = `${traceId.slice(0, 31)}1`;
  if (spanId === ZERO_SPAN_ID) spanId = `${spanId.slice(0, 15)}1`;
  return { traceId, spanId, traceFlags: '00', traceparent: `00-${traceId}-${spanId}-00` };
}

function newSpanId(): string {
  const id = randomBytes(8).toString('hex');
  return id === ZERO_SPAN_ID ? '0000000000000001' : id;
}

/**
 * Random bytes from a pool refilled 4 KiB at a time: one `randomFillSync` per 170 traced requests instead of one
 * per request (a span id is not a secret, but it must not repeat).
 */
const POOL = Buffer.alloc(4096);
let poolOffset = POOL.length;

function randomBytes(count: number): Buffer {
  if (poolOffset + count > POOL.length) {
    randomFillSync(POOL);
    poolOffset = 0;
  }
  const bytes = Buffer.from(POOL.subarray(poolOffset, poolOffset + count));
  poolOffset += count;
  return bytes;
}

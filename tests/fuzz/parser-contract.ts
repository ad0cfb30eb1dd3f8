import { isDeepStrictEqual } from 'node:util';
import { MAX_EXCERPT_CHARS, type ParseResult, type Parser } from '../../src/formats/data-format';
import { ERROR_TABLE } from '../../src/errors/error-table';
import { isTypedField, type FieldValue } from '../../src/record/field';
import { fieldValueToJson } from '../../src/record/json-text';
import { isListMap, listMapEntries } from '../../src/record/list-map';
import { chunksOf } from './fuzz-inputs';
import { FUZZ_MAX_DECODED_BYTES, parserForSeed, type FuzzSeed, type FuzzTarget } from './fuzz-targets';

/** A broken promise of the parser contract (src/formats/data-format.ts), with what was seen. */
export class ContractViolation extends Error {
  override readonly name = 'ContractViolation';
}

/**
 * What one input cost: records and failures made, and the weight of what they hold (see {@link weigh}). The
 * fuzz runs report the largest ratios seen.
 */
export interface ParseCost {
  readonly outputs: number;
  readonly nodes: number;
  readonly bytes: number;
}

/** Constant part of every bound: a few records and one pooled 8 KiB buffer slab, whatever the input. */
const BASE_OUTPUTS = 16;
const BASE_NODES = 1024;
const BASE_BYTES = 64 * 1024;
/** Memory (string characters and buffer bytes, each counted once) one input byte may produce. */
const BYTES_PER_BYTE = 16;

/**
 * Parses `body` as `seed` says, whole and in `cuts`' chunking, and checks the parser contract; throws a
 * {@link ContractViolation} (or the parser's own exception, wrapped) on the first broken promise:
 *
 * - `push` and `end` never throw, and return `{ records, failures }` of well-formed entries: every failure has a
 *   code of the error table, a scope, a message, an excerpt of at most 256 characters, a non-negative index and
 *   offset; every record's value is a field value that renders as JSON and its attributes are strings;
 * - after a failure with `canContinue: false`, nothing more comes out;
 * - any chunking gives what one `push` gives, and `parseAll` too; chunks are scribbled over once pushed, so a
 *   parser that kept a view of one shows it;
 * - records plus failures are at most a constant plus `target.outputsPerByte` per input byte, their nodes at
 *   most a constant plus `target.nodesPerByte` per byte, and the distinct strings and buffers they hold at most a
 *   constant plus a small multiple of the input (for archives,
 *   of the decoded limit). A parser that loops without consuming input and emits something breaks this bound
 *   instead of running out of memory.
 */
export function checkParserContract(
  target: FuzzTarget,
  seed: FuzzSeed,
  body: Buffer,
  cuts: readonly number[],
): ParseCost {
  const whole = run(seed, [body], false);
  const chunked = run(seed, chunksOf(body, cuts), true);
  if (!isDeepStrictEqual(canonical(chunked), canonical(whole))) {
    throw new ContractViolation(
      `chunking changed the result:\n whole:   ${show(whole)}\n chunked: ${show(chunked)}`,
    );
  }
  const all = parserForSeed(seed).parseAll?.(Buffer.from(body));
  if (all !== undefined) {
    checkResult(all);
    if (!isDeepStrictEqual(canonical(all), canonical(whole)))
      throw new ContractViolation(
        `parseAll differs from push + end:\n push: ${show(whole)}\n all:  ${show(all)}`,
      );
  }
  return checkCost(target, seed, body, whole);
}

/** Pushes `chunks` into a fresh parser, then ends it; checks every step's result and the stop rule. */
function run(seed: FuzzSeed, chunks: readonly Buffer[], scribble: boolean): ParseResult {
  const parser = parserForSeed(seed);
  const merged: ParseResult = { records: [], failures: [] };
  let stopped = false;
  const step = (what: string, call: (p: Parser) => ParseResult): void => {
    let result: ParseResult;
    try {
      result = call(parser);
    } catch (error) {
      const detail = error instanceof Error ? (error.stack ?? error.message) : String(error);
      throw new ContractViolation(`${what} threw: ${detail}`);
    }
    checkResult(result);
    if (stopped && (result.records.length > 0 || result.failures.length > 0))
      throw new ContractViolation(
        `${what} gave output after a failure with canContinue false: ${show(result)}`,
      );
    if (result.failures.some((f) => !f.canContinue)) stopped = true;
    merged.records.push(...result.records);
    merged.failures.push(...result.failures);
  };
  let pushed = 0;
  for (const [i, chunk] of chunks.entries()) {
    // A copy the parser may read during push only: scribbled over afterwards, as a caller reusing its buffer would.
    const copy = Buffer.from(chunk);
    step(`push #${i} (${chunk.length} bytes)`, (p) => p.push(copy));
    if (scribble) copy.fill(0x5a);
    pushed += chunk.length;
    checkHeld(parser, pushed);
  }
  step('end', (p) => p.end());
  return merged;
}

/**
 * Parsers that say how many bytes they hold between pushes (`bufferedBytes`, see the JSON, text, Engine Record and
 * Binary parsers) hold at most a constant plus a small multiple of what they were given.
 */
function checkHeld(parser: Parser, pushed: number): void {
  const held = (parser as { bufferedBytes?: unknown }).bufferedBytes;
  if (typeof held === 'number' && held > BASE_BYTES + BYTES_PER_BYTE * pushed)
    throw new ContractViolation(`the parser holds ${held} bytes after ${pushed} were pushed`);
}

/** Throws when `result` is not well-formed (see {@link checkParserContract}). */
function checkResult(result: ParseResult): void {
  if (!Array.isArray(result?.records) || !Array.isArray(result?.failures))
    throw new ContractViolation(`not a ParseResult: ${show(result)}`);
  for (const f of result.failures) {
    const problems: string[] = [];
    if (!Object.hasOwn(ERROR_TABLE, f.code)) problems.push('code not in the error table');
    if (f.scope !== 'record' && f.scope !== 'stage') problems.push('bad scope');
    if (typeof f.message !== 'string' || f.message.length === 0) problems.push('no message');
    if (typeof f.excerpt !== 'string' || f.excerpt.length > MAX_EXCERPT_CHARS) problems.push('bad excerpt');
    if (!Number.isSafeInteger(f.recordIndex) || f.recordIndex < 0) problems.push('bad recordIndex');
    if (!Number.isSafeInteger(f.byteOffset) || f.byteOffset < 0) problems.push('bad byteOffset');
    if (typeof f.canContinue !== 'boolean') problems.push('bad canContinue');
    if (problems.length > 0)
      throw new ContractViolation(`malformed failure (${problems.join(', ')}): ${show(f)}`);
  }
  for (const r of result.records) {
    for (const [name, value] of Object.entries(r.attributes ?? {})) {
      if (typeof value !== 'string')
        throw new ContractViolation(`attribute ${name} is not a string: ${show(r)}`);
    }
    try {
      fieldValueToJson(r.value);
    } catch (error) {
      throw new ContractViolation(`a record does not render as JSON (${String(error)}): ${show(r.value)}`);
    }
  }
}

/** Checks the output bounds of {@link checkParserContract} and returns the cost. */
function checkCost(target: FuzzTarget, seed: FuzzSeed, body: Buffer, result: ParseResult): ParseCost {
  const inputBytes = body.length + (seed.compression ? FUZZ_MAX_DECODED_BYTES : 0);
  const outputs = result.records.length + result.failures.length;
  const weight = weigh([...result.records.map((r) => r.value), ...result.failures.map((f) => f.excerpt)]);
  for (const r of result.records) weight.add(r.attributes ?? {});
  const cost = { outputs, nodes: weight.nodes, bytes: weight.bytes };
  const maxOutputs = BASE_OUTPUTS + target.outputsPerByte * inputBytes;
  const maxNodes = BASE_NODES + target.nodesPerByte * inputBytes;
  const maxBytes = BASE_BYTES + BYTES_PER_BYTE * inputBytes;
  if (outputs > maxOutputs || cost.nodes > maxNodes || cost.bytes > maxBytes) {
    throw new ContractViolation(
      `output out of proportion to ${inputBytes} input bytes: ${outputs} records and failures (at most ${maxOutputs}), ` +
        `${cost.nodes} nodes (at most ${maxNodes}), ${cost.bytes} bytes held (at most ${maxBytes})`,
    );
  }
  return cost;
}

/**
 * Counts what values hold: one node per value, key and attribute; string characters once per distinct string;
 * buffer bytes once per distinct backing store, whole (a record holding a small view of a large buffer keeps all of
 * it alive, which is what this is meant to see).
 */
function weigh(values: readonly unknown[]): { nodes: number; bytes: number; add(value: unknown): void } {
  const strings = new Set<string>();
  const stores = new Set<ArrayBufferLike>();
  const state = {
    nodes: 0,
    bytes: 0,
    add(value: unknown): void {
      const stack: unknown[] = [value];
      while (stack.length > 0) {
        const v = stack.pop();
        state.nodes++;
        if (typeof v === 'string') {
          if (!strings.has(v)) {
            strings.add(v);
            state.bytes += v.length;
          }
        } else if (v instanceof Uint8Array) {
          if (!stores.has(v.buffer)) {
            stores.add(v.buffer);
            state.bytes += v.buffer.byteLength;
          }
        } else if (Array.isArray(v)) {
          stack.push(...v);
        } else if (isTypedField(v)) {
          stack.push(v.value, v.attributes ?? null);
        } else if (v !== null && typeof v === 'object' && !(v instanceof Date)) {
          for (const [key, child] of Object.entries(v)) stack.push(key, child);
        }
      }
    },
  };
  for (const value of values) state.add(value);
  return state;
}

/**
 * A result in a form `isDeepStrictEqual` compares by content: list-maps as ordered entries (their prototypes
 * differ per parser), typed fields and dates tagged, buffers as hex, numbers as `Object.is` would tell them.
 */
export function canonical(result: ParseResult): unknown {
  return {
    records: result.records.map((r) => ({
      value: canonicalValue(r.value),
      attributes: r.attributes ?? null,
      error: r.error ?? null,
    })),
    failures: result.failures.map((f) => ({ ...f })),
  };
}

function canonicalValue(value: FieldValue | undefined): unknown {
  if (value === undefined) return { $undefined: true };
  if (typeof value === 'number') return Object.is(value, -0) ? { $number: '-0' } : value;
  if (typeof value === 'bigint') return { $bigint: value.toString() };
  if (value instanceof Uint8Array) return { $bytes: Buffer.from(value).toString('hex') };
  if (value instanceof Date) return { $date: value.getTime() };
  if (Array.isArray(value)) return value.map(canonicalValue);
  if (isTypedField(value)) {
    const inner = canonicalValue(value.value as FieldValue);
    return { $typed: value.type, value: inner, attributes: value.attributes ?? null };
  }
  if (isListMap(value)) return { $listMap: listMapEntries(value).map(([k, v]) => [k, canonicalValue(v)]) };
  if (value !== null && typeof value === 'object') {
    return { $map: Object.entries(value).map(([k, v]) => [k, canonicalValue(v)]) };
  }
  return value;
}

/** A short text of `value` for messages. */
export function show(value: unknown): string {
  let text: string;
  try {
    text = JSON.stringify(value, (_, v: unknown) =>
      typeof v === 'bigint' ? `${v}n` : v instanceof Uint8Array ? `<${v.length} bytes>` : v,
    );
  } catch {
    text = String(value);
  }
  return text === undefined ? String(value) : text.length > 600 ? `${text.slice(0, 600)}…` : text;
}

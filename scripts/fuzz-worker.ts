/**
 * One parser target of `npm run fuzz`, run in a worker thread so that the main thread can stop it when it hangs
 * (a parser looping without consuming input never returns to the event loop). Before each input it writes the body
 * to shared memory and bumps a heartbeat, so that the main thread knows which input hung.
 */
import { parentPort, workerData } from 'node:worker_threads';
import fc from 'fast-check';
import { bodyOf, chunksOf, fuzzCases, seedOf } from '../tests/fuzz/fuzz-inputs';
import { loadFuzzTargets } from '../tests/fuzz/fuzz-targets';
import { checkParserContract, type ParseCost } from '../tests/fuzz/parser-contract';

export interface WorkerInput {
  readonly root: string;
  readonly target: string;
  readonly seed: number;
  readonly path: string | undefined;
  readonly ms: number;
  /** Two Int32 (inputs started, current body length), then the current body's bytes. */
  readonly shared: SharedArrayBuffer;
}

export interface WorkerResult {
  readonly runs: number;
  readonly failed: boolean;
  readonly report: string;
  readonly counterexample: { body: string; cuts: number[]; seedName: string } | undefined;
  readonly maxOutputsPerByte: number;
  readonly maxNodesPerByte: number;
  readonly maxBytesPerByte: number;
  readonly bytesTried: number;
}

const SHARED_HEADER_BYTES = 8;

const input = workerData as WorkerInput;
const target = loadFuzzTargets(input.root).find((t) => t.name === input.target);
if (!target) throw new Error(`no fuzz target ${input.target}`);
const heartbeat = new Int32Array(input.shared, 0, 2);
const shared = new Uint8Array(input.shared, SHARED_HEADER_BYTES);

let bytesTried = 0;
const max = { outputs: 0, nodes: 0, bytes: 0 };
/** Inputs this small are all constant overhead; the ratios are reported for larger ones. */
const RATIO_MIN_BYTES = 256;
const note = (cost: ParseCost, size: number): void => {
  if (size < RATIO_MIN_BYTES) return;
  const per = size;
  max.outputs = Math.max(max.outputs, cost.outputs / per);
  max.nodes = Math.max(max.nodes, cost.nodes / per);
  max.bytes = Math.max(max.bytes, cost.bytes / per);
};

const details = fc.check(
  fc.property(fuzzCases(target, true), (c) => {
    const body = bodyOf(target, c);
    const seed = seedOf(target, c);
    const stored = Math.min(body.length, shared.length);
    shared.set(body.subarray(0, stored));
    Atomics.store(heartbeat, 1, stored);
    Atomics.add(heartbeat, 0, 1);
    bytesTried += body.length;
    note(checkParserContract(target, seed, body, c.cuts), body.length);
  }),
  {
    seed: input.seed,
    path: input.path,
    numRuns: input.path === undefined ? Number.MAX_SAFE_INTEGER : 1,
    interruptAfterTimeLimit: input.ms,
    markInterruptAsFailure: false,
  },
);

/** The shrunk counterexample as the regression fixtures keep it: the body, absolute cut points, the seed's name. */
function counterexample(): WorkerResult['counterexample'] {
  const [c] = details.counterexample ?? [];
  if (!details.failed || !c || !target) return undefined;
  const body = bodyOf(target, c);
  const cuts: number[] = [];
  let at = 0;
  for (const chunk of chunksOf(body, c.cuts).slice(0, -1)) cuts.push((at += chunk.length));
  return { body: body.toString('base64'), cuts, seedName: seedOf(target, c).name };
}

const result: WorkerResult = {
  runs: details.numRuns,
  failed: details.failed,
  report: details.failed
    ? `${fc.defaultReportMessage(details) ?? 'failed'}\n${String(details.errorInstance).slice(0, 4000)}`
    : '',
  counterexample: counterexample(),
  maxOutputsPerByte: max.outputs,
  maxNodesPerByte: max.nodes,
  maxBytesPerByte: max.bytes,
  bytesTried,
};
parentPort?.postMessage(result);

import { join } from 'node:path';
import fc from 'fast-check';
import { bodyOf, fuzzCases, seedOf } from './fuzz-inputs';
import { loadFuzzTargets } from './fuzz-targets';
import { checkParserContract } from './parser-contract';

/**
 * The quick fuzz run of `npm test`: for every parser, mutated fixtures and random bytes in random chunkings keep
 * the parser contract (parser-contract.ts). `npm run fuzz` runs the same properties far longer and with large
 * inputs too; a failure prints fast-check's seed and path, which `FUZZ_SEED=<seed> FUZZ_PATH=<path>` replays here
 * (with `FUZZ_LARGE=1` for one found by `npm run fuzz`).
 */
const targets = loadFuzzTargets(join(__dirname, '..', 'fixtures', 'formats'));
const runs = Number(process.env.FUZZ_RUNS ?? 150);
const large = process.env.FUZZ_LARGE === '1';
const replay =
  process.env.FUZZ_SEED === undefined
    ? {}
    : { seed: Number(process.env.FUZZ_SEED), path: process.env.FUZZ_PATH, endOnFailure: true };

describe('every parser keeps its contract on hostile input', () => {
  it.each(targets.map((t) => [t.name, t] as const))('%s', (_, target) => {
    fc.assert(
      fc.property(fuzzCases(target, large), (c) => {
        checkParserContract(target, seedOf(target, c), bodyOf(target, c), c.cuts);
      }),
      { numRuns: runs, ...replay },
    );
  });
});

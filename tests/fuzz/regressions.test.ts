import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import sax from 'sax';
import { parseWhole } from '../../src/formats/parse-helpers';
import { xmlFormat } from '../../src/formats/xml/xml-format';
import { loadFuzzTargets } from './fuzz-targets';
import { checkParserContract } from './parser-contract';

/**
 * Every input the fuzzer found breaking the parser contract, kept with the chunking that showed it
 * (regressions/regressions.json: the input file, the target and fixture whose options parse it, the cut points,
 * and what was wrong). Each must keep the contract now.
 */
interface Regression {
  readonly input: string;
  readonly target: string;
  readonly seed: string;
  readonly cuts: readonly number[];
  readonly found: string;
}

const DIR = join(__dirname, 'regressions');
const targets = loadFuzzTargets(join(__dirname, '..', 'fixtures', 'formats'));
const regressions = JSON.parse(readFileSync(join(DIR, 'regressions.json'), 'utf8')) as Regression[];

describe('inputs the fuzzer found keep the parser contract', () => {
  it.each(regressions.map((r) => [r.input, r] as const))('%s', (_, r) => {
    const target = targets.find((t) => t.name === r.target);
    const seed = target?.seeds.find((s) => s.name === r.seed);
    if (!target || !seed) throw new Error(`no fuzz target ${r.target} with seed ${r.seed}`);
    const body = readFileSync(join(DIR, r.input));
    // Cut points are absolute offsets; checkParserContract takes them modulo the length + 1, which keeps them.
    expect(() => checkParserContract(target, seed, body, r.cuts)).not.toThrow();
  });
});

describe('work the fuzzer found out of proportion, counted', () => {
  afterEach(() => jest.restoreAllMocks());

  it('the XML parser takes one error from sax and no more (sax read on, each error dearer than the last)', () => {
    let errors = 0;
    const make = sax.parser.bind(sax);
    jest.spyOn(sax, 'parser').mockImplementation((strict, options) => {
      const parser = make(strict, options);
      let handler: ((error: Error) => void) | undefined;
      Object.defineProperty(parser, 'onerror', {
        get: () => (error: Error) => {
          errors++;
          handler?.(error);
        },
        set: (h: (error: Error) => void) => (handler = h),
      });
      return parser;
    });
    const result = parseWhole(xmlFormat, {}, readFileSync(join(DIR, 'xml-errors-after-the-first.bin')));
    expect(result.failures.map((f) => f.code)).toEqual(['ORIGIN_XML_MALFORMED']);
    expect(errors).toBe(1);
  });
});

import fc from 'fast-check';
import type { FuzzSeed, FuzzTarget } from './fuzz-targets';

/**
 * One edit of an input. Positions and lengths are free naturals, taken modulo the input's length when applied, so
 * that fast-check can shrink them without knowing the input.
 */
export type Mutation =
  | { readonly kind: 'flip'; readonly at: number; readonly bit: number }
  | { readonly kind: 'set'; readonly at: number; readonly value: number }
  | { readonly kind: 'insert'; readonly at: number; readonly bytes: Uint8Array }
  | { readonly kind: 'token'; readonly at: number; readonly token: number; readonly times: number }
  | { readonly kind: 'delete'; readonly at: number; readonly length: number }
  | { readonly kind: 'repeat'; readonly at: number; readonly length: number; readonly times: number }
  | { readonly kind: 'truncate'; readonly at: number }
  | {
      readonly kind: 'splice';
      readonly seed: number;
      readonly from: number;
      readonly length: number;
      readonly at: number;
    };

/** How one fuzz input is made: a seed (its options always; its bytes when mutated), then the body and its cuts. */
export interface FuzzCase {
  readonly seed: number;
  readonly body:
    | { readonly kind: 'mutated'; readonly mutations: readonly Mutation[] }
    | { readonly kind: 'random'; readonly bytes: Uint8Array };
  /** Chunk boundaries, taken modulo the body's length + 1 and sorted; a repeat makes an empty chunk. */
  readonly cuts: readonly number[];
}

const INTERESTING_BYTES = [0x00, 0x01, 0x0a, 0x0d, 0x20, 0x22, 0x3c, 0x7f, 0x80, 0xc0, 0xfe, 0xff];

const position = fc.nat();
const smallMutations: fc.Arbitrary<Mutation>[] = [
  fc.record({ kind: fc.constant('flip' as const), at: position, bit: fc.integer({ min: 0, max: 7 }) }),
  fc.record({
    kind: fc.constant('set' as const),
    at: position,
    value: fc.oneof(fc.constantFrom(...INTERESTING_BYTES), fc.integer({ min: 0, max: 255 })),
  }),
  fc.record({ kind: fc.constant('insert' as const), at: position, bytes: fc.uint8Array({ maxLength: 16 }) }),
  fc.record({
    kind: fc.constant('token' as const),
    at: position,
    token: fc.nat(),
    times: fc.oneof(fc.constant(1), fc.integer({ min: 1, max: 64 })),
  }),
  fc.record({ kind: fc.constant('delete' as const), at: position, length: fc.integer({ min: 1, max: 64 }) }),
  fc.record({
    kind: fc.constant('repeat' as const),
    at: position,
    length: fc.integer({ min: 1, max: 32 }),
    times: fc.integer({ min: 1, max: 64 }),
  }),
  fc.record({ kind: fc.constant('truncate' as const), at: position }),
  fc.record({
    kind: fc.constant('splice' as const),
    seed: fc.nat(),
    from: position,
    length: fc.integer({ min: 1, max: 256 }),
    at: position,
  }),
];

/** A large input (up to 128 KiB), so that the output bounds are tried beyond toy sizes: `npm run fuzz` only. */
const largeMutation: fc.Arbitrary<Mutation> = fc.record({
  kind: fc.constant('repeat' as const),
  at: position,
  length: fc.integer({ min: 1, max: 64 }),
  times: fc.integer({ min: 100, max: 2000 }),
});

/**
 * Fuzz cases for `target`: mostly mutated fixtures (1–8 edits), some random bytes, in random chunkings. With
 * `large`, an edit may also repeat a piece of the input hundreds of times (the long run's inputs; the quick run in
 * `npm test` keeps inputs small so that it takes seconds).
 */
export function fuzzCases(target: FuzzTarget, large = false): fc.Arbitrary<FuzzCase> {
  const mutation = fc.oneof(...smallMutations, ...(large ? [largeMutation] : []));
  return fc.record({
    seed: fc.nat({ max: target.seeds.length - 1 }),
    body: fc.oneof(
      {
        weight: 4,
        arbitrary: fc.record({
          kind: fc.constant('mutated' as const),
          mutations: fc.array(mutation, { minLength: 1, maxLength: 8 }),
        }),
      },
      {
        weight: 1,
        arbitrary: fc.record({
          kind: fc.constant('random' as const),
          bytes: fc.uint8Array({ maxLength: 512 }),
        }),
      },
    ),
    cuts: fc.array(fc.nat(), { maxLength: 10 }),
  });
}

/** The seed `c` starts from. */
export function seedOf(target: FuzzTarget, c: FuzzCase): FuzzSeed {
  const seed = target.seeds[c.seed];
  if (!seed) throw new RangeError(`no seed ${c.seed} in ${target.name}`);
  return seed;
}

/** The body `c` describes. */
export function bodyOf(target: FuzzTarget, c: FuzzCase): Buffer {
  if (c.body.kind === 'random') return Buffer.from(c.body.bytes);
  let body = seedOf(target, c).input;
  for (const m of c.body.mutations) body = applyMutation(target, body, m);
  return body;
}

/** `m` applied to `input` (never changes `input`). */
export function applyMutation(target: FuzzTarget, input: Buffer, m: Mutation): Buffer {
  const at = m.at % (input.length + 1);
  const head = input.subarray(0, at);
  switch (m.kind) {
    case 'flip':
    case 'set': {
      if (input.length === 0) return input;
      const copy = Buffer.from(input);
      const i = m.at % input.length;
      copy[i] = m.kind === 'flip' ? (copy[i] ?? 0) ^ (1 << m.bit) : m.value;
      return copy;
    }
    case 'insert':
      return Buffer.concat([head, m.bytes, input.subarray(at)]);
    case 'token': {
      const token = target.tokens[m.token % Math.max(1, target.tokens.length)] ?? Buffer.alloc(0);
      return Buffer.concat([head, ...Array<Buffer>(m.times).fill(token), input.subarray(at)]);
    }
    case 'delete':
      return Buffer.concat([head, input.subarray(at + m.length)]);
    case 'repeat': {
      const piece = input.subarray(at, at + m.length);
      return Buffer.concat([head, ...Array<Buffer>(m.times + 1).fill(piece), input.subarray(at + m.length)]);
    }
    case 'truncate':
      return head;
    case 'splice': {
      const other = target.seeds[m.seed % target.seeds.length]?.input ?? Buffer.alloc(0);
      const from = m.from % (other.length + 1);
      return Buffer.concat([head, other.subarray(from, from + m.length), input.subarray(at)]);
    }
  }
}

/** `body` cut at `cuts` (see {@link FuzzCase.cuts}). */
export function chunksOf(body: Buffer, cuts: readonly number[]): Buffer[] {
  const points = cuts.map((n) => n % (body.length + 1)).sort((a, b) => a - b);
  const chunks: Buffer[] = [];
  let from = 0;
  for (const point of points) {
    chunks.push(body.subarray(from, point));
    from = point;
  }
  chunks.push(body.subarray(from));
  return chunks;
}

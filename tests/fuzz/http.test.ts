import { join } from 'node:path';
import fc from 'fast-check';
import {
  FUZZED_ORIGINS,
  checkAnswer,
  exchange,
  fuzzRequests,
  requestBytes,
  startFuzzedOrigin,
  type FuzzedOrigin,
} from './http-fuzz';
import { loadFuzzTargets } from './fuzz-targets';

/**
 * The quick HTTP fuzz run of `npm test`: random and mutated requests over a real socket to a running origin are
 * each answered with a proper status and an envelope, and the origin then still serves normal requests on every
 * slot. `npm run fuzz` runs it longer; `FUZZ_SEED`/`FUZZ_PATH` replay a failure here.
 */
const targets = loadFuzzTargets(join(__dirname, '..', 'fixtures', 'formats'));
const runs = Number(process.env.FUZZ_HTTP_RUNS ?? 60);
const replay =
  process.env.FUZZ_SEED === undefined
    ? {}
    : { seed: Number(process.env.FUZZ_SEED), path: process.env.FUZZ_PATH, endOnFailure: true };

/** A valid request for each origin, with the answer it must still get. */
const NORMAL: Record<string, { body: string; headers?: string }> = {
  json: { body: '{"a":1}' },
  xml: { body: '<r><record><a>1</a></record></r>' },
  delimited: { body: 'a,b\n1,2\n', headers: 'X-ENGINE-APPLICATION-ID: fuzz-app\r\n' },
};

describe('the origin answers every fuzzed request and stays up', () => {
  let running: FuzzedOrigin | undefined;
  afterEach(async () => {
    await running?.stop();
    running = undefined;
  });

  it.each(FUZZED_ORIGINS.map((o) => [o.target, o] as const))('%s origin', async (_, fuzzed) => {
    const target = targets.find((t) => t.name === fuzzed.target);
    if (!target) throw new Error(`no fuzz target ${fuzzed.target}`);
    running = await startFuzzedOrigin(fuzzed.config);
    const port = running.port;
    await fc.assert(
      fc.asyncProperty(fuzzRequests(target), async (request) => {
        checkAnswer(request.method, await exchange(port, requestBytes(target, request)));
      }),
      { numRuns: runs, ...replay },
    );
    // Every request slot is free again: as many normal requests as there are slots, plus one, all answered 200.
    const normal = NORMAL[fuzzed.target];
    if (normal) {
      const bytes = Buffer.from(
        `POST / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n${normal.headers ?? ''}Content-Length: ${Buffer.byteLength(normal.body)}\r\n\r\n${normal.body}`,
      );
      const answers = await Promise.all(Array.from({ length: 11 }, () => exchange(port, bytes)));
      expect(answers.map((a) => a.status)).toEqual(Array<number>(11).fill(200));
    }
  });
});

import { connect } from 'node:net';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { compressSync } from 'snappy';
import type { OriginConfigInput } from '../../src/origin/config';
import { Origin } from '../../src/origin/origin';
import { InProcessRunnerPool } from '../../src/pipeline/in-process-runner-pool';
import type { Pipeline } from '../../src/pipeline/runner-pool';
import { SendResponse } from '../../src/response/send-response';
import { applyMutation, type Mutation } from './fuzz-inputs';
import type { FuzzTarget } from './fuzz-targets';

/**
 * HTTP-level fuzzing: requests with random methods, paths, headers, encodings and bodies (mutated fixtures of the
 * origin's format, compressed or not, and the compressed bytes mutated too), written as raw bytes to a real
 * socket, and the rule every answer must follow ({@link checkAnswer}).
 */

/** Answers records with 200 and error records with 400, so that any 5xx is the origin's own failure. */
const sendRecords = new SendResponse();
const sendErrorRecords = SendResponse.forErrors({ statusCode: 400 });
export const answerRecordsAndErrors: Pipeline = (batch) => {
  sendRecords.write(batch);
  sendErrorRecords.write(batch);
};

/** An origin on 127.0.0.1 port 0 with an in-process pool running {@link answerRecordsAndErrors}. */
export interface FuzzedOrigin {
  readonly origin: Origin;
  readonly port: number;
  stop(): Promise<void>;
}

export async function startFuzzedOrigin(
  config: Omit<OriginConfigInput, 'http'> & {
    http?: OriginConfigInput['http'];
  },
): Promise<FuzzedOrigin> {
  const http = { host: '127.0.0.1', port: 0, ...config.http };
  const pool = new InProcessRunnerPool(http.maxConcurrentRequests ?? 10, answerRecordsAndErrors, {
    runnerIdleTimeMs: 0,
  });
  const origin = new Origin({ ...config, http } as OriginConfigInput, { runners: pool });
  const url = new URL(await origin.start());
  return {
    origin,
    port: Number(url.port),
    stop: async () => {
      await origin.destroy();
      await pool.close();
    },
  };
}

/** The origins the HTTP fuzz runs against: a format each (its fixtures are the bodies), with what guards it. */
export const FUZZED_ORIGINS: readonly {
  readonly target: string;
  readonly config: Omit<OriginConfigInput, 'http'> & { http?: OriginConfigInput['http'] };
}[] = [
  { target: 'json', config: { dataFormat: { format: 'json' } } },
  {
    target: 'xml',
    config: {
      dataFormat: { format: 'xml', xml: { delimiterElement: 'record' } },
      http: { maxRequestSizeMb: 1 },
    },
  },
  {
    target: 'delimited',
    config: {
      dataFormat: { format: 'delimited', delimited: { headerLine: 'withHeader' } },
      http: { applicationIds: ['fuzz-app'], applicationIdInUrl: true },
    },
  },
  { target: 'avro', config: { dataFormat: { format: 'avro' } } },
  {
    target: 'compression',
    config: { dataFormat: { format: 'delimited', compression: { format: 'archive' } } },
  },
];

/** One request as the fuzzer builds it. */
export interface FuzzRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: readonly (readonly [string, string])[];
  readonly body: {
    readonly seed: number;
    readonly mutations: readonly Mutation[];
    /** Applied in order: `gzip`, `snappy`, or `identity`; the matching Content-Encoding is sent unless `lie`. */
    readonly codings: readonly ('gzip' | 'deflate' | 'br' | 'snappy')[];
    /** Mutations of the encoded bytes. */
    readonly encodedMutations: readonly Mutation[];
    readonly random: Uint8Array | undefined;
  };
  /** How the body is framed: Content-Length, chunked (cut at `cuts`), or no framing header (no body). */
  readonly framing: 'length' | 'chunked' | 'none';
  readonly cuts: readonly number[];
  /** Send a Content-Encoding other than the codings applied (a random one, or none). */
  readonly encodingHeader: string | undefined;
}

const token = fc.stringMatching(/^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,16}$/);
const headerValue = fc.oneof(
  fc.stringMatching(/^[\x20-\x7e]{0,40}$/),
  fc.string({ unit: fc.constantFrom('a', ' ', ';', '=', ',', '"', '\u00e9', '\u00ff'), maxLength: 20 }),
);
const header: fc.Arbitrary<readonly [string, string]> = fc.oneof(
  fc.tuple(
    fc.constant('Content-Type'),
    fc.oneof(
      fc.constantFrom(
        'application/json',
        'text/plain',
        'application/xml',
        'text/csv; charset=UTF-8',
        'application/json; charset=utf-16',
        'text/plain; charset=bogus',
        'application/x-www-form-urlencoded',
        'multipart/form-data; boundary=x',
      ),
      headerValue,
    ),
  ),
  fc.tuple(fc.constant('X-ENGINE-APPLICATION-ID'), fc.oneof(fc.constant('fuzz-app'), headerValue)),
  fc.tuple(
    fc.constantFrom('Accept', 'Accept-Encoding', 'Accept-Charset', 'Expect', 'Connection'),
    headerValue,
  ),
  fc.tuple(fc.constantFrom('Transfer-Encoding', 'Content-Length', 'Host', 'Upgrade', 'Trailer'), headerValue),
  fc.tuple(
    fc.constantFrom('emptyPayloadRecord', 'avroSchema', 'filePathInsideArchive', '__proto__'),
    headerValue,
  ),
  fc.tuple(token, headerValue),
);
const mutations = (max: number): fc.Arbitrary<Mutation[]> =>
  fc.array(
    fc.oneof(
      fc.record({ kind: fc.constant('flip' as const), at: fc.nat(), bit: fc.integer({ min: 0, max: 7 }) }),
      fc.record({
        kind: fc.constant('insert' as const),
        at: fc.nat(),
        bytes: fc.uint8Array({ maxLength: 8 }),
      }),
      fc.record({
        kind: fc.constant('delete' as const),
        at: fc.nat(),
        length: fc.integer({ min: 1, max: 32 }),
      }),
      fc.record({ kind: fc.constant('truncate' as const), at: fc.nat() }),
      fc.record({
        kind: fc.constant('repeat' as const),
        at: fc.nat(),
        length: fc.integer({ min: 1, max: 16 }),
        times: fc.integer({ min: 1, max: 16 }),
      }),
    ),
    { maxLength: max },
  );

/** Fuzz requests whose bodies come from `target`'s seeds. */
export function fuzzRequests(target: FuzzTarget): fc.Arbitrary<FuzzRequest> {
  return fc.record({
    method: fc.oneof(
      { weight: 6, arbitrary: fc.constant('POST') },
      { weight: 3, arbitrary: fc.constantFrom('GET', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS') },
      { weight: 1, arbitrary: fc.stringMatching(/^[A-Z]{1,10}$/) },
    ),
    path: fc.oneof(
      { weight: 4, arbitrary: fc.constant('/') },
      {
        weight: 1,
        arbitrary: fc.constantFrom(
          '/?engineApplicationId=fuzz-app',
          '/%zz',
          '/a/../../etc/passwd',
          '/?a=%ff&a=1&a',
          '//x',
          '/\u00e9',
          `/${'a'.repeat(2000)}`,
        ),
      },
      { weight: 1, arbitrary: fc.stringMatching(/^\/[A-Za-z0-9%?&=._~/-]{0,60}$/) },
    ),
    headers: fc.array(header, { maxLength: 6 }),
    body: fc.record({
      seed: fc.nat({ max: target.seeds.length - 1 }),
      mutations: mutations(4),
      codings: fc.array(
        fc.constantFrom('gzip' as const, 'deflate' as const, 'br' as const, 'snappy' as const),
        {
          maxLength: 2,
        },
      ),
      encodedMutations: fc.oneof(
        { weight: 3, arbitrary: fc.constant([]) },
        { weight: 1, arbitrary: mutations(2) },
      ),
      random: fc.option(fc.uint8Array({ maxLength: 256 }), { freq: 5, nil: undefined }),
    }),
    framing: fc.constantFrom('length' as const, 'length' as const, 'chunked' as const, 'none' as const),
    cuts: fc.array(fc.nat(), { maxLength: 5 }),
    encodingHeader: fc.oneof(
      { weight: 6, arbitrary: fc.constant(undefined) },
      {
        weight: 1,
        arbitrary: fc.oneof(
          fc.constantFrom('deflate', 'br', 'zstd', 'identity', 'gzip, gzip, gzip, gzip', 'x-gzip'),
          headerValue,
        ),
      },
    ),
  });
}

/** The encoder of each coding the fuzzer applies (zlib's, and the snappy package's raw block). */
const ENCODERS = {
  gzip: (body: Buffer) => gzipSync(body),
  deflate: (body: Buffer) => deflateSync(body),
  br: (body: Buffer) => brotliCompressSync(body),
  snappy: (body: Buffer) => compressSync(body),
};

/** The request's bytes: request line, headers, framing and (encoded, mutated) body. */
export function requestBytes(target: FuzzTarget, r: FuzzRequest): Buffer {
  let body: Buffer;
  if (r.body.random) body = Buffer.from(r.body.random);
  else {
    body = target.seeds[r.body.seed]?.input ?? Buffer.alloc(0);
    for (const m of r.body.mutations) body = applyMutation(target, body, m);
  }
  for (const coding of r.body.codings) body = ENCODERS[coding](body);
  for (const m of r.body.encodedMutations) body = applyMutation(target, body, m);
  const lines = [`${r.method} ${r.path} HTTP/1.1`, 'Host: 127.0.0.1', 'Connection: close'];
  for (const [name, value] of r.headers) {
    // A random framing header may contradict the framing chosen (Node refuses that with 400, which is tried), but
    // it must not announce a body that never comes: the origin would rightly wait for it until its body timeout.
    const framing = name.toLowerCase();
    if ((framing === 'content-length' || framing === 'transfer-encoding') && r.framing !== 'chunked')
      continue;
    lines.push(`${name}: ${value}`);
  }
  const encoding = r.encodingHeader ?? r.body.codings.join(', ');
  if (encoding !== '') lines.push(`Content-Encoding: ${encoding}`);
  if (r.framing === 'none') return Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1');
  if (r.framing === 'length') {
    lines.push(`Content-Length: ${body.length}`);
    return Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1'), body]);
  }
  lines.push('Transfer-Encoding: chunked');
  const points = [...new Set(r.cuts.map((n) => n % (body.length + 1)))].sort((a, b) => a - b);
  const parts: Buffer[] = [Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1')];
  let from = 0;
  for (const point of [...points, body.length]) {
    if (point > from)
      parts.push(
        Buffer.from(`${(point - from).toString(16)}\r\n`),
        body.subarray(from, point),
        Buffer.from('\r\n'),
      );
    from = point;
  }
  parts.push(Buffer.from('0\r\n\r\n'));
  return Buffer.concat(parts);
}

/** What came back on the socket until the origin closed it. */
export interface RawAnswer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Buffer;
}

/** How long a request may go without an answer before it counts as hung: far beyond any answer on loopback. */
const HANG_MS = 20_000;

/**
 * Writes `bytes` to a fresh connection to 127.0.0.1:`port` and reads until the origin closes it; rejects when the
 * connection stays silent for {@link HANG_MS} (a hung client) or the answer is not one HTTP/1.1 response.
 */
export function exchange(port: number, bytes: Buffer): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const received: Buffer[] = [];
    socket.setTimeout(HANG_MS, () => {
      socket.destroy();
      reject(new Error(`no answer within ${HANG_MS} ms (${Buffer.concat(received).length} bytes received)`));
    });
    socket.on('data', (data: Buffer) => received.push(data));
    // The origin may answer and close before it read the whole body: what it sent still counts.
    socket.on('error', () => undefined);
    socket.on('close', () => {
      try {
        resolve(parseAnswer(Buffer.concat(received)));
      } catch (error) {
        reject(error as Error);
      }
    });
    socket.write(bytes);
  });
}

function parseAnswer(raw: Buffer): RawAnswer {
  const end = raw.indexOf('\r\n\r\n');
  if (end === -1)
    throw new Error(
      `the connection closed without a whole answer: ${JSON.stringify(raw.toString('latin1').slice(0, 200))}`,
    );
  const [statusLine = '', ...headerLines] = raw.subarray(0, end).toString('latin1').split('\r\n');
  const match = /^HTTP\/1\.1 (\d{3}) /.exec(statusLine);
  if (!match) throw new Error(`not an HTTP/1.1 status line: ${JSON.stringify(statusLine)}`);
  const headers: Record<string, string> = {};
  for (const line of headerLines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  let body = raw.subarray(end + 4);
  if (headers['transfer-encoding'] === 'chunked') body = unchunk(body);
  else if (headers['content-length'] !== undefined)
    body = body.subarray(0, Number(headers['content-length']));
  return { status: Number(match[1]), headers, body };
}

function unchunk(bytes: Buffer): Buffer {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const lineEnd = bytes.indexOf('\r\n', at);
    if (lineEnd === -1) throw new Error('a chunked answer ends inside a chunk size');
    const size = parseInt(bytes.subarray(at, lineEnd).toString('latin1'), 16);
    if (!Number.isFinite(size)) throw new Error('a chunked answer has a bad chunk size');
    if (size === 0) return Buffer.concat(parts);
    parts.push(bytes.subarray(lineEnd + 2, lineEnd + 2 + size));
    at = lineEnd + 2 + size + 2;
  }
}

/**
 * The answers Node's HTTP layer makes before the origin sees a request (decision 0001: not enveloped): malformed
 * requests, header overflow, timeouts, and 417 for an `Expect` other than `100-continue`.
 */
const HTTP_LAYER_ANSWERS = new Set([400, 405, 408, 413, 417, 431, 505]);

/**
 * The rule for every answer: a status below 500 (the pipeline answers error records 400, so a 5xx is the origin's
 * own failure), and, unless it is a bodiless answer of Node's HTTP layer or of a HEAD request, a JSON envelope
 * whose `httpStatusCode` is the status. Throws with the answer when broken.
 */
export function checkAnswer(method: string, answer: RawAnswer): void {
  const text = answer.body.toString('utf8');
  const fail = (why: string): never => {
    throw new Error(`${why}: ${answer.status} ${JSON.stringify(answer.headers)} ${text.slice(0, 400)}`);
  };
  if (answer.status < 200 || answer.status >= 500) fail('status out of range');
  if (method === 'HEAD' || answer.status === 204 || answer.status === 304) return;
  if (
    answer.body.length === 0 &&
    HTTP_LAYER_ANSWERS.has(answer.status) &&
    answer.headers.connection === 'close'
  )
    return;
  let envelope: unknown;
  try {
    envelope = JSON.parse(text);
  } catch {
    fail('the answer is not JSON');
  }
  const status = (envelope as { httpStatusCode?: unknown } | null)?.httpStatusCode;
  if (status !== answer.status) fail('the envelope does not carry the status');
}

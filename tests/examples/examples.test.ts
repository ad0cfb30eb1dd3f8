import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { parseStream, parseWhole } from 'rest-service-origin';
import { logfmtFormat } from '../../examples/custom-format/logfmt-format';
import { join } from 'node:path';

// The examples are part of the documentation: they must keep running as written.
const root = join(__dirname, '..', '..');
const runExample = (name: string): string =>
  execFileSync(process.execPath, ['--import', 'tsx', join(root, 'examples', name, 'main.ts')], {
    cwd: root,
    encoding: 'utf8',
    timeout: 60_000,
  });

it('examples/echo answers the records it was sent', () => {
  const out = runExample('echo');
  expect(out).toContain(
    '200 application/json; charset=utf-8 {"httpStatusCode":200,"data":[{"a":1},{"b":2}],"error":[],"errorMessage":null}',
  );
});

it('examples/custom-runner-pool answers 201 for a good order and 422 for a bad one', () => {
  const out = runExample('custom-runner-pool').trim().split('\n');
  expect(out[0]).toBe(
    '201 {"httpStatusCode":201,"data":[{"item":"tea","quantity":2,"orderNumber":1}],"error":[],"errorMessage":null}',
  );
  expect(out[1]).toBe(
    '422 {"httpStatusCode":422,"data":[],"error":[{"item":"cake","quantity":"many"}],"errorMessage":"ORDERS_01 - quantity must be a number"}',
  );
});

it('examples/gateway serves a public and a secure service on one gateway', () => {
  const out = runExample('gateway').trim().split('\n');
  expect(out[1]).toMatch(/^orders at http:\/\/127\.0\.0\.1:\d+\/rest\/v1\/gateway\/orders$/);
  expect(out[2]).toMatch(/^status at http:\/\/127\.0\.0\.1:\d+\/public-rest\/v1\/gateway\/status$/);
  expect(out.slice(3)).toEqual([
    '200 {"httpStatusCode":200,"data":[{"item":"tea","user":"anonymous","path":"/eu"}],"error":[],"errorMessage":null}',
    '401 {"httpStatusCode":401,"data":[],"error":[],"errorMessage":"ORIGIN_AUTH_CREDENTIALS_MISSING - The request carries no Basic credentials; send them in the Authorization header."}',
    '200 {"httpStatusCode":200,"data":[{"item":"tea","user":"ada","path":"/eu"}],"error":[],"errorMessage":null}',
  ]);
});

it('examples/metrics answers a scrape with the counts of what it was sent, and readiness', () => {
  const out = runExample('metrics').trim().split('\n');
  expect(out).toEqual([
    'request:end 200 answered',
    'request:end 403 rejected ORIGIN_APP_ID_MISSING',
    'readyz 200 ready',
    'rest_origin_requests_total{origin="orders",status="200",outcome="answered"} 1',
    'rest_origin_requests_total{origin="orders",status="403",outcome="rejected"} 1',
    'rest_origin_records_received_total{origin="orders"} 2',
  ]);
});

it('examples/opentelemetry makes one span per request with the ids of the traceparent the origin echoes', () => {
  const out = runExample('opentelemetry').trim().split('\n');
  const echoed = out
    .slice(0, 2)
    .map((line) => /^(\d+) traceparent: 00-([0-9a-f]{32})-([0-9a-f]{16})-01$/.exec(line));
  expect(echoed.map((match) => match?.[1])).toEqual(['200', '403']);
  expect(out.slice(2, 4)).toEqual(
    echoed.map(
      (match) => `span POST / ${match![2]}-${match![3]} parent 00f067aa0ba902b7 status ${match![1]}`,
    ),
  );
  expect(echoed[0]![2]).toBe('4bf92f3577b34da6a3ce929d0e0e4736');
  // From the diagnostics channels: the span has the id of the echoed traceparent too.
  const channels =
    /^channels: 00-4bf92f3577b34da6a3ce929d0e0e4736-([0-9a-f]{16})-01 span ([0-9a-f]{16}) answered$/.exec(
      out[4] ?? '',
    );
  expect(channels?.[1]).toBe(channels?.[2]);
  expect(out).toHaveLength(5);
});

it('examples/host-engine routes two pipelines on one port by application ID', () => {
  const out = runExample('host-engine').trim().split('\n');
  expect(out).toEqual([
    'two pipelines on one port',
    'orders-app -> 201 {"httpStatusCode":201,"data":[{"pipeline":"orders","total":5}],"error":[],"errorMessage":null}',
    'payments-app -> 200 {"httpStatusCode":200,"data":[{"pipeline":"payments","paid":["p-1","p-2"]}],"error":[],"errorMessage":null}',
    '  [orders] refused 403 ORIGIN_APP_ID_INVALID',
    'someone-else -> 403 {"httpStatusCode":403,"data":[],"error":[],"errorMessage":"ORIGIN_APP_ID_INVALID - The application ID of the request is not in the configured list of application IDs."}',
    '  [orders] refused 403 ORIGIN_APP_ID_MISSING',
    '(no id) -> 403 {"httpStatusCode":403,"data":[],"error":[],"errorMessage":"ORIGIN_APP_ID_MISSING - The request carries no application ID; send header X-ENGINE-APPLICATION-ID."}',
  ]);
});

it('examples/piscina-runner-pool hashes each batch on a worker thread', () => {
  const digest = (text: string): string => {
    let hash = Buffer.from(text, 'utf8');
    for (let round = 0; round < 20_000; round++) hash = createHash('sha256').update(hash).digest();
    return hash.toString('hex');
  };
  const out = runExample('piscina-runner-pool').trim().split('\n');
  const answers = out.slice(0, 2).map((line) => {
    const [status, ...body] = line.split(' ');
    return { status, body: JSON.parse(body.join(' ')) as { data: unknown[] } };
  });
  expect(answers).toEqual([
    {
      status: '200',
      body: expect.objectContaining({ data: [{ id: 'a', sha256: digest('alpha'), onWorkerThread: true }] }),
    },
    {
      status: '200',
      body: expect.objectContaining({
        data: [
          { id: 'b', sha256: digest('beta'), onWorkerThread: true },
          { id: 'c', sha256: digest('gamma'), onWorkerThread: true },
        ],
      }),
    },
  ]);
  expect(out[2]).toBe('threads used: 2');
});

it('examples/custom-format registers a logfmt format and answers its records and failures', () => {
  const out = runExample('custom-format').trim().split('\n');
  expect(out).toEqual([
    'parsed alone: [{"a":"1","b":"x y"}]',
    '207 {"httpStatusCode":207,"data":[{"level":"info","msg":"disk full","retries":3,"urgent":true},{"level":"debug","msg":"ok"}],"error":["level=warn msg=\\"unterminated"],"errorMessage":"ORIGIN_FORMAT_RECORD_MALFORMED - The logfmt record at byte 44 is malformed: unexpected \'\\"\' at character 15."}',
  ]);
});

it('the example logfmt format gives the same records and failures for any chunking', async () => {
  const input = Buffer.from('a=1 b="x é y"\r\n\nbad "x\nlong=' + 'z'.repeat(300) + '\nlast=ünï\n', 'utf8');
  const whole = parseWhole(logfmtFormat, { maxLineBytes: 100 }, input);
  expect(whole.records.map((record) => record.value)).toEqual([{ a: 1, b: 'x é y' }, { last: 'ünï' }]);
  expect(whole.failures.map((failure) => [failure.code, failure.byteOffset])).toEqual([
    ['ORIGIN_FORMAT_RECORD_MALFORMED', 17],
    ['ORIGIN_FORMAT_RECORD_TOO_LONG', 24],
  ]);
  for (const size of [1, 2, 3, 7, 64]) {
    const chunks: Buffer[] = [];
    for (let at = 0; at < input.length; at += size) chunks.push(input.subarray(at, at + size));
    expect(await parseStream(logfmtFormat, { maxLineBytes: 100 }, chunks)).toEqual(whole);
  }
});

it('examples/behind-a-proxy takes the client from X-Forwarded-For only from a trusted proxy', () => {
  expect(runExample('behind-a-proxy').trim().split('\n')).toEqual([
    'via the proxy: 198.51.100.7',
    'forged: 127.0.0.2',
  ]);
});

it('examples/idempotency processes an order once, replays the resend, refuses a reused or missing key', () => {
  const out = runExample('idempotency').trim().split('\n');
  expect(out.map((line) => line.split(' ').slice(0, 2).join(' '))).toEqual([
    '201 replayed=false',
    '201 replayed=true',
    '422 replayed=false',
    '400 replayed=false',
    'orders processed:',
  ]);
  expect(out[1]).toContain('"orderNumber":1');
  expect(out[4]).toBe('orders processed: 1');
});

import diagnosticsChannel from 'node:diagnostics_channel';
import fc from 'fast-check';
import { DIAGNOSTICS_CHANNELS, echoPipeline } from 'rest-service-origin';
import { createTestOrigin, type TestOrigin } from 'rest-service-origin/testing';
import { parseTraceparent, parseTracestate, traceContextOf } from '../../src/origin/trace-context';

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const PARENT_ID = '00f067aa0ba902b7';
const VALID = `00-${TRACE_ID}-${PARENT_ID}-01`;
const SPAN = /^00-4bf92f3577b34da6a3ce929d0e0e4736-([0-9a-f]{16})-01$/;

describe('traceparent parsing (W3C Trace Context)', () => {
  it('reads a valid version-00 traceparent', () => {
    expect(parseTraceparent(VALID)).toEqual({ traceId: TRACE_ID, parentId: PARENT_ID, traceFlags: '01' });
  });

  it.each([
    ['upper-case hex', VALID.toUpperCase()],
    ['version ff', `ff-${TRACE_ID}-${PARENT_ID}-01`],
    ['an all-zero trace id', `00-${'0'.repeat(32)}-${PARENT_ID}-01`],
    ['an all-zero parent id', `00-${TRACE_ID}-${'0'.repeat(16)}-01`],
    ['a short trace id', `00-${TRACE_ID.slice(1)}-${PARENT_ID}-01`],
    ['a long parent id', `00-${TRACE_ID}-${PARENT_ID}0-01`],
    ['version 00 with more fields', `${VALID}-extra`],
    ['a missing field', `00-${TRACE_ID}-${PARENT_ID}`],
    ['spaces around it', ` ${VALID}`],
    ['a trailing space', `${VALID} `],
    ['two joined headers (a repeated traceparent)', `${VALID}, ${VALID}`],
    ['non-hex digits', `00-${TRACE_ID.slice(0, 31)}g-${PARENT_ID}-01`],
    ['other separators', `00_${TRACE_ID}_${PARENT_ID}_01`],
    ['an empty value', ''],
  ])('ignores a traceparent with %s', (_case, value) => {
    expect(parseTraceparent(value)).toBeUndefined();
  });

  it('reads the first four fields of a later version, which may carry more', () => {
    expect(parseTraceparent(`cc-${TRACE_ID}-${PARENT_ID}-09-what-the-future-holds`)).toEqual({
      traceId: TRACE_ID,
      parentId: PARENT_ID,
      traceFlags: '09',
    });
    expect(parseTraceparent(`cc-${TRACE_ID}-${PARENT_ID}-09x`)).toBeUndefined();
  });

  it('keeps a valid tracestate, trimmed, and drops an invalid one whole', () => {
    expect(parseTracestate('congo=t61rcWkgMzE, rojo=00f067aa0ba902b7')).toBe(
      'congo=t61rcWkgMzE,rojo=00f067aa0ba902b7',
    );
    expect(parseTracestate('tenant@vendor=x,,  a=b ')).toBe('tenant@vendor=x,a=b');
    expect(parseTracestate(['a=1', 'b=2'])).toBe('a=1,b=2');
    for (const invalid of ['Upper=1', 'a=1,a=2', 'a=', 'a=x,y', '=x', 'a=b=c', 'a=1\t2', '']) {
      expect(parseTracestate(invalid)).toBeUndefined();
    }
    const members = Array.from({ length: 33 }, (_, i) => `k${i}=v`).join(',');
    expect(parseTracestate(members)).toBeUndefined();
    expect(parseTracestate(members.split(',').slice(0, 32).join(','))).toBeDefined();
  });

  it('continues a valid trace with a new span, starts one only in start mode, and reads nothing when off', () => {
    const continued = traceContextOf({ traceparent: VALID, tracestate: 'a=1' }, 'continue')!;
    expect(continued).toMatchObject({
      traceId: TRACE_ID,
      parentId: PARENT_ID,
      traceFlags: '01',
      traceState: 'a=1',
    });
    expect(continued.spanId).toMatch(/^[0-9a-f]{16}$/);
    expect(continued.spanId).not.toBe(PARENT_ID);
    expect(continued.traceparent).toBe(`00-${TRACE_ID}-${continued.spanId}-01`);
    expect(traceContextOf({}, 'continue')).toBeUndefined();
    expect(traceContextOf({ traceparent: 'junk', tracestate: 'a=1' }, 'continue')).toBeUndefined();
    const started = traceContextOf({ traceparent: 'junk', tracestate: 'a=1' }, 'start')!;
    expect(started.parentId).toBeUndefined();
    expect(started.traceState).toBeUndefined();
    expect(started.traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-00$/);
    expect(started.traceId).not.toBe('0'.repeat(32));
    expect(traceContextOf({ traceparent: VALID }, 'off')).toBeUndefined();
  });

  it('accepts exactly the well-formed values among any strings, and never throws', () => {
    const hex = (length: number) =>
      fc
        .array(fc.constantFrom(...'0123456789abcdef'), { minLength: length, maxLength: length })
        .map((d) => d.join(''));
    fc.assert(
      fc.property(hex(2), hex(32), hex(16), hex(2), (version, traceId, parentId, flags) => {
        const parsed = parseTraceparent(`${version}-${traceId}-${parentId}-${flags}`);
        const valid = version !== 'ff' && !/^0+$/.test(traceId) && !/^0+$/.test(parentId);
        expect(parsed).toEqual(valid ? { traceId, parentId, traceFlags: flags } : undefined);
      }),
    );
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 80 }), (value) => {
        const parsed = parseTraceparent(value);
        if (parsed !== undefined)
          expect(value).toMatch(/^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}(-.*)?$/s);
        const state = parseTracestate(value);
        if (state !== undefined) expect(state.split(',').length).toBeLessThanOrEqual(32);
      }),
    );
  });

  it('gives every request its own span id', () => {
    const spans = new Set<string>();
    for (let i = 0; i < 1000; i++) spans.add(traceContextOf({ traceparent: VALID }, 'continue')!.spanId);
    expect(spans.size).toBe(1000);
  });
});

describe('trace context on the request path', () => {
  let test: TestOrigin;
  afterEach(() => test.close());

  it('keeps the trace on the batch and the records, and echoes the origin span on the answer', async () => {
    test = createTestOrigin({ dataFormat: { format: 'json' } }, echoPipeline);
    const answer = await test.inject({
      headers: { traceparent: VALID, tracestate: 'congo=t61rcWkgMzE' },
      body: '{"a":1} {"a":2}',
    });
    expect(answer.status).toBe(200);
    const [, spanId] = SPAN.exec(String(answer.headers['traceparent']))!;
    const request = answer.batches[0]!.request!;
    expect(request.traceContext).toEqual({
      traceId: TRACE_ID,
      parentId: PARENT_ID,
      spanId,
      traceFlags: '01',
      traceState: 'congo=t61rcWkgMzE',
      traceparent: answer.headers['traceparent'],
    });
    for (const record of answer.batches[0]!.records) {
      expect(record.header.getAttribute('traceparent')).toBe(answer.headers['traceparent']);
      expect(record.header.getAttribute('tracestate')).toBe('congo=t61rcWkgMzE');
    }
  });

  it("gives the request event the trace context, the origin's span included", async () => {
    test = createTestOrigin({ dataFormat: { format: 'json' } }, echoPipeline);
    const events: unknown[] = [];
    test.origin.on('request', (info) => events.push(info.traceContext));
    const answer = await test.inject({ headers: { traceparent: VALID }, body: '{}' });
    await test.inject({ body: '{}' });
    expect(events).toEqual([answer.batches[0]!.request!.traceContext, undefined]);
  });

  it('publishes the trace context with request:start on the diagnostics channel', async () => {
    test = createTestOrigin({ dataFormat: { format: 'json' } }, echoPipeline);
    const messages: unknown[] = [];
    const onStart = (message: unknown): void => {
      messages.push((message as { traceContext: unknown }).traceContext);
    };
    diagnosticsChannel.subscribe(DIAGNOSTICS_CHANNELS.requestStart, onStart);
    try {
      const answer = await test.inject({ headers: { traceparent: VALID }, body: '{}' });
      expect(messages).toEqual([answer.batches[0]!.request!.traceContext]);
    } finally {
      diagnosticsChannel.unsubscribe(DIAGNOSTICS_CHANNELS.requestStart, onStart);
    }
  });

  it('echoes the span on rejections too', async () => {
    test = createTestOrigin(
      { dataFormat: { format: 'json' }, http: { applicationIds: ['x'] } },
      echoPipeline,
    );
    const answer = await test.inject({ headers: { traceparent: VALID }, body: '{}' });
    expect(answer.status).toBe(403);
    expect(answer.headers['traceparent']).toMatch(SPAN);
  });

  it('ignores an invalid traceparent (and its tracestate): no error, no attribute, nothing echoed', async () => {
    test = createTestOrigin({ dataFormat: { format: 'json' } }, echoPipeline);
    const answer = await test.inject({
      headers: { traceparent: `00-${'0'.repeat(32)}-${PARENT_ID}-01`, tracestate: 'a=1' },
      body: '{}',
    });
    expect(answer.status).toBe(200);
    expect(answer.headers['traceparent']).toBeUndefined();
    const request = answer.batches[0]!.request!;
    expect(request.traceContext).toBeUndefined();
    const header = answer.batches[0]!.records[0]!.header;
    expect(header.getAttribute('traceparent')).toBeUndefined();
    expect(header.getAttribute('tracestate')).toBeUndefined();
  });

  it('starts no trace for a request without one by default, and a new unsampled one in start mode', async () => {
    test = createTestOrigin({ dataFormat: { format: 'json' } }, echoPipeline);
    const plain = await test.inject({ body: '{}' });
    expect(plain.headers['traceparent']).toBeUndefined();
    expect(plain.batches[0]!.request!.traceContext).toBeUndefined();
    await test.close();
    test = createTestOrigin(
      { dataFormat: { format: 'json' }, http: { traceContext: 'start' } },
      echoPipeline,
    );
    const started = await test.inject({ body: '{}' });
    expect(started.headers['traceparent']).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-00$/);
    expect(started.batches[0]!.records[0]!.header.getAttribute('traceparent')).toBe(
      started.headers['traceparent'],
    );
  });

  it('leaves the trace headers as ordinary attributes when http.traceContext is off', async () => {
    test = createTestOrigin({ dataFormat: { format: 'json' }, http: { traceContext: 'off' } }, echoPipeline);
    const answer = await test.inject({
      headers: { traceparent: 'anything', tracestate: 'at all' },
      body: '{}',
    });
    expect(answer.headers['traceparent']).toBeUndefined();
    const header = answer.batches[0]!.records[0]!.header;
    expect(header.getAttribute('traceparent')).toBe('anything');
    expect(header.getAttribute('tracestate')).toBe('at all');
  });
});

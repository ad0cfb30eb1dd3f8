import diagnosticsChannel from 'node:diagnostics_channel';
import { DIAGNOSTICS_CHANNELS } from 'rest-service-origin';
import { send, startOrigin, type TestOrigin } from './origin-helpers';

type Seen = { channel: string; message: Record<string, unknown> };

describe('diagnostics channels', () => {
  let running: TestOrigin | undefined;
  const subscriptions: [string, (message: unknown) => void][] = [];
  afterEach(async () => {
    for (const [name, listener] of subscriptions.splice(0)) diagnosticsChannel.unsubscribe(name, listener);
    await running?.stop();
    running = undefined;
  });

  function subscribeAll(): Seen[] {
    const seen: Seen[] = [];
    for (const name of Object.values(DIAGNOSTICS_CHANNELS)) {
      const listener = (message: unknown): void => {
        seen.push({ channel: name, message: message as Record<string, unknown> });
      };
      diagnosticsChannel.subscribe(name, listener);
      subscriptions.push([name, listener]);
    }
    return seen;
  }

  it('publishes request start and end, batch, rejection and record failure, with the origin name', async () => {
    running = await startOrigin({
      general: { name: 'watched', onRecordError: 'sendToError' },
      http: { applicationIds: ['k'] },
    });
    const seen = subscribeAll();
    const ok = await send(running.url, {
      body: '{"a":1}\n{"b":}',
      headers: { 'X-ENGINE-APPLICATION-ID': 'k' },
    });
    expect(ok.status).toBe(207);
    const refused = await send(running.url, { body: '{}' });
    expect(refused.status).toBe(403);

    const of = (channel: string) => seen.filter((s) => s.channel === channel).map((s) => s.message);
    const [firstStart, secondStart] = of(DIAGNOSTICS_CHANNELS.requestStart);
    expect(firstStart).toEqual({
      origin: 'watched',
      requestId: expect.any(String),
      method: 'POST',
      path: '/',
      remoteHost: '127.0.0.1',
    });
    const okId = firstStart!['requestId'];
    const refusedId = secondStart!['requestId'];
    expect(of(DIAGNOSTICS_CHANNELS.recordFailure)).toEqual([
      {
        origin: 'watched',
        requestId: okId,
        code: 'ORIGIN_JSON_MALFORMED',
        message: expect.any(String),
        recordIndex: 1,
        byteOffset: 8,
        action: 'sendToError',
      },
    ]);
    expect(of(DIAGNOSTICS_CHANNELS.batch)).toEqual([
      {
        origin: 'watched',
        requestId: okId,
        records: 1,
        errorRecords: 1,
        status: 207,
        durationMs: expect.any(Number),
      },
    ]);
    expect(of(DIAGNOSTICS_CHANNELS.rejection)).toEqual([
      {
        origin: 'watched',
        requestId: refusedId,
        code: 'ORIGIN_APP_ID_MISSING',
        status: 403,
        message: expect.any(String),
      },
    ]);
    expect(of(DIAGNOSTICS_CHANNELS.requestEnd)).toEqual([
      {
        origin: 'watched',
        requestId: okId,
        status: 207,
        outcome: 'answered',
        durationMs: expect.any(Number),
      },
      {
        origin: 'watched',
        requestId: refusedId,
        status: 403,
        outcome: 'rejected',
        durationMs: expect.any(Number),
        code: 'ORIGIN_APP_ID_MISSING',
      },
    ]);
    // In order: start before end for each request.
    const order = seen.map(
      (s) => `${s.channel.split(':').slice(1).join(':')} ${String(s.message['requestId'])}`,
    );
    expect(order.indexOf(`request:start ${String(okId)}`)).toBeLessThan(
      order.indexOf(`request:end ${String(okId)}`),
    );
  });

  it('publishes nothing once unsubscribed, and the origin events still work without channel subscribers', async () => {
    running = await startOrigin();
    const seen = subscribeAll();
    for (const [name, listener] of subscriptions.splice(0)) diagnosticsChannel.unsubscribe(name, listener);
    const events: string[] = [];
    running.origin.on('batch', ({ status }) => events.push(`batch ${status}`));
    expect((await send(running.url, { body: '{}' })).status).toBe(200);
    expect(seen).toEqual([]);
    expect(events).toEqual(['batch 200']);
  });
});

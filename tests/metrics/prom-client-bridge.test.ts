import { Registry, type OpenMetricsContentType } from 'prom-client';
import { registerPromClientMetrics } from 'rest-service-origin';
import { parseExposition, seriesKey } from '../support/prometheus-exposition';
import { send, startOrigin, type TestOrigin } from '../origin/origin-helpers';

describe('registerPromClientMetrics', () => {
  let running: TestOrigin | undefined;
  afterEach(async () => {
    await running?.stop();
    running = undefined;
  });

  it("serves the origin's metrics from a real prom-client Registry, beside the host's own", async () => {
    running = await startOrigin({ general: { name: 'bridged' } });
    const registry = new Registry();
    registry.setDefaultLabels({ service: 'host' });
    const { Counter } = await import('prom-client');
    new Counter({ name: 'host_jobs_total', help: 'The host’s own counter.', registers: [registry] }).inc(3);
    const unregister = registerPromClientMetrics(registry, running.origin);

    expect((await send(running.url, { body: '{"a":1}{"a":2}' })).status).toBe(200);
    expect((await send(running.url, { body: '{}', method: 'TRACE' })).status).toBe(405);

    const text = await registry.metrics();
    const scrape = parseExposition(text);
    const labels = { origin: 'bridged', service: 'host' };
    expect(scrape.series.get(seriesKey('host_jobs_total', { service: 'host' }))).toBe(3);
    expect(
      scrape.series.get(
        seriesKey('rest_origin_requests_total', { ...labels, status: '200', outcome: 'answered' }),
      ),
    ).toBe(1);
    expect(
      scrape.series.get(
        seriesKey('rest_origin_rejections_total', { ...labels, code: 'ORIGIN_HTTP_METHOD_NOT_ALLOWED' }),
      ),
    ).toBe(1);
    expect(scrape.series.get(seriesKey('rest_origin_records_received_total', labels))).toBe(2);
    expect(scrape.series.get(seriesKey('rest_origin_request_duration_seconds_count', labels))).toBe(2);
    expect(
      scrape.series.get(seriesKey('rest_origin_request_duration_seconds_bucket', { ...labels, le: '+Inf' })),
    ).toBe(2);
    expect(scrape.families.get('rest_origin_response_size_bytes')?.type).toBe('histogram');

    // A later scrape reads the metrics again.
    await send(running.url, { body: '{}' });
    const again = parseExposition(await registry.metrics());
    expect(
      again.series.get(
        seriesKey('rest_origin_requests_total', { ...labels, status: '200', outcome: 'answered' }),
      ),
    ).toBe(2);

    unregister();
    expect(await registry.metrics()).not.toContain('rest_origin_');
  });

  it('renders OpenMetrics from a registry of that content type', async () => {
    running = await startOrigin({ general: { name: 'om' } });
    const registry = new Registry<OpenMetricsContentType>();
    registry.setContentType(Registry.OPENMETRICS_CONTENT_TYPE);
    registerPromClientMetrics(registry, () => running!.origin.metrics({ format: 'snapshot' }));
    await send(running.url, { body: '{}' });
    const scrape = parseExposition(await registry.metrics(), true);
    expect(scrape.families.get('rest_origin_requests')?.type).toBe('counter');
    expect(
      scrape.series.get(
        seriesKey('rest_origin_requests_total', { origin: 'om', status: '200', outcome: 'answered' }),
      ),
    ).toBe(1);
  });

  it('refuses a second registration of the same names (prom-client’s own check)', async () => {
    running = await startOrigin();
    const registry = new Registry();
    registerPromClientMetrics(registry, running.origin);
    expect(() => registerPromClientMetrics(registry, running!.origin)).toThrow(/already been registered/);
  });
});

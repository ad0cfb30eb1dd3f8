import { request } from 'undici';
import { SendResponse, type DataRecord, type OriginConfigInput } from 'rest-service-origin';
import { startOrigin } from '../origin/origin-helpers';

// Credentials in request headers stay out of records, events, metrics and process warnings unless an option copies
// them: Authorization and Proxy-Authorization (copyAuthorizationHeaders), the application ID header and query
// parameter (copyApplicationId), Cookie (copyCookieHeaders). (The pipeline still learns which application ID
// admitted the request from `batch.request.applicationId`, by design: it is not copied into any record.)

const SECRETS = {
  authorization: 'Bearer auth-secret-4d1f',
  proxy: 'Basic cHJveHktc2VjcmV0LTc3',
  applicationId: 'app-id-secret-90c2',
  cookie: 'session=cookie-secret-e5a8',
};

const stops: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const stop of stops.splice(0).reverse()) await stop();
});

/**
 * Starts an origin that lists the secret application ID, sends one request with every credential, and returns
 * everything it saw (records, events, metrics, warnings, console output, the answer).
 */
async function run(
  http: OriginConfigInput['http'] = {},
  path = '/orders?x=1',
): Promise<{ seen: string; record: DataRecord }> {
  const seen: string[] = [];
  const keep = (value: unknown): void => void seen.push(JSON.stringify(value));
  const warn = jest.spyOn(process, 'emitWarning').mockImplementation((...args: unknown[]) => keep(args));
  const consoleSpies = (['log', 'info', 'warn', 'error', 'debug'] as const).map((level) =>
    jest.spyOn(console, level).mockImplementation((...args: unknown[]) => keep(args)),
  );
  stops.push(async () => {
    warn.mockRestore();
    for (const spy of consoleSpies) spy.mockRestore();
  });
  let record: DataRecord | undefined;
  const started = await startOrigin(
    { http: { applicationIds: [SECRETS.applicationId], applicationIdInUrl: true, ...http } },
    (batch) => {
      record = batch.records[0];
      for (const each of batch.records) keep([each.header.attributes(), each.value]);
      new SendResponse().write(batch);
    },
  );
  stops.push(started.stop);
  for (const event of ['request', 'batch', 'rejection'] as const) started.origin.on(event, keep);
  keep(started.origin.describe());
  const answer = await request(new URL(path, started.url), {
    method: 'POST',
    body: '{"a":1}',
    headers: {
      authorization: SECRETS.authorization,
      'proxy-authorization': SECRETS.proxy,
      'X-Engine-Application-Id': SECRETS.applicationId,
      cookie: SECRETS.cookie,
    },
  });
  keep(await answer.body.text());
  expect(answer.statusCode).toBe(200);
  keep(started.origin.metrics());
  return { seen: seen.join('\n'), record: record! };
}

it('keeps every credential header out of records, events, metrics and warnings by default', async () => {
  const { seen, record } = await run();
  for (const secret of Object.values(SECRETS)) expect(seen).not.toContain(secret.split(' ').pop());
  expect(record.header.attributes()).toMatchObject({ method: 'POST', path: '/orders', queryString: 'x=1' });
});

it('keeps the application ID sent in the URL out of the queryString attribute', async () => {
  const { record } = await run({}, `/orders?a=1&engineApplicationId=${SECRETS.applicationId}&b=2`);
  expect(record.header.getAttribute('queryString')).toBe('a=1&b=2');
});

it('copies each credential header when its option asks for it', async () => {
  const { record } = await run(
    { copyAuthorizationHeaders: true, copyApplicationId: true, copyCookieHeaders: true },
    `/orders?engineApplicationId=${SECRETS.applicationId}`,
  );
  expect(record.header.attributes()).toMatchObject({
    queryString: `engineApplicationId=${SECRETS.applicationId}`,
    authorization: SECRETS.authorization,
    'proxy-authorization': SECRETS.proxy,
    'X-Engine-Application-Id': SECRETS.applicationId,
    cookie: SECRETS.cookie,
  });
});

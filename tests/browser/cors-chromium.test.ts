import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';
import { InProcessRunnerPool, Origin, echoPipeline } from 'rest-service-origin';

/**
 * CORS as a real browser sees it (issue 17): headless Chromium (Debian `chromium`) loads a page from one loopback
 * origin and fetches the REST origin on another port with a JSON body and an application ID header, so the
 * browser sends a preflight first. The page's origin is allowed; a second page server's is not, and its fetch
 * must be blocked by the browser itself. If Chromium cannot start, the test fails.
 */

const CHROMIUM = '/usr/bin/chromium';
const TRACEPARENT = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';

/** A tiny page server: one empty HTML page, so that the page's origin is `http://127.0.0.1:<port>`. */
function startPageServer(): Promise<{ server: Server; origin: string }> {
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
    res.end('<!doctype html><title>page</title><p>page</p>');
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      resolve({ server, origin: `http://127.0.0.1:${port}` });
    });
  });
}

function close(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}

interface FetchResult {
  ok: boolean;
  status?: number;
  body?: unknown;
  traceparent?: string | null;
  error?: string;
}

describe('CORS in headless Chromium', () => {
  let allowedPage: { server: Server; origin: string };
  let otherPage: { server: Server; origin: string };
  let origin: Origin;
  let runners: InProcessRunnerPool;
  let url: string;
  let context: BrowserContext;
  let userDataDir: string;
  const methods: string[] = [];
  const rejections: string[] = [];
  const preflightsAnswered = (): number => origin.metrics().requests.byStatus['204'] ?? 0;

  beforeAll(async () => {
    allowedPage = await startPageServer();
    otherPage = await startPageServer();
    runners = new InProcessRunnerPool(10, echoPipeline);
    origin = new Origin(
      {
        dataFormat: { format: 'json' },
        http: {
          host: '127.0.0.1',
          port: 0,
          applicationIds: ['shop'],
          cors: { enabled: true, allowedOrigins: [allowedPage.origin], exposedHeaders: ['traceparent'] },
        },
      },
      { runners },
    );
    // Preflights raise no `request` event: what reaches the request path proper is recorded here.
    origin.on('request', ({ method }) => methods.push(method));
    origin.on('rejection', ({ code }) => rejections.push(code));
    url = `http://127.0.0.1:${new URL(await origin.start()).port}/orders`;
    userDataDir = mkdtempSync(join(tmpdir(), 'rest-origin-chromium-'));
    // A persistent context is how Playwright passes a user data directory of our own (a fresh one per run).
    context = await chromium.launchPersistentContext(userDataDir, {
      executablePath: CHROMIUM,
      headless: true,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
      timeout: 60_000,
    });
  }, 90_000);

  afterAll(async () => {
    await context?.close();
    if (userDataDir) rmSync(userDataDir, { recursive: true, force: true });
    await origin?.close();
    await runners?.close();
    if (allowedPage) await close(allowedPage.server);
    if (otherPage) await close(otherPage.server);
  });

  /** Loads `pageOrigin`'s page and runs a cross-origin fetch of the REST origin in it. */
  async function fetchFrom(pageOrigin: string, applicationId: string): Promise<FetchResult> {
    const page = await context.newPage();
    try {
      await page.goto(`${pageOrigin}/`);
      return await page.evaluate(
        async ({ target, id, traceparent }) => {
          try {
            const response = await fetch(target, {
              method: 'POST',
              headers: { 'Content-Type': 'application/json', 'X-ENGINE-APPLICATION-ID': id, traceparent },
              body: JSON.stringify({ item: 'book', quantity: 2 }),
            });
            return {
              ok: true,
              status: response.status,
              body: await response.json(),
              traceparent: response.headers.get('traceparent'),
            };
          } catch (error) {
            return { ok: false, error: String(error) };
          }
        },
        { target: url, id: applicationId, traceparent: TRACEPARENT },
      );
    } finally {
      await page.close();
    }
  }

  it('lets a page of an allowed origin call the origin after a preflight, and read the answer', async () => {
    methods.length = 0;
    const preflights = preflightsAnswered();
    const result = await fetchFrom(allowedPage.origin, 'shop');
    expect(result).toMatchObject({
      ok: true,
      status: 200,
      body: { httpStatusCode: 200, data: [{ item: 'book', quantity: 2 }], error: [], errorMessage: null },
    });
    // The exposed header: the origin's own span of the page's trace.
    expect(result.traceparent).toMatch(/^00-4bf92f3577b34da6a3ce929d0e0e4736-[0-9a-f]{16}-01$/);
    expect(preflightsAnswered()).toBe(preflights + 1);
    expect(methods).toEqual(['POST']);
  });

  it("lets an allowed page read a rejection's status and envelope (CORS headers on rejections)", async () => {
    const result = await fetchFrom(allowedPage.origin, 'not-an-id');
    expect(result.ok).toBe(true);
    expect(result.status).toBe(403);
    expect(result.body).toMatchObject({
      httpStatusCode: 403,
      errorMessage: expect.stringContaining('ORIGIN_APP_ID_INVALID'),
    });
  });

  it('has the browser block a page of another origin: its preflight is refused and the request never sent', async () => {
    methods.length = 0;
    rejections.length = 0;
    const before = origin.metrics().requests.byStatus['200'] ?? 0;
    const result = await fetchFrom(otherPage.origin, 'shop');
    expect(result.ok).toBe(false);
    expect(result.error).toMatch(/TypeError: Failed to fetch/);
    expect(rejections).toEqual(['ORIGIN_CORS_PREFLIGHT_REFUSED']);
    expect(methods).toEqual([]);
    expect(origin.metrics().requests.byStatus['200'] ?? 0).toBe(before);
  });
});

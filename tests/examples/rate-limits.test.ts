import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

// The example is part of docs/rate-limits.md: it must keep running as written.
it('examples/rate-limits: the client waits Retry-After on 429 and its resent order is answered', () => {
  const root = join(__dirname, '..', '..');
  const out = execFileSync(
    process.execPath,
    ['--import', 'tsx', join(root, 'examples', 'rate-limits', 'main.ts')],
    { cwd: root, encoding: 'utf8', timeout: 60_000 },
  )
    .trim()
    .split('\n');
  expect(out).toEqual([
    'shop-eu: order 1 200 {"httpStatusCode":200,"data":[{"order":1}],"error":[],"errorMessage":null}',
    'shop-eu: order 2 200 {"httpStatusCode":200,"data":[{"order":2}],"error":[],"errorMessage":null}',
    expect.stringMatching(/^shop-eu: 429, RateLimit: "applicationId";r=0;t=([12]), retrying in \1 s$/),
    'shop-eu: order 3 200 {"httpStatusCode":200,"data":[{"order":3}],"error":[],"errorMessage":null}',
    'shop-us: order 1 200, RateLimit-Policy: "applicationId";q=2;w=2',
    'refused by key: {"applicationId":1,"user":0,"clientAddress":0}',
  ]);
});

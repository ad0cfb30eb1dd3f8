import { execFileSync } from 'node:child_process';
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

it('examples/compressed sends a gzip, br body and gets a br answer; an unknown coding is refused', () => {
  const out = runExample('compressed').trim().split('\n');
  expect(out).toEqual([
    expect.stringMatching(/^sent 2589 bytes as \d+ \(gzip, br\)$/) as unknown,
    expect.stringMatching(/^200 br Accept-Encoding 100 records in \d+ bytes$/) as unknown,
    '415 gzip, x-gzip, deflate, br, zstd, snappy',
  ]);
});

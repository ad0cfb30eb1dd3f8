import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import type { RenderedResponse } from '../../src/response/json-response';
import { chooseResponseCoding, compressResponse } from '../../src/response/response-compression';

describe('chooseResponseCoding', () => {
  it('chooses nothing when Accept-Encoding is absent, empty or names neither br nor gzip', () => {
    for (const header of [undefined, '', '  ', 'deflate', 'zstd, compress', 'identity']) {
      expect(chooseResponseCoding(header)).toEqual({ coding: undefined, identityRefused: false });
    }
  });

  it('takes the coding the client rates highest, br on a tie, names in any case, x-gzip as gzip', () => {
    expect(chooseResponseCoding('gzip').coding).toBe('gzip');
    expect(chooseResponseCoding('X-GZIP').coding).toBe('gzip');
    expect(chooseResponseCoding('gzip, deflate, br').coding).toBe('br');
    expect(chooseResponseCoding('gzip;q=1, br;q=0.9').coding).toBe('gzip');
    expect(chooseResponseCoding('br;q=0.5, gzip;q=0.8').coding).toBe('gzip');
    expect(chooseResponseCoding('br ; q=0.500 , GZIP ; Q=0.499').coding).toBe('br');
    expect(chooseResponseCoding('deflate, gzip, br, zstd').coding).toBe('br');
  });

  it('treats q=0 as not acceptable and * as every coding not named', () => {
    expect(chooseResponseCoding('br;q=0, gzip').coding).toBe('gzip');
    expect(chooseResponseCoding('br;q=0, gzip;q=0').coding).toBeUndefined();
    expect(chooseResponseCoding('*').coding).toBe('br');
    expect(chooseResponseCoding('*;q=0.5, gzip').coding).toBe('gzip');
    expect(chooseResponseCoding('br;q=0, *').coding).toBe('gzip');
    expect(chooseResponseCoding('*;q=0').coding).toBeUndefined();
  });

  it('says when identity is refused: identity;q=0, or *;q=0 without identity', () => {
    expect(chooseResponseCoding('gzip, identity;q=0')).toEqual({ coding: 'gzip', identityRefused: true });
    expect(chooseResponseCoding('*;q=0')).toEqual({ coding: undefined, identityRefused: true });
    expect(chooseResponseCoding('*;q=0, identity')).toEqual({ coding: undefined, identityRefused: false });
    expect(chooseResponseCoding('identity;q=0.1, gzip').identityRefused).toBe(false);
  });

  it('ignores elements with a malformed weight or another parameter', () => {
    for (const header of [
      'br;q=2',
      'br;q=0.1234',
      'br;q=',
      'br;q=abc',
      'br;level=1',
      'br;q=-1',
      'br;q=1.1',
    ]) {
      expect(chooseResponseCoding(`${header}, gzip;q=0.1`).coding).toBe('gzip');
    }
    expect(chooseResponseCoding('br;q=1.000, gzip').coding).toBe('br');
  });
});

function rendered(body: string | Buffer, headers: Record<string, string> = {}): RenderedResponse {
  return { status: 200, headers: { 'Content-Type': 'application/json', ...headers }, body };
}

function compressed(
  response: RenderedResponse,
  acceptEncoding: string | undefined,
  config = { compress: true, compressMinBytes: 1024 },
): Promise<RenderedResponse> {
  return new Promise((resolve) => compressResponse(response, acceptEncoding, config, resolve));
}

describe('compressResponse', () => {
  const big = JSON.stringify({ data: Array.from({ length: 200 }, (_, i) => ({ id: i, name: `n${i}` })) });

  it('hands the response on at once and untouched when compress is off', () => {
    const response = rendered(big);
    let sent: RenderedResponse | undefined;
    compressResponse(response, 'br', { compress: false, compressMinBytes: 0 }, (r) => (sent = r));
    expect(sent).toBe(response);
    expect(sent?.headers).toEqual({ 'Content-Type': 'application/json' });
  });

  it('compresses with br or gzip as asked, setting Content-Encoding and Vary', async () => {
    const br = await compressed(rendered(big), 'gzip;q=0.5, br');
    expect(br.headers).toMatchObject({ 'Content-Encoding': 'br', Vary: 'Accept-Encoding' });
    expect(brotliDecompressSync(br.body as Buffer).toString()).toBe(big);
    expect(br.body.length).toBeLessThan(big.length / 4);
    const gzip = await compressed(rendered(Buffer.from(big, 'latin1')), 'gzip');
    expect(gzip.headers).toMatchObject({ 'Content-Encoding': 'gzip', Vary: 'Accept-Encoding' });
    expect(gunzipSync(gzip.body as Buffer).toString('latin1')).toBe(big);
  });

  it('sends a body under compressMinBytes as it is, with Vary, unless the client refused identity', async () => {
    const small = '{"a":1}';
    const plain = await compressed(rendered(small), 'br');
    expect(plain.body).toBe(small);
    expect(plain.headers).toEqual({ 'Content-Type': 'application/json', Vary: 'Accept-Encoding' });
    const forced = await compressed(rendered(small), 'br, identity;q=0');
    expect(forced.headers['Content-Encoding']).toBe('br');
    expect(brotliDecompressSync(forced.body as Buffer).toString()).toBe(small);
    const exact = await compressed(rendered('x'.repeat(1024)), 'gzip');
    expect(exact.headers['Content-Encoding']).toBe('gzip');
  });

  it('sends unencoded when the client accepts neither coding, even with identity refused', async () => {
    const response = await compressed(rendered(big), 'zstd, identity;q=0');
    expect(response.body).toBe(big);
    expect(response.headers['Content-Encoding']).toBeUndefined();
    expect(response.headers['Vary']).toBe('Accept-Encoding');
  });

  it('leaves a response with a Content-Encoding of the pipeline alone, and an empty body', async () => {
    const own = rendered(big, { 'content-encoding': 'identity' });
    expect(await compressed(own, 'br')).toBe(own);
    expect(own.headers['Vary']).toBeUndefined();
    const empty = rendered('');
    expect(await compressed(empty, 'br')).toBe(empty);
  });

  it('adds Accept-Encoding to a Vary of the pipeline once', async () => {
    const response = await compressed(rendered(big, { vary: 'Origin' }), 'gzip');
    expect(response.headers['vary']).toBe('Origin, Accept-Encoding');
    const again = await compressed(rendered(big, { Vary: 'accept-encoding' }), 'gzip');
    expect(again.headers['Vary']).toBe('accept-encoding');
    const star = await compressed(rendered(big, { Vary: '*' }), 'gzip');
    expect(star.headers['Vary']).toBe('*');
  });
});

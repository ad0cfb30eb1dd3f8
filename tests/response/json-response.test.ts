import fc from 'fast-check';
import { field } from '../../src/record/field';
import { DataRecord } from '../../src/record/data-record';
import {
  isSupportedResponseCharset,
  renderJsonEnvelopeError,
  renderJsonResponse,
  renderedBodyLength,
  type JsonResponseConfig,
} from '../../src/response/json-response';
import { BufferedResponseSink } from '../../src/response/buffered-response-sink';

const envelope: JsonResponseConfig = {
  sendRawResponse: false,
  jsonContent: 'multipleObjects',
  charset: 'UTF-8',
};
const rawArray: JsonResponseConfig = {
  sendRawResponse: true,
  jsonContent: 'arrayOfObjects',
  charset: 'UTF-8',
};
const rawLines: JsonResponseConfig = {
  sendRawResponse: true,
  jsonContent: 'multipleObjects',
  charset: 'UTF-8',
};

const errorRecord = (value: DataRecord['value'], message?: string): DataRecord => {
  if (message === undefined) return new DataRecord(value);
  return DataRecord.createErrorRecord(new DataRecord(value), { code: 'E_1', message, stage: 'stage-1' });
};

function sinkWith(
  data: DataRecord['value'][],
  errors: DataRecord[] = [],
  errorStatus = 500,
): BufferedResponseSink {
  const sink = new BufferedResponseSink();
  sink.addRecords(
    data.map((value) => new DataRecord(value)),
    200,
  );
  sink.addErrorRecords(errors, errorStatus);
  return sink;
}

const bytes = (body: string | Buffer): Buffer =>
  typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
const text = (body: string | Buffer): string => bytes(body).toString('utf8');

describe('renderJsonResponse: envelope', () => {
  it('renders one record as the exact compact envelope', () => {
    const rendered = renderJsonResponse(sinkWith([{ a: 1 }]), envelope);
    expect(rendered.status).toBe(200);
    expect(text(rendered.body)).toBe(
      '{"httpStatusCode":200,"data":[{"a":1}],"error":[],"errorMessage":null}',
    );
  });

  it('renders an empty envelope with status 200 when no record reached the response', () => {
    const rendered = renderJsonResponse(new BufferedResponseSink(), envelope);
    expect(rendered.status).toBe(200);
    expect(text(rendered.body)).toBe('{"httpStatusCode":200,"data":[],"error":[],"errorMessage":null}');
  });

  it('puts data and error records in their lists, with 207 for mixed codes and the first error message', () => {
    const sink = sinkWith(
      [{ a: 1 }, { a: 2 }],
      [errorRecord({ b: 1 }, 'E_1 - first'), errorRecord('x', 'E_2 - second')],
    );
    const rendered = renderJsonResponse(sink, envelope);
    expect(rendered.status).toBe(207);
    expect(text(rendered.body)).toBe(
      '{"httpStatusCode":207,"data":[{"a":1},{"a":2}],"error":[{"b":1},"x"],"errorMessage":"E_1 - first"}',
    );
  });

  it('takes errorMessage from the first error record that carries a message', () => {
    const sink = sinkWith([], [errorRecord({ plain: true }), errorRecord(1, 'E_3 - later one')]);
    expect(JSON.parse(text(renderJsonResponse(sink, envelope).body)).errorMessage).toBe('E_3 - later one');
  });

  it('sends errorMessage null when no error record carries a message', () => {
    const sink = sinkWith([], [errorRecord({ plain: true })]);
    const body = JSON.parse(text(renderJsonResponse(sink, envelope).body));
    expect(body).toEqual({ httpStatusCode: 500, data: [], error: [{ plain: true }], errorMessage: null });
  });

  it('is one object whatever jsonContent says', () => {
    const sink = sinkWith([{ a: 1 }, { a: 2 }]);
    const asArray = renderJsonResponse(sink, { ...envelope, jsonContent: 'arrayOfObjects' });
    const asLines = renderJsonResponse(sink, { ...envelope, jsonContent: 'multipleObjects' });
    expect(text(asArray.body)).toBe(
      '{"httpStatusCode":200,"data":[{"a":1},{"a":2}],"error":[],"errorMessage":null}',
    );
    expect(bytes(asLines.body).equals(bytes(asArray.body))).toBe(true);
  });

  it('writes typed values exactly: DECIMAL digits, LONG bigint, bytes as base64', () => {
    const sink = sinkWith([
      { price: field('DECIMAL', '10.50'), id: 9007199254740993n, raw: new Uint8Array([1, 2]) },
    ]);
    expect(text(renderJsonResponse(sink, envelope).body)).toBe(
      '{"httpStatusCode":200,"data":[{"price":10.50,"id":9007199254740993,"raw":"AQI="}],"error":[],"errorMessage":null}',
    );
  });

  it('answers ORIGIN_RESPONSE_RENDER_FAILED when a record value is not a field value', () => {
    const sink = new BufferedResponseSink();
    const record = new DataRecord(null);
    (record as { value: unknown }).value = new (class Widget {})();
    sink.addRecords([record], 200);
    expect(() => renderJsonResponse(sink, envelope)).toThrow(
      expect.objectContaining({ code: 'ORIGIN_RESPONSE_RENDER_FAILED' }),
    );
  });

  it('is valid JSON holding exactly the record values, for any JSON values', () => {
    const jsonValue = fc.jsonValue() as fc.Arbitrary<DataRecord['value']>;
    fc.assert(
      fc.property(
        fc.array(jsonValue, { maxLength: 5 }),
        fc.array(jsonValue, { maxLength: 3 }),
        (data, errors) => {
          const sink = sinkWith(
            data,
            errors.map((value) => errorRecord(value, 'E_1 - bad')),
          );
          const body = JSON.parse(text(renderJsonResponse(sink, envelope).body));
          // Compare through JSON text as the client sees it (which normalises keys like `__proto__`), keeping -0:
          // the origin writes it `-0.0` (decision 0060), where JSON.stringify would write `0`.
          expect(body).toEqual(
            JSON.parse(
              JSON.stringify(
                {
                  httpStatusCode: responseCode(data.length, errors.length),
                  data,
                  error: errors,
                  errorMessage: errors.length > 0 ? 'E_1 - bad' : null,
                },
                (_key, value: unknown) => (Object.is(value, -0) ? NEGATIVE_ZERO : value),
              ),
              (_key, value: unknown) => (value === NEGATIVE_ZERO ? -0 : value),
            ),
          );
        },
      ),
    );
  });
});

/** Stands for -0 while the expected answer goes through JSON text (no JSON value generated is this string). */
const NEGATIVE_ZERO = '\u0000negative zero\u0000';

function responseCode(dataCount: number, errorCount: number): number {
  if (dataCount > 0 && errorCount > 0) return 207;
  if (errorCount > 0) return 500;
  return 200;
}

describe('renderJsonResponse: raw', () => {
  it.each([
    [rawArray, '[{"a":1},{"a":2}]'],
    [rawLines, '{"a":1}\n{"a":2}'],
  ])('sends the data records when there is no error record (%#)', (config, expected) => {
    const rendered = renderJsonResponse(sinkWith([{ a: 1 }, { a: 2 }]), config);
    expect(rendered.status).toBe(200);
    expect(text(rendered.body)).toBe(expected);
  });

  it.each([
    [rawArray, '[{"e":1},{"e":2}]'],
    [rawLines, '{"e":1}\n{"e":2}'],
  ])('sends only the error records when there are any (%#)', (config, expected) => {
    const sink = sinkWith([{ a: 1 }], [errorRecord({ e: 1 }, 'E_1 - x'), errorRecord({ e: 2 }, 'E_1 - y')]);
    const rendered = renderJsonResponse(sink, config);
    expect(rendered.status).toBe(207);
    expect(text(rendered.body)).toBe(expected);
  });

  it.each([rawArray, rawLines])(
    'sends an empty body with a JSON content type when no record came (%#)',
    (config) => {
      const rendered = renderJsonResponse(new BufferedResponseSink(), config);
      expect(rendered.status).toBe(200);
      expect(rendered.body.length).toBe(0);
      expect(rendered.headers['Content-Type']).toBe('application/json; charset=utf-8');
    },
  );

  it('writes one record without separators', () => {
    expect(text(renderJsonResponse(sinkWith(['only']), rawLines).body)).toBe('"only"');
    expect(text(renderJsonResponse(sinkWith(['only']), rawArray).body)).toBe('["only"]');
  });
});

describe('renderJsonResponse: headers', () => {
  it('sends application/json with the charset lowercased', () => {
    const rendered = renderJsonResponse(new BufferedResponseSink(), { ...envelope, charset: 'UTF-8' });
    expect(rendered.headers).toEqual({ 'Content-Type': 'application/json; charset=utf-8' });
  });

  it('adds the pipeline headers, several values of one name joined by a comma', () => {
    const sink = new BufferedResponseSink();
    sink.addRecords([new DataRecord(1)], 201, { Location: '/a', 'X-Tag': 'one' });
    sink.addRecords([new DataRecord(2)], 201, { 'x-tag': 'two' });
    expect(renderJsonResponse(sink, envelope).headers).toEqual({
      'Content-Type': 'application/json; charset=utf-8',
      Location: '/a',
      'X-Tag': 'one, two',
    });
  });

  it('does not let a pipeline header replace Content-Type, Content-Length or Transfer-Encoding', () => {
    const sink = new BufferedResponseSink();
    sink.addRecords([new DataRecord(1)], 200, {
      'content-type': 'text/plain',
      'Content-Length': '1',
      'Transfer-Encoding': 'chunked',
      'X-Kept': 'yes',
    });
    expect(renderJsonResponse(sink, envelope).headers).toEqual({
      'Content-Type': 'application/json; charset=utf-8',
      'X-Kept': 'yes',
    });
  });

  it('keeps a pipeline header named __proto__ as a header, not as the prototype', () => {
    const sink = new BufferedResponseSink();
    sink.addRecords([new DataRecord(1)], 200, JSON.parse('{"__proto__":"x"}') as Record<string, string>);
    const { headers } = renderJsonResponse(sink, envelope);
    expect(Object.getPrototypeOf(headers)).toBe(Object.prototype);
    expect(Object.keys(headers)).toEqual(['Content-Type', '__proto__']);
    expect(Object.getOwnPropertyDescriptor(headers, '__proto__')?.value).toBe('x');
  });
});

describe('renderJsonResponse: charsets', () => {
  const word = 'café € 😀';

  it('gives UTF-8 as text, which Node writes as UTF-8 in one piece with the headers', () => {
    const rendered = renderJsonResponse(sinkWith([word]), rawLines);
    expect(rendered.body).toBe(`"${word}"`);
    expect(renderedBodyLength(rendered.body)).toBe(Buffer.byteLength(`"${word}"`, 'utf8'));
  });

  it('encodes UTF-16LE and names it in Content-Type', () => {
    const rendered = renderJsonResponse(sinkWith([word]), { ...rawLines, charset: 'utf-16LE' });
    expect(bytes(rendered.body).equals(Buffer.from(`"${word}"`, 'utf16le'))).toBe(true);
    expect(rendered.headers['Content-Type']).toBe('application/json; charset=utf-16le');
  });

  it.each(['ISO-8859-1', 'latin1'])('encodes %s, escaping characters latin1 cannot carry', (charset) => {
    const rendered = renderJsonResponse(sinkWith([word]), { ...rawLines, charset });
    expect(bytes(rendered.body).equals(Buffer.from('"café \\u20ac \\ud83d\\ude00"', 'latin1'))).toBe(true);
    expect(bytes(rendered.body).includes(0xe9)).toBe(true);
    expect(rendered.headers['Content-Type']).toBe('application/json; charset=iso-8859-1');
  });

  it.each(['US-ASCII', 'ascii'])('encodes %s as pure ASCII with escapes', (charset) => {
    const rendered = renderJsonResponse(sinkWith([word]), { ...rawLines, charset });
    expect(bytes(rendered.body).toString('latin1')).toBe('"caf\\u00e9 \\u20ac \\ud83d\\ude00"');
    expect(rendered.headers['Content-Type']).toBe('application/json; charset=us-ascii');
  });

  it('keeps every string exact in every charset', () => {
    const decoders: [string, (body: Buffer) => string][] = [
      ['utf-8', (body) => body.toString('utf8')],
      ['utf-16le', (body) => body.toString('utf16le')],
      ['iso-8859-1', (body) => body.toString('latin1')],
      ['us-ascii', (body) => body.toString('latin1')],
    ];
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (value) => {
        for (const [charset, decode] of decoders) {
          const rendered = renderJsonResponse(sinkWith([value]), { ...envelope, charset });
          expect(JSON.parse(decode(bytes(rendered.body))).data[0]).toBe(value);
          if (charset === 'us-ascii') expect(bytes(rendered.body).every((byte) => byte < 0x80)).toBe(true);
        }
      }),
    );
  });

  it('refuses a charset it cannot encode', () => {
    expect(isSupportedResponseCharset('Shift_JIS')).toBe(false);
    expect(isSupportedResponseCharset('Utf-8')).toBe(true);
    expect(() =>
      renderJsonResponse(new BufferedResponseSink(), { ...envelope, charset: 'Shift_JIS' }),
    ).toThrow(expect.objectContaining({ code: 'ORIGIN_RESPONSE_CHARSET_UNSUPPORTED' }));
  });
});

describe('renderJsonEnvelopeError', () => {
  it('renders the rejection envelope with the status and message', () => {
    const rendered = renderJsonEnvelopeError(403, 'ORIGIN_APP_ID_INVALID - Not in the list.', envelope);
    expect(rendered.status).toBe(403);
    expect(rendered.headers).toEqual({ 'Content-Type': 'application/json; charset=utf-8' });
    expect(text(rendered.body)).toBe(
      '{"httpStatusCode":403,"data":[],"error":[],"errorMessage":"ORIGIN_APP_ID_INVALID - Not in the list."}',
    );
  });

  it.each([rawArray, rawLines])('uses the envelope in raw mode too (%#)', (config) => {
    const rendered = renderJsonEnvelopeError(503, 'ORIGIN_HTTP_CLOSING - Closing.', config);
    expect(JSON.parse(text(rendered.body))).toEqual({
      httpStatusCode: 503,
      data: [],
      error: [],
      errorMessage: 'ORIGIN_HTTP_CLOSING - Closing.',
    });
  });

  it('escapes the message as a JSON string and honours the charset', () => {
    const rendered = renderJsonEnvelopeError(400, 'E - bad "quote" é\n', { charset: 'US-ASCII' });
    expect(bytes(rendered.body).toString('latin1')).toBe(
      '{"httpStatusCode":400,"data":[],"error":[],"errorMessage":"E - bad \\"quote\\" \\u00e9\\n"}',
    );
  });
});

import fc from 'fast-check';
import { DataRecord } from '../../src/record/data-record';
import { field, type FieldValue } from '../../src/record/field';
import {
  jsonPieceRenderer,
  renderJsonResponse,
  type JsonResponseConfig,
} from '../../src/response/json-response';
import { BufferedResponseSink } from '../../src/response/buffered-response-sink';

const bytes = (body: string | Buffer): Buffer =>
  typeof body === 'string' ? Buffer.from(body, 'utf8') : body;

/** Every piece of the sink's response, rendered `sliceRecords` records at a time, and its status and headers. */
function piecesOf(
  sink: BufferedResponseSink,
  config: JsonResponseConfig,
  sliceRecords: number,
): { status: number; headers: Record<string, string>; pieces: Buffer[] } {
  const rendering = jsonPieceRenderer(config, sliceRecords)(sink);
  const pieces: Buffer[] = [];
  for (let piece = rendering.next(); piece !== undefined; piece = rendering.next()) pieces.push(piece);
  return { status: rendering.status, headers: rendering.headers, pieces };
}

// Values JSON.stringify writes as the record mapping does, and values it does not (the exact writer's).
const value: fc.Arbitrary<FieldValue> = fc.oneof(
  fc.record({ id: fc.integer(), name: fc.string({ unit: 'grapheme' }), ok: fc.boolean() }),
  fc.string({ unit: 'binary' }),
  fc.constant(null),
  fc.double({ noNaN: true }),
  fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }),
  fc.date({ noInvalidDate: true }),
  fc.constant(field('FLOAT', 1.5)),
  fc.array(fc.integer(), { maxLength: 3 }),
);

const config: fc.Arbitrary<JsonResponseConfig> = fc.record({
  sendRawResponse: fc.boolean(),
  jsonContent: fc.constantFrom('arrayOfObjects' as const, 'multipleObjects' as const),
  charset: fc.constantFrom('UTF-8', 'ISO-8859-1', 'US-ASCII', 'UTF-16LE'),
});

describe('jsonPieceRenderer (decision 0090)', () => {
  it('renders, piece by piece, byte for byte the response renderJsonResponse renders whole', () => {
    fc.assert(
      fc.property(
        fc.array(value, { maxLength: 40 }),
        fc.array(fc.tuple(value, fc.option(fc.string(), { nil: undefined })), { maxLength: 4 }),
        fc.integer({ min: 1, max: 7 }),
        config,
        (data, errors, sliceRecords, responseConfig) => {
          const sink = new BufferedResponseSink();
          sink.addRecords(
            data.map((v) => new DataRecord(v)),
            200,
          );
          sink.addErrorRecords(
            errors.map(([v, message]) =>
              message === undefined
                ? new DataRecord(v)
                : DataRecord.createErrorRecord(new DataRecord(v), { code: 'E_1', message, stage: 's' }),
            ),
            500,
          );
          const whole = renderJsonResponse(sink, responseConfig);
          const pieced = piecesOf(sink, responseConfig, sliceRecords);
          expect(pieced.status).toBe(whole.status);
          expect(pieced.headers).toEqual(whole.headers);
          expect(Buffer.concat(pieced.pieces).equals(bytes(whole.body))).toBe(true);
          // A piece holds at most one slice of data records, one of error records, and the punctuation.
          const slices = Math.ceil(data.length / sliceRecords) + Math.ceil(errors.length / sliceRecords);
          expect(pieced.pieces.length).toBeLessThanOrEqual(slices + 1);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('spreads a large response over many pieces', () => {
    const sink = new BufferedResponseSink();
    sink.addRecords(
      Array.from({ length: 10_000 }, (_, i) => new DataRecord({ id: i })),
      200,
    );
    const { pieces } = piecesOf(
      sink,
      { sendRawResponse: false, jsonContent: 'multipleObjects', charset: 'UTF-8' },
      512,
    );
    expect(pieces.length).toBe(Math.ceil(10_000 / 512) + 1);
    expect(JSON.parse(Buffer.concat(pieces).toString('utf8'))).toMatchObject({ httpStatusCode: 200 });
  });

  it('fails a value it cannot write with ORIGIN_RESPONSE_RENDER_FAILED, as the whole renderer does', () => {
    const sink = new BufferedResponseSink();
    const circular: Record<string, unknown> = {};
    circular.self = circular;
    sink.addRecords([new DataRecord({ ok: 1 }), new DataRecord(circular as FieldValue)], 200);
    const envelope: JsonResponseConfig = {
      sendRawResponse: false,
      jsonContent: 'multipleObjects',
      charset: 'UTF-8',
    };
    expect(() => renderJsonResponse(sink, envelope)).toThrow(
      expect.objectContaining({ code: 'ORIGIN_RESPONSE_RENDER_FAILED' }),
    );
    const rendering = jsonPieceRenderer(envelope, 1)(sink);
    expect(() => {
      while (rendering.next() !== undefined);
    }).toThrow(expect.objectContaining({ code: 'ORIGIN_RESPONSE_RENDER_FAILED' }));
  });
});

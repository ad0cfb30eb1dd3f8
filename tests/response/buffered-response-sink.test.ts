import { DataRecord } from '../../src/record/data-record';
import { BufferedResponseSink } from '../../src/response/buffered-response-sink';

const errorRecord = (value: string, message: string): DataRecord =>
  DataRecord.createErrorRecord(new DataRecord(value), { code: 'E', message, stage: 'origin' });

describe('BufferedResponseSink', () => {
  it('keeps data and error records by reference, in arrival order', () => {
    const sink = new BufferedResponseSink();
    const [a, b, c] = [new DataRecord(1), new DataRecord(2), new DataRecord(3)];
    const e = errorRecord('x', 'E - bad');
    sink.addRecords([a, b], 200);
    sink.addErrorRecords([e], 500);
    sink.addRecords([c], 200);
    expect(sink.dataRecords).toHaveLength(3);
    expect(sink.dataRecords[0]).toBe(a);
    expect(sink.dataRecords[1]).toBe(b);
    expect(sink.dataRecords[2]).toBe(c);
    expect(sink.errorRecords[0]).toBe(e);
    expect(sink.isEmpty).toBe(false);
  });

  it('lists each status code once, in the order it first came', () => {
    const sink = new BufferedResponseSink();
    sink.addRecords([new DataRecord(1)], 201);
    sink.addRecords([new DataRecord(2)], 200);
    sink.addErrorRecords([new DataRecord(3)], 201);
    expect(sink.statusCodes).toEqual([201, 200]);
  });

  it('appends later values of the same header name, matching names case-insensitively', () => {
    const sink = new BufferedResponseSink();
    sink.addRecords([new DataRecord(1)], 200, { 'X-Trace': 'a', Vary: 'Accept' });
    sink.addRecords([new DataRecord(2)], 200, { 'x-trace': 'b' });
    sink.addErrorRecords([new DataRecord(3)], 500, { 'X-TRACE': 'a', 'Retry-After': '5' });
    expect(sink.headers).toEqual({ 'X-Trace': ['a', 'b'], Vary: ['Accept'], 'Retry-After': ['5'] });
  });

  it('changes nothing for a call with no records', () => {
    const sink = new BufferedResponseSink();
    sink.addRecords([], 404, { 'X-A': '1' });
    sink.addErrorRecords([], 500);
    expect(sink.isEmpty).toBe(true);
    expect(sink.statusCodes).toEqual([]);
    expect(sink.headers).toEqual({});
  });

  it.each([99, 1000, 200.5, Number.NaN])('refuses status code %p and adds nothing', (code) => {
    const sink = new BufferedResponseSink();
    expect(() => sink.addRecords([new DataRecord(1)], code)).toThrow(
      expect.objectContaining({ code: 'ORIGIN_RESPONSE_STATUS_INVALID' }),
    );
    expect(sink.isEmpty).toBe(true);
  });

  it('refuses a header Node could not send and adds nothing', () => {
    const sink = new BufferedResponseSink();
    expect(() => sink.addRecords([new DataRecord(1)], 200, { 'X-A': 'one\r\nInjected: yes' })).toThrow(
      expect.objectContaining({ code: 'ORIGIN_RESPONSE_HEADER_INVALID' }),
    );
    expect(() => sink.addRecords([new DataRecord(1)], 200, { 'bad name': 'x' })).toThrow(
      expect.objectContaining({ code: 'ORIGIN_RESPONSE_HEADER_INVALID' }),
    );
    expect(sink.isEmpty).toBe(true);
  });
});

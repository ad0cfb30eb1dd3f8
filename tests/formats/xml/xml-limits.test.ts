import { resolveFormatConfig } from '../../../src/formats/format-config';
import { xmlFormat } from '../../../src/formats/xml/xml-format';
import { XmlParser } from '../../../src/formats/xml/xml-parser';

const parser = (options: Record<string, unknown>): XmlParser =>
  new XmlParser(resolveFormatConfig(xmlFormat, { delimiterElement: 'r', ...options }));

/** Pushes `text` in 64 KiB chunks, as the origin does, and gathers the results. */
function pushAll(xml: XmlParser, parts: Iterable<string>): { records: unknown[]; codes: string[] } {
  const records: unknown[] = [];
  const codes: string[] = [];
  const take = (result: ReturnType<XmlParser['push']>): void => {
    records.push(...result.records.map((record) => record.value));
    codes.push(...result.failures.map((failure) => failure.code));
  };
  for (const part of parts) {
    for (let at = 0; at < part.length; at += 65_536) take(xml.push(Buffer.from(part.slice(at, at + 65_536))));
  }
  take(xml.end());
  return { records, codes };
}

function* repeated(head: string, unit: string, count: number, tail: string): Generator<string> {
  yield head;
  const block = unit.repeat(10_000);
  for (let i = 0; i < count; i += 10_000) yield block;
  yield tail;
}

/** Issue 12, Found 6: the cost of an XML body is bounded per element and per skipped token. */
describe('XML limits', () => {
  it('ends the parse at an element with 200,000 attributes, in time linear in what it read', () => {
    const attributes = Array.from({ length: 200_000 }, (_, i) => ` a${i}="1"`).join('');
    const { records, codes } = pushAll(parser({}), ['<root><r x="1"/><r ', attributes, '/><r/></root>']);
    expect(records).toEqual([{ r: { 'attr|x': '1' } }]);
    expect(codes).toEqual(['ORIGIN_XML_TOO_MANY_ATTRIBUTES']);
  });

  it('allows exactly maxAttributesPerElement attributes and refuses one more', () => {
    const element = (n: number): string =>
      `<root><r${Array.from({ length: n }, (_, i) => ` a${i}="v"`).join('')}/></root>`;
    // The check runs between slices of the text, so the limit is exact only when the element spans slices.
    const pad = ' '.repeat(20_000);
    const ok = pushAll(parser({ maxAttributesPerElement: 3 }), [element(3)]);
    expect(ok.codes).toEqual([]);
    expect(ok.records).toHaveLength(1);
    const over = pushAll(parser({ maxAttributesPerElement: 3 }), [element(4), pad]);
    expect(over.codes).toEqual(['ORIGIN_XML_TOO_MANY_ATTRIBUTES']);
    expect(over.records).toEqual([]);
  });

  it('ends the parse at a 50 MB comment before the delimiter element, with memory bounded', () => {
    const before = process.memoryUsage().rss;
    const { records, codes } = pushAll(
      parser({}),
      repeated('<root><!--', 'x'.repeat(100), 500_000, '--><r>1</r></root>'),
    );
    expect(records).toEqual([]);
    expect(codes).toEqual(['ORIGIN_XML_TOKEN_TOO_LONG']);
    expect(process.memoryUsage().rss - before).toBeLessThan(400_000_000);
  });

  it('names the token that is too long and keeps the records before it', () => {
    const xml = parser({ maxTokenLengthChars: 100, maxRecordLengthChars: 50 });
    const result = xml.push(Buffer.from(`<root><r>1</r><?pi ${'y'.repeat(40_000)}?><r>2</r></root>`));
    expect(result.records.map((record) => record.value)).toEqual([{ r: { value: '1' } }]);
    expect(result.failures).toHaveLength(1);
    expect(result.failures[0]).toMatchObject({ code: 'ORIGIN_XML_TOKEN_TOO_LONG', canContinue: false });
    expect(result.failures[0]?.message).toBe(
      'An XML processing instruction at line 1 is longer than 100 characters (the larger of maxTokenLengthChars and maxRecordLengthChars); the rest of the body is not read.',
    );
  });

  it('bounds a token by the larger of maxTokenLengthChars and maxRecordLengthChars', () => {
    const value = 'v'.repeat(30_000);
    const body = `<root><r a="${value}"/></root>`;
    // A record's token may be as long as the record may be.
    const within = pushAll(parser({ maxTokenLengthChars: 100, maxRecordLengthChars: 50_000 }), [body]);
    expect(within.codes).toEqual([]);
    const beyond = pushAll(parser({ maxTokenLengthChars: 100, maxRecordLengthChars: 100 }), [body]);
    expect(beyond.codes).toEqual(['ORIGIN_XML_TOKEN_TOO_LONG']);
  });

  it('gives the same records whatever the slices, with the limits far away', () => {
    const body = `<root>${'<r a="1" b="2">text é 😀</r>'.repeat(5_000)}</root>`;
    const whole = parser({}).push(Buffer.from(body));
    const pieces = pushAll(parser({}), [body]);
    expect(pieces.records).toHaveLength(5_000);
    expect(pieces.records).toEqual(whole.records.map((record) => record.value));
  });
});

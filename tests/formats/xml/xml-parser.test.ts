import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from '../../../src/errors/config-error';
import { isOriginError } from '../../../src/errors/origin-error';
import { parseWhole } from '../../../src/formats/parse-helpers';
import { xmlFormat } from '../../../src/formats/xml/xml-format';
import { XmlParser } from '../../../src/formats/xml/xml-parser';
import { resolveFormatConfig } from '../../../src/formats/format-config';

const parse = (options: Record<string, unknown>, text: string) =>
  parseWhole(xmlFormat, options, Buffer.from(text));

describe('XML parser', () => {
  it('puts the namespaces in scope into xmlns header attributes when includeFieldXpaths is on', () => {
    const result = parse(
      { delimiterElement: 'entry', includeFieldXpaths: true },
      '<feed xmlns="urn:d" xmlns:m="urn:m"><entry><m:t>x</m:t></entry></feed>',
    );
    expect(result.records[0]?.attributes).toEqual({ xmlns: 'urn:d', 'xmlns:m': 'urn:m' });
  });

  it('adds header attributes only for the namespaces in scope at the record element without includeFieldXpaths', () => {
    const result = parse(
      { delimiterElement: 'entry' },
      '<feed xmlns:m="urn:m"><entry><x:t xmlns:x="urn:x"/></entry></feed>',
    );
    expect(result.records[0]?.attributes).toEqual({ 'xmlns:m': 'urn:m' });
    expect(
      parse({ delimiterElement: 'entry' }, '<feed><entry/></feed>').records[0]?.attributes,
    ).toBeUndefined();
  });

  it('never reads the file an external entity names', () => {
    const dir = mkdtempSync(join(tmpdir(), 'xxe-'));
    const secret = join(dir, 'secret.txt');
    writeFileSync(secret, 'TOP-SECRET-MARKER');
    const result = parse(
      {},
      `<?xml version="1.0"?><!DOCTYPE d [<!ENTITY xxe SYSTEM "file://${secret}">]><d>&xxe;</d>`,
    );
    expect(result.records).toEqual([]);
    expect(result.failures.map((f) => f.code)).toEqual(['ORIGIN_XML_MALFORMED']);
    expect(JSON.stringify(result)).not.toContain('TOP-SECRET-MARKER');
  });

  it('keeps memory bounded while a record passes maxRecordLengthChars, and parses the records after it', () => {
    const parser = new XmlParser(
      resolveFormatConfig(xmlFormat, { delimiterElement: 'r', maxRecordLengthChars: 100 }),
    );
    parser.push(Buffer.from('<list><r>'));
    let largest = 0;
    for (let i = 0; i < 1000; i++) {
      parser.push(Buffer.from('<x>0123456789</x>'));
      largest = Math.max(largest, parser.bufferedChars);
    }
    const tail = parser.push(Buffer.from('</r><r>ok</r></list>'));
    const end = parser.end();
    expect(largest).toBeLessThan(1000);
    expect(tail.failures.map((f) => [f.code, f.recordIndex, f.byteOffset])).toEqual([
      ['ORIGIN_XML_RECORD_TOO_LONG', 0, 6],
    ]);
    expect([...tail.records, ...end.records].map((r) => r.value)).toEqual([{ r: { value: 'ok' } }]);
  });

  it('refuses a delimiterElement outside the XPath subset with a config error', () => {
    for (const delimiterElement of ['//item', '/root/item[1]', '/root/text()']) {
      expect(() => new XmlParser(resolveFormatConfig(xmlFormat, { delimiterElement }))).toThrow(ConfigError);
    }
  });

  it('refuses a charset without a decoder', () => {
    let thrown: unknown;
    try {
      new XmlParser(resolveFormatConfig(xmlFormat, { charset: 'no-such-charset' }));
    } catch (error) {
      thrown = error;
    }
    expect(isOriginError(thrown, 'ORIGIN_CHARSET_UNSUPPORTED')).toBe(true);
  });

  it('keeps an element called __proto__ as a field', () => {
    const value = parse({ preserveRootElement: false }, '<r><__proto__>x</__proto__></r>').records[0]?.value;
    expect(Object.keys(value as object)).toEqual(['__proto__']);
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
  });

  it('reports a second root element as malformed', () => {
    const result = parse({}, '<a/><b/>');
    expect(result.records).toEqual([{ value: { a: {} } }]);
    expect(result.failures.map((f) => f.code)).toEqual(['ORIGIN_XML_MALFORMED']);
  });

  it('refuses a record nested deeper than maxNestingDepth elements and parses the records after it', () => {
    const nested = (depth: number): string => '<e>'.repeat(depth) + '</e>'.repeat(depth);
    const text = `<root><r>${nested(250)}</r><r><a>1</a></r><r>${nested(249)}</r></root>`;
    const { records, failures } = parse({ delimiterElement: 'r', maxRecordLengthChars: 1_000_000 }, text);
    expect(records).toHaveLength(2);
    expect(records[0]?.value).toEqual({ r: { a: [{ value: '1' }] } });
    expect(failures).toEqual([
      expect.objectContaining({
        code: 'ORIGIN_XML_TOO_DEEP',
        recordIndex: 0,
        canContinue: true,
        message: expect.stringContaining('maxNestingDepth 250') as unknown,
      }),
    ]);
    expect(parse({ maxNestingDepth: 2 }, '<a><b><c/></b></a>').failures).toMatchObject([
      { code: 'ORIGIN_XML_TOO_DEEP' },
    ]);
    expect(parse({ maxNestingDepth: 3 }, '<a><b><c/></b></a>').failures).toEqual([]);
  });

  it('refuses a document nested 10,000 deep with the length limit raised, instead of failing at render', () => {
    const text = '<e>'.repeat(10_000) + '</e>'.repeat(10_000);
    expect(parse({ maxRecordLengthChars: 1_000_000 }, text).failures).toMatchObject([
      { code: 'ORIGIN_XML_TOO_DEEP', canContinue: true },
    ]);
  });
});

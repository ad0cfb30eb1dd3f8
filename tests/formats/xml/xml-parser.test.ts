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

  it('adds no header attributes without includeFieldXpaths', () => {
    const result = parse({ delimiterElement: 'entry' }, '<feed xmlns:m="urn:m"><entry/></feed>');
    expect(result.records[0]?.attributes).toBeUndefined();
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
});

import { ConfigError } from '../../src/errors/config-error';
import type { DataFormat, ParseResult, ParseSource, Parser } from '../../src/formats/data-format';
import { jsonFormat } from '../../src/formats/json/json-format';
import { concatResults, parseStream, parseWhole } from '../../src/formats/parse-helpers';

/** A format whose records are the chunk lengths it saw, then 'end' (or 'all' from parseAll), and its config. */
function recordingFormat(withParseAll: boolean): DataFormat<{ tag: string }> & { sources: ParseSource[] } {
  const sources: ParseSource[] = [];
  return {
    name: 'recording',
    description: 'records what it was given',
    configSchema: { type: 'object', properties: { tag: { type: 'string', default: 'default-tag' } } },
    sources,
    createParser(config, source): Parser {
      sources.push(source);
      const parser: Parser = {
        push: (chunk) => ({ records: [{ value: chunk.length }], failures: [] }),
        end: () => ({ records: [{ value: `end:${config.tag}` }], failures: [] }),
      };
      if (withParseAll)
        parser.parseAll = (bytes) => ({ records: [{ value: `all:${bytes.length}` }], failures: [] });
      return parser;
    },
  };
}

const values = (result: ParseResult) => result.records.map((r) => r.value);

describe('parseWhole', () => {
  it('uses parseAll when the parser has it', () => {
    expect(values(parseWhole(recordingFormat(true), {}, new Uint8Array(5)))).toEqual(['all:5']);
  });

  it('falls back to one push and end, with the config’s defaults applied', () => {
    expect(values(parseWhole(recordingFormat(false), undefined, new Uint8Array(5)))).toEqual([
      5,
      'end:default-tag',
    ]);
    expect(values(parseWhole(recordingFormat(false), { tag: 'mine' }, new Uint8Array(2)))).toEqual([
      2,
      'end:mine',
    ]);
  });

  it('gives each parse a fresh origin state unless a source is passed', () => {
    const format = recordingFormat(false);
    const shared: ParseSource = { remoteAddress: '127.0.0.1', originState: new Map() };
    parseWhole(format, {}, new Uint8Array(0));
    parseWhole(format, {}, new Uint8Array(0));
    parseWhole(format, {}, new Uint8Array(0), shared);
    expect(format.sources[0]?.originState).toBeInstanceOf(Map);
    expect(format.sources[0]?.originState).not.toBe(format.sources[1]?.originState);
    expect(format.sources[2]).toBe(shared);
  });

  it('throws ConfigError for options the format refuses', () => {
    expect(() => parseWhole(jsonFormat, { jsonContent: 'lines' }, new Uint8Array(0))).toThrow(ConfigError);
  });
});

describe('parseStream', () => {
  it('pushes every chunk of a sync iterable in order, then ends', async () => {
    const chunks = [new Uint8Array(1), new Uint8Array(2), new Uint8Array(3)];
    expect(values(await parseStream(recordingFormat(true), {}, chunks))).toEqual([
      1,
      2,
      3,
      'end:default-tag',
    ]);
  });

  it('reads an async iterable and concatenates the records and failures of every step', async () => {
    async function* body() {
      yield Buffer.from('{"a":1} {"b"');
      yield Buffer.from(':2} {"c":} [');
    }
    const result = await parseStream(jsonFormat, {}, body());
    expect(values(result)).toEqual([{ a: 1 }, { b: 2 }]);
    expect(result.failures.map((f) => [f.code, f.recordIndex, f.canContinue])).toEqual([
      ['ORIGIN_JSON_MALFORMED', 2, true],
      ['ORIGIN_JSON_MALFORMED', 3, false],
    ]);
  });
});

describe('concatResults', () => {
  it('keeps the order of records and failures across results', () => {
    const failure = (recordIndex: number) => ({
      code: 'ORIGIN_JSON_MALFORMED' as const,
      message: '',
      scope: 'record' as const,
      recordIndex,
      byteOffset: 0,
      excerpt: '',
      canContinue: true,
    });
    const merged = concatResults([
      { records: [{ value: 1 }], failures: [failure(1)] },
      { records: [], failures: [] },
      { records: [{ value: 2 }, { value: 3 }], failures: [failure(4)] },
    ]);
    expect(values(merged)).toEqual([1, 2, 3]);
    expect(merged.failures.map((f) => f.recordIndex)).toEqual([1, 4]);
  });
});

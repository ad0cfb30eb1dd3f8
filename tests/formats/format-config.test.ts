import { ConfigError } from '../../src/errors/config-error';
import type { DataFormat } from '../../src/formats/data-format';
import { resolveFormatConfig } from '../../src/formats/format-config';
import { jsonFormat } from '../../src/formats/json/json-format';

interface FakeConfig {
  level: number;
  mode: 'a' | 'b';
  nested: { flag: boolean };
}

function fakeFormat(): DataFormat<FakeConfig> & { schemaReads: number } {
  const schema = {
    type: 'object',
    additionalProperties: false,
    properties: {
      level: { type: 'integer', minimum: 1, default: 3 },
      mode: { type: 'string', enum: ['a', 'b'], default: 'a' },
      nested: {
        type: 'object',
        additionalProperties: false,
        default: {},
        properties: { flag: { type: 'boolean', default: true } },
      },
    },
  };
  return {
    name: 'fake',
    description: 'fake',
    schemaReads: 0,
    get configSchema() {
      this.schemaReads++;
      return schema;
    },
    createParser: () => ({
      push: () => ({ records: [], failures: [] }),
      end: () => ({ records: [], failures: [] }),
    }),
  };
}

function problemsOf(run: () => unknown): ConfigError['problems'] {
  try {
    run();
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('resolveFormatConfig', () => {
  it('fills every default into an empty or missing config', () => {
    const format = fakeFormat();
    const expected = { level: 3, mode: 'a', nested: { flag: true } };
    expect(resolveFormatConfig(format, undefined)).toEqual(expected);
    expect(resolveFormatConfig(format, {})).toEqual(expected);
  });

  it('does not change the caller’s object', () => {
    const input = { level: 5, nested: {} };
    const resolved = resolveFormatConfig(fakeFormat(), input);
    expect(resolved).toEqual({ level: 5, mode: 'a', nested: { flag: true } });
    expect(input).toEqual({ level: 5, nested: {} });
  });

  it('lists every problem with its path relative to the format options', () => {
    const input = { level: 0, mode: 'c', nested: { flag: 'yes', extra: 1 }, typo: true };
    const problems = problemsOf(() => resolveFormatConfig(fakeFormat(), input));
    expect(problems).toEqual(
      expect.arrayContaining([
        { path: '/level', message: 'must be >= 1' },
        { path: '/mode', message: 'must be one of "a", "b"' },
        { path: '/nested/flag', message: 'must be boolean' },
        { path: '/nested/extra', message: 'is not a known option' },
        { path: '/typo', message: 'is not a known option' },
      ]),
    );
    expect(problems).toHaveLength(5);
  });

  it('throws ORIGIN_CONFIG_INVALID naming the count and the problems', () => {
    let thrown: unknown;
    try {
      resolveFormatConfig(jsonFormat, { maxObjectLengthChars: 0 });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ConfigError);
    expect((thrown as ConfigError).code).toBe('ORIGIN_CONFIG_INVALID');
    expect((thrown as ConfigError).message).toBe(
      'The configuration has 1 problem(s): /maxObjectLengthChars must be >= 1.',
    );
  });

  it('refuses a config that is not an object, or not plain data', () => {
    expect(problemsOf(() => resolveFormatConfig(fakeFormat(), 7))).toEqual([
      { path: '', message: 'must be object' },
    ]);
    expect(problemsOf(() => resolveFormatConfig(fakeFormat(), { level: () => 1 }))).toEqual([
      { path: '', message: 'must be plain data (it holds a value that cannot be copied)' },
    ]);
  });

  it('compiles a format’s schema once', () => {
    const format = fakeFormat();
    resolveFormatConfig(format, {});
    resolveFormatConfig(format, { level: 2 });
    expect(() => resolveFormatConfig(format, { level: -1 })).toThrow(ConfigError);
    expect(format.schemaReads).toBe(1);
  });
});

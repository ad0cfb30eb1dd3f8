import type { DataFormat, JsonSchema } from '../../src/formats/data-format';
import { compileConfigSchema, configProblems } from '../../src/formats/config-validation';
import { resolveFormatConfig } from '../../src/formats/format-config';
import { FormatRegistry } from '../../src/formats/format-registry';
import { resolveConfig } from '../../src/origin/config';

// resolveConfig and resolveFormatConfig share one ajv instance and one error mapper (src/formats/config-validation.ts);
// their own tests pin each one's messages. These pin what sharing them must not break.

function hostFormat(name: string, configSchema: JsonSchema): DataFormat {
  return { name, description: `${name} test format`, configSchema, createParser: () => ({}) as never };
}

// A host's schema may carry annotation keywords of its own (here for its UI).
const annotated: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  properties: { width: { type: 'integer', minimum: 1, default: 3, 'x-ui': 'slider' } },
};

describe('one validator for the origin config and the format configs', () => {
  it('accepts a host format schema with annotation keywords, on its own and inside the origin config', () => {
    const format = hostFormat('lines', annotated);
    expect(resolveFormatConfig(format, {})).toEqual({ width: 3 });
    const config = resolveConfig({ dataFormat: { format: 'lines' } }, new FormatRegistry([format]));
    expect(config.dataFormat['lines']).toEqual({ width: 3 });
  });

  it('compiles two schemas with the same $id, as two formats of one host may have', () => {
    const first = compileConfigSchema({
      $id: 'urn:test:options',
      type: 'object',
      properties: { a: { type: 'integer' } },
    });
    const second = compileConfigSchema({
      $id: 'urn:test:options',
      type: 'object',
      properties: { a: { type: 'string' } },
    });
    expect(first({ a: 1 })).toBe(true);
    expect(second({ a: 1 })).toBe(false);
  });

  it('words one ajv error the origin way or the format way', () => {
    const validate = compileConfigSchema({
      type: 'object',
      additionalProperties: false,
      properties: { mode: { enum: ['a', 'b'] }, port: { type: 'integer' } },
    });
    expect(validate({ mode: 'c', prot: 1 })).toBe(false);
    const errors = validate.errors ?? [];
    expect(configProblems(errors, 'config')).toEqual([
      { path: '/prot', message: "is not a known option (did you mean 'port'?)" },
      { path: '/mode', message: "must be one of 'a', 'b'" },
    ]);
    expect(configProblems(errors, 'format')).toEqual([
      { path: '/prot', message: 'is not a known option' },
      { path: '/mode', message: 'must be one of "a", "b"' },
    ]);
  });
});

import Ajv2020 from 'ajv/dist/2020.js';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

// The published config.schema.json, read as an editor would: from the file, with a fresh validator.
const root = join(__dirname, '..', '..');
const schema = JSON.parse(readFileSync(join(root, 'config.schema.json'), 'utf8')) as object;
const validate = new Ajv2020({ allErrors: true, strict: false }).compile(schema);

const exampleConfigs = readdirSync(join(root, 'examples'), { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .flatMap((entry) =>
    readdirSync(join(root, 'examples', entry.name))
      .filter((file) => file.endsWith('.json') && file.includes('config'))
      .map((file) => join('examples', entry.name, file)),
  );

describe('config.schema.json', () => {
  it('is published with the package', () => {
    const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
      files: string[];
      exports: Record<string, unknown>;
    };
    expect(manifest.files).toContain('config.schema.json');
    expect(manifest.exports['./config.schema.json']).toBe('./config.schema.json');
  });

  it.each(exampleConfigs)('accepts the example %s', (file) => {
    const config = JSON.parse(readFileSync(join(root, file), 'utf8')) as unknown;
    expect(validate(config) ? [] : validate.errors).toEqual([]);
  });

  it('accepts $schema and the command’s pipeline object beside the origin config', () => {
    const config = {
      $schema: './node_modules/rest-service-origin/config.schema.json',
      dataFormat: { format: 'json' },
      pipeline: { runnerIdleTimeMs: 0 },
    };
    expect(validate(config) ? [] : validate.errors).toEqual([]);
  });

  it('flags what an editor should underline: unknown keys, wrong types, values out of range', () => {
    const config = {
      http: { port: 70000, maxConcurent: 3 },
      dataFormat: { format: 'json', json: { bogus: 1 } },
    };
    expect(validate(config)).toBe(false);
    const where = validate.errors!.map((error) => `${error.instancePath} ${error.keyword}`);
    expect(where).toEqual(
      expect.arrayContaining([
        '/http additionalProperties',
        '/http/port maximum',
        '/dataFormat/json additionalProperties',
      ]),
    );
  });
});

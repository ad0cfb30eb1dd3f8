import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { renderConfigDoc, renderConfigSchemaFile, renderErrorsDoc } from '../../scripts/doc-renderers';
import { ERROR_TABLE } from '../../src/errors/error-table';
import { defaultRegistry } from '../../src/formats/built-in';
import { FormatRegistry } from '../../src/formats/format-registry';

const docsDir = join(__dirname, '..', '..', 'docs');

function committed(name: string, dir = docsDir): string {
  return readFileSync(join(dir, name), 'utf8');
}

/** 'up to date', or the instruction a stale file needs, so a failure says what to do. */
function freshness(name: string, rendered: string, dir = docsDir): string {
  return committed(name, dir) === rendered ? 'up to date' : `${name} is stale: run \`npm run docs:generate\``;
}

describe('generated docs', () => {
  it('docs/errors.md is what the error table renders to', () => {
    expect(freshness('errors.md', renderErrorsDoc())).toBe('up to date');
  });

  it('docs/config.md is what the configuration schema of the built-in formats renders to', () => {
    expect(freshness('config.md', renderConfigDoc(defaultRegistry))).toBe('up to date');
  });

  it('config.schema.json is what the config file schema of the built-in formats renders to', () => {
    const root = join(docsDir, '..');
    expect(freshness('config.schema.json', renderConfigSchemaFile(defaultRegistry), root)).toBe('up to date');
  });

  it('docs/errors.md names every code of the error table with its status', () => {
    const doc = committed('errors.md');
    const missing = Object.entries(ERROR_TABLE)
      .filter(([code, spec]) => !doc.includes(`| \`${code}\` | ${spec.httpStatus} |`))
      .map(([code]) => code);
    expect(missing).toEqual([]);
  });

  it('docs/config.md has a section for every built-in format', () => {
    const doc = committed('config.md');
    for (const name of defaultRegistry.names()) expect(doc).toContain(`(\`dataFormat.${name}\`)`);
  });
});

describe('doc renderers', () => {
  it('render the same text every time, ending in one newline', () => {
    for (const render of [renderErrorsDoc, () => renderConfigDoc(defaultRegistry)]) {
      const text = render();
      expect(render()).toBe(text);
      expect(text.endsWith('\n')).toBe(true);
      expect(text.endsWith('\n\n')).toBe(false);
    }
  });

  it('document a format a host registers, with its options, defaults and meanings', () => {
    const registry = new FormatRegistry([
      {
        name: 'lines',
        description: 'Lines of text, one record each',
        configSchema: {
          type: 'object',
          additionalProperties: false,
          properties: {
            maxLineChars: {
              type: 'integer',
              minimum: 1,
              default: 80,
              description: 'Longest line | in characters.',
            },
          },
        },
        createParser: () => ({
          push: () => ({ records: [], failures: [] }),
          end: () => ({ records: [], failures: [] }),
        }),
      },
    ]);
    const doc = renderConfigDoc(registry);
    expect(doc).toContain('### Format `lines` (`dataFormat.lines`)');
    expect(doc).toContain('Lines of text, one record each.');
    expect(doc).toContain(
      '| `dataFormat.lines.maxLineChars` | integer ≥ 1 | `80` | Longest line \\| in characters. |',
    );
    expect(doc).toContain('| `dataFormat.format` | one of `lines` | **required** |');
  });

  it('document every tab with its defaults', () => {
    const doc = renderConfigDoc(defaultRegistry);
    for (const heading of ['(`general`)', '(`http`)', '(`dataFormat`)', '(`tls`)', '(`httpResponse`)']) {
      expect(doc).toContain(heading);
    }
    expect(doc).toContain('| `http.port` | integer, 0 to 65535 | `8000` |');
    expect(doc).toContain('| `http.maxConcurrentRequests` | integer, 1 to 200 | `10` |');
    expect(doc).toContain("const config = { dataFormat: { format: 'json' } };");
  });
});

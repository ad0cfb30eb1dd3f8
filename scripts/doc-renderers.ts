/**
 * Renderers of the generated docs. They live outside `src/` so that the package stays runtime-only; the
 * `docs:generate` script writes their output and a test fails when the committed files differ from it.
 * Both are pure: the same table and registry give the same text, ending in a newline.
 */
import { ERROR_TABLE, describeError, type ErrorCategory, type ErrorSpec } from '../src/errors/error-table';
import type { FormatRegistry } from '../src/formats/format-registry';
import { configFileSchema } from '../src/cli/config-file';
import { NOT_YET_BUILT, REQUIRED_WHEN_RULES, buildConfigSchema } from '../src/origin/config-schema';

// Categories in the order the docs list them; a category added to the table later is listed after these.
const CATEGORY_TITLES: Readonly<Record<string, string>> = {
  config: 'Configuration',
  lifecycle: 'Lifecycle',
  request: 'Request',
  auth: 'Authentication and authorization',
  limit: 'Limits',
  encoding: 'Encoding',
  parse: 'Parsing',
  pipeline: 'Pipeline',
  response: 'Response',
  internal: 'Internal',
};

type Schema = { readonly [keyword: string]: unknown };

function isSchema(value: unknown): value is Schema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function propertiesOf(schema: Schema): [string, Schema][] {
  const properties = schema['properties'];
  if (!isSchema(properties)) return [];
  return Object.entries(properties).filter((entry): entry is [string, Schema] => isSchema(entry[1]));
}

/** Text safe inside one GitHub-flavoured table cell. */
function cell(text: string): string {
  return text.replace(/\r?\n/g, ' ').replace(/\|/g, '\\|');
}

function code(text: string): string {
  return text.includes('`') ? `\`\` ${text} \`\`` : `\`${text}\``;
}

function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const lines = [`| ${header.join(' | ')} |`, `|${header.map(() => '---').join('|')}|`];
  for (const row of rows) lines.push(`| ${row.map(cell).join(' | ')} |`);
  return lines.join('\n');
}

/**
 * `docs/errors.md`: an introduction (the `<CODE> - <message>` form, what the HTTP status means, the never-reuse
 * rule) and one table per category of {@link ERROR_TABLE}, codes in table order.
 */
export function renderErrorsDoc(): string {
  const byCategory = new Map<ErrorCategory, [string, ErrorSpec][]>();
  for (const category of Object.keys(CATEGORY_TITLES) as ErrorCategory[]) byCategory.set(category, []);
  for (const [errorCode, spec] of Object.entries(ERROR_TABLE) as [string, ErrorSpec][]) {
    const rows = byCategory.get(spec.category) ?? [];
    rows.push([errorCode, spec]);
    byCategory.set(spec.category, rows);
  }
  const example = describeError('ORIGIN_HTTP_BODY_TOO_LARGE', {
    which: 'decoded',
    limitMb: 1,
    limitBytes: 1000000,
  });
  const parts = [
    '# Errors',
    '<!-- Generated from src/errors/error-table.ts by `npm run docs:generate`. Do not edit by hand. -->',
    [
      'Every error the origin raises or answers with has a stable code of the form `ORIGIN_<AREA>_<WHAT>`, a',
      'category, the HTTP status a client receives when the error ends a request, and a one-sentence message.',
      '`{name}` in a message is filled from the parameters of the error.',
    ].join('\n'),
    [
      '- In code an error is an `OriginError` with `code`, `category`, `httpStatus`, `params` and, where there is one,',
      '  `cause`; `ConfigError` is the `ORIGIN_CONFIG_INVALID` error and also lists every `problems` entry with its',
      '  JSON Pointer. Configuration and lifecycle errors are thrown by the constructor, `start()` and `close()`.',
      '- A client whose request is rejected receives the configured response envelope with `httpStatusCode` set to the',
      '  status below and `errorMessage` in the form `<CODE> - <message>`, for example',
      `  ${code(example)}`,
      '- Codes are never renumbered, renamed or reused: a retired code keeps its row. Match on the code, never on the',
      '  message text, which may be reworded.',
    ].join('\n'),
  ];
  for (const [category, rows] of byCategory) {
    if (rows.length === 0) continue;
    const title = CATEGORY_TITLES[category] ?? category;
    parts.push(`## ${title} (\`${category}\`)`);
    parts.push(
      table(
        ['Code', 'HTTP status', 'Message'],
        rows.map(([errorCode, spec]) => [
          code(errorCode),
          String(spec.httpStatus),
          spec.message.replace(/\{(\w+)\}/g, '`{$1}`'),
        ]),
      ),
    );
  }
  return parts.join('\n\n') + '\n';
}

function typeText(schema: Schema): string {
  const values = schema['enum'];
  if (Array.isArray(values)) return `one of ${values.map((value) => code(String(value))).join(', ')}`;
  const type = schema['type'];
  if (type === 'integer' || type === 'number') {
    const min = schema['minimum'];
    const max = schema['maximum'];
    if (typeof min === 'number' && typeof max === 'number') return `${type}, ${min} to ${max}`;
    if (typeof min === 'number') return `${type} ≥ ${min}`;
    if (typeof max === 'number') return `${type} ≤ ${max}`;
    return type;
  }
  if (type === 'string') return schema['minLength'] === 1 ? 'non-empty string' : 'string';
  if (type === 'array') {
    const items = schema['items'];
    if (!isSchema(items)) return 'list';
    const keys = propertiesOf(items).map(([key]) => key);
    if (keys.length > 0) return `list of ${code(`{ ${keys.join(', ')} }`)}`;
    const choices = items['enum'];
    if (Array.isArray(choices)) return `list of ${choices.map((value) => code(String(value))).join(', ')}`;
    return `list of ${typeText(items)}s`;
  }
  // An optional object: `{ key, limit }` or null.
  const keys = propertiesOf(schema).map(([key]) => key);
  if (Array.isArray(type) && keys.length > 0 && type.includes('null'))
    return `${code(`{ ${keys.join(', ')} }`)} or null`;
  return typeof type === 'string' ? type : 'any';
}

function defaultText(schema: Schema, required: boolean): string {
  if (required) return '**required**';
  if (!('default' in schema)) return 'unset';
  return code(JSON.stringify(schema['default']));
}

/** Rows for every leaf key under `schema`; nested objects with properties are flattened into dotted paths. */
function optionRows(schema: Schema, prefix: string, skip: ReadonlySet<string> = new Set()): string[][] {
  const required = new Set(Array.isArray(schema['required']) ? (schema['required'] as unknown[]) : []);
  const rows: string[][] = [];
  for (const [key, property] of propertiesOf(schema)) {
    if (skip.has(key)) continue;
    const path = `${prefix}.${key}`;
    if (property['type'] === 'object' && propertiesOf(property).length > 0) {
      rows.push(...optionRows(property, path));
      continue;
    }
    const description = typeof property['description'] === 'string' ? property['description'] : '';
    rows.push([
      code(path),
      typeText(property),
      defaultText(property, required.has(key)),
      notYetBuilt(path) + description,
    ]);
  }
  return rows;
}

/** The mark of an option of a feature not built yet, or `''`. */
function notYetBuilt(path: string): string {
  const feature = NOT_YET_BUILT.find((f) => f.options.includes(path));
  if (feature === undefined) return '';
  return `**Not built yet** (issue ${feature.issue}): refused with a \`ConfigError\` while ${code(feature.flag)} is true. `;
}

function sentence(text: string): string {
  const trimmed = text.trim();
  return trimmed === '' || /[.!?]$/.test(trimmed) ? trimmed : `${trimmed}.`;
}

function optionsTable(rows: string[][]): string {
  return rows.length === 0 ? 'No options.' : table(['Key', 'Type', 'Default', 'Meaning'], rows);
}

function crossFieldRulesText(): string {
  return REQUIRED_WHEN_RULES.map((rule) => {
    const keys = rule.required.map((key) => code(`${rule.tab}.${key}`)).join(', ');
    return `- ${keys} must be non-blank when ${code(`${rule.tab}.${rule.flag}`)} is true.`;
  }).join('\n');
}

/**
 * `docs/config.md` for the formats of `registry`: an introduction (the minimal config, the naming rule, how
 * problems are reported, the cross-field rules), one table per tab of {@link buildConfigSchema} (key path, type,
 * default, meaning), and one section per registered format with its options.
 */
export function renderConfigDoc(registry: FormatRegistry): string {
  const schema = buildConfigSchema(registry);
  const parts = [
    '# Configuration',
    '<!-- Generated from the configuration schema (src/origin/config-schema.ts) by `npm run docs:generate`. Do not edit by hand. -->',
    [
      'An origin is configured with one plain object, grouped like the tabs of the spec: `general`, `http`,',
      '`dataFormat`, `tls` and `httpResponse`. `new Origin(config, …)` and `resolveConfig(config, registry)` validate',
      'it against one JSON Schema (`buildConfigSchema(registry)`), fill in every default and return a deep-frozen',
      'copy; the object passed in is never changed. Everything except `dataFormat.format` has a default, so this is',
      'a complete configuration:',
    ].join('\n'),
    ['```ts', "const config = { dataFormat: { format: 'json' } };", '```'].join('\n'),
    [
      '- Naming: keys are the labels of the spec in lowerCamelCase, keeping the unit (Max Request Size (MB) is',
      '  `maxRequestSizeMb`); enum values are lowerCamelCase as well (Send to Error is `sendToError`).',
      '- Problems: a configuration with problems throws one `ConfigError` (code `ORIGIN_CONFIG_INVALID`) whose',
      '  `problems` list every problem, not only the first, each with the JSON Pointer of the offending value:',
      "  `/http/port must be <= 65535`. An unknown key is a problem too (`/http/prot is not a known option (did you mean 'port'?)`),",
      '  so a typo never passes silently.',
      '- Additions: options marked "(addition)" go beyond the spec.',
      '- Not built yet: options marked **Not built yet** belong to a feature of the spec this version does not do',
      "  yet; they are accepted with their defaults and the feature's switch is refused until it is built.",
      '- Formats: each registered data format adds its options under `dataFormat.<name>`, validated by the schema the',
      '  format declares, so a format registered by the host is configured and documented the same way.',
    ].join('\n'),
    ['Rules that tie keys together:', '', crossFieldRulesText()].join('\n'),
  ];
  const formatNames = new Set(registry.names());
  for (const [tab, tabSchema] of propertiesOf(schema)) {
    const title = typeof tabSchema['title'] === 'string' ? tabSchema['title'] : tab;
    parts.push(`## ${title} (\`${tab}\`)`);
    if (typeof tabSchema['description'] === 'string') parts.push(tabSchema['description']);
    parts.push(optionsTable(optionRows(tabSchema, tab, tab === 'dataFormat' ? formatNames : new Set())));
    if (tab !== 'dataFormat') continue;
    for (const format of registry.formats()) {
      parts.push(`### Format \`${format.name}\` (\`dataFormat.${format.name}\`)`);
      parts.push(
        `${sentence(format.description)} These options apply when \`dataFormat.format\` is \`'${format.name}'\`; an empty object takes every default.`,
      );
      parts.push(optionsTable(optionRows(format.configSchema, `dataFormat.${format.name}`)));
    }
  }
  return parts.join('\n\n') + '\n';
}

/** `config.schema.json`: the JSON Schema of a config file of the built-in formats, two-space indented. */
export function renderConfigSchemaFile(registry: FormatRegistry): string {
  return `${JSON.stringify(configFileSchema(registry), null, 2)}\n`;
}

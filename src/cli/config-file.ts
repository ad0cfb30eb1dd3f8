import { readFileSync } from 'node:fs';
import { extname } from 'node:path';
import { parseDocument } from 'yaml';
import { ConfigError, type ConfigProblem } from '../errors/config-error';
import type { JsonSchema } from '../formats/data-format';
import type { FormatRegistry } from '../formats/format-registry';
import { resolveConfig, type OriginConfig } from '../origin/config';
import { buildConfigSchema } from '../origin/config-schema';

/** What the command runs besides the origin: the in-process runner pool's settings. */
export interface PipelineFileConfig {
  /** Milliseconds between idle batches; `<= 0` turns them off. Default 60000. */
  readonly runnerIdleTimeMs?: number;
}

/** A config file split into the origin's config and the command's own `pipeline` object. */
export interface ConfigFile {
  /** The origin config (docs/config.md), resolved: validated, with every default. */
  readonly origin: OriginConfig;
  readonly pipeline: PipelineFileConfig;
}

/** The file extensions read as YAML; any other file is read as JSON. */
const YAML_EXTENSIONS = new Set(['.yaml', '.yml']);

/**
 * Reads and resolves a config file: YAML when its name ends in `.yaml` or `.yml`, JSON otherwise. The top-level
 * `$schema` key (which points an editor at `config.schema.json`) is dropped and `pipeline` is taken out; the rest
 * is the origin config, resolved against `registry` after `adjust` (the command line's overrides) changed it.
 *
 * @throws ConfigError when the file cannot be read, is not valid JSON or YAML (the problem says where), or is not
 *   an object; else with every problem of the `pipeline` object and of the origin config together.
 */
export function resolveConfigFile(
  path: string,
  registry: FormatRegistry,
  adjust: (origin: Record<string, unknown>) => void = () => {},
): ConfigFile {
  const { origin, pipeline } = readConfigFile(path);
  adjust(origin);
  const problems = pipelineProblems(pipeline);
  let resolved: OriginConfig | undefined;
  try {
    resolved = resolveConfig(origin, registry);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    problems.push(...error.problems);
  }
  if (resolved === undefined || problems.length > 0) throw new ConfigError(problems);
  return { origin: resolved, pipeline: pipeline as PipelineFileConfig };
}

function readConfigFile(path: string): { origin: Record<string, unknown>; pipeline: unknown } {
  const { $schema: _editorHint, pipeline = {}, ...origin } = readObjectFile(path, 'the origin config');
  return { origin, pipeline };
}

/**
 * Reads a file of the command that holds one object: YAML when its name ends in `.yaml` or `.yml`, JSON
 * otherwise (the config files and the gateway file).
 *
 * @throws ConfigError when the file cannot be read, does not parse (the problem says where), or is not an object.
 */
export function readObjectFile(path: string, holds: string): Record<string, unknown> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw fileProblem(`cannot be read (${error instanceof Error ? error.message : String(error)})`);
  }
  const parsed = YAML_EXTENSIONS.has(extname(path).toLowerCase()) ? parseYaml(text) : parseJson(text);
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw fileProblem(`must hold an object (${holds})`);
  }
  return parsed as Record<string, unknown>;
}

/**
 * The JSON Schema of a config file, published in the package as `config.schema.json` so that editors complete
 * and check config files: the origin config of {@link buildConfigSchema} plus the file's own keys, `$schema` and
 * `pipeline`.
 */
export function configFileSchema(registry: FormatRegistry): JsonSchema {
  const schema = buildConfigSchema(registry);
  const properties = schema['properties'] as Record<string, JsonSchema>;
  return {
    ...schema,
    title: 'rest-service-origin config file',
    description:
      'A config file of the `rest-origin` command: the origin configuration (docs/config.md), plus `pipeline` for the in-process runner pool. Point an editor at this schema with "$schema": "./node_modules/rest-service-origin/config.schema.json".',
    properties: {
      $schema: {
        type: 'string',
        description: 'The schema this file follows (for editors; ignored by the origin).',
      },
      ...properties,
      pipeline: {
        type: 'object',
        additionalProperties: false,
        default: {},
        description:
          'The in-process runner pool of the `rest-origin` command (not part of the origin config).',
        properties: {
          runnerIdleTimeMs: {
            type: 'integer',
            default: 60000,
            description: 'Milliseconds between idle batches (batches without records); <= 0 turns them off.',
          },
        },
      },
    },
  };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw fileProblem(`is not valid JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
}

function parseYaml(text: string): unknown {
  const document = parseDocument(text, { prettyErrors: true, uniqueKeys: true });
  const [first] = document.errors;
  if (first !== undefined) {
    const where = first.linePos ? ` at line ${first.linePos[0].line}, column ${first.linePos[0].col}` : '';
    throw fileProblem(`is not valid YAML${where}: ${first.message.split('\n')[0]}`);
  }
  // Numbers beyond 2^53 stay exact as strings would not: the origin config has none, so plain JS values do.
  return document.toJS();
}

function pipelineProblems(pipeline: unknown): ConfigProblem[] {
  if (typeof pipeline !== 'object' || pipeline === null || Array.isArray(pipeline)) {
    return [{ path: '/pipeline', message: 'must be object' }];
  }
  const problems: ConfigProblem[] = [];
  for (const [key, value] of Object.entries(pipeline)) {
    if (key !== 'runnerIdleTimeMs') {
      problems.push({
        path: `/pipeline/${key}`,
        message: 'is not a known key (the only one is runnerIdleTimeMs)',
      });
    } else if (typeof value !== 'number' || !Number.isInteger(value)) {
      problems.push({ path: '/pipeline/runnerIdleTimeMs', message: 'must be integer' });
    }
  }
  return problems;
}

function fileProblem(message: string): ConfigError {
  return new ConfigError([{ path: '', message: `the config file ${message}` }]);
}

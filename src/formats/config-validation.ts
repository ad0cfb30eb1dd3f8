// ajv has no `exports` map, so Node's ESM loader needs the file name of this subpath in full.
import Ajv2020, { type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import type { ConfigProblem } from '../errors/config-error';
import type { JsonSchema } from './data-format';

// The one ajv instance and the one ajv-error → ConfigProblem mapping of the package, used by `resolveConfig`
// (origin/) and `resolveFormatConfig` (formats/). It lives in formats/ because that is the lowest layer both may
// import (DESIGN §3: the origin builds on formats, formats import only errors/ and record/), and a format's
// options are the JSON Schemas it validates; a separate config/ layer for one file would add a folder and a rule.
//
// - draft 2020-12, the dialect DataFormat.configSchema is documented in.
// - `useDefaults` is what turns `{}` into a complete config; `allErrors` lists every problem in one round.
// - `verbose` puts the parent schema on each error, which the "did you mean" hint for an unknown key reads.
// - Not strict: a host's format schema may carry annotation keywords of its own (for its UI or docs), which must
//   not break either the format's own validation or the origin config that embeds it.
const ajv = new Ajv2020({ allErrors: true, useDefaults: true, verbose: true, strict: false });

/**
 * Compiles `schema` with the shared ajv instance. The validator is the caller's to cache (per registry, per
 * format): ajv's own cache is emptied of the schema at once, so that a schema dropped by its caller (a registry,
 * a host's format) is not kept alive by ajv, and two schemas may reuse an `$id`.
 *
 * @throws Error when the schema itself is invalid (ajv's message).
 */
export function compileConfigSchema(schema: JsonSchema): ValidateFunction {
  try {
    return ajv.compile(schema);
  } finally {
    ajv.removeSchema(schema);
  }
}

/**
 * How {@link configProblems} words a problem.
 *
 * - `'config'` (`resolveConfig`): `is required` at the missing key, `must not be empty` for `minLength: 1`,
 *   allowed values in single quotes, a "did you mean" hint on an unknown key, duplicates dropped.
 * - `'format'` (`resolveFormatConfig`): ajv's own message, except `is not a known option` at an unknown key and
 *   allowed values as JSON.
 *
 * The two wordings are those the two functions had before they shared this module; making them one would change
 * messages users and tests see.
 */
export type ProblemWording = 'config' | 'format';

/** The problems of a failed validation, in ajv's order, each with a JSON Pointer and a readable message. */
export function configProblems(errors: readonly ErrorObject[], wording: ProblemWording): ConfigProblem[] {
  if (wording === 'format') return errors.map(formatProblem);
  const problems: ConfigProblem[] = [];
  const seen = new Set<string>();
  for (const error of errors) {
    const problem = configProblem(error);
    const key = `${problem.path}\u0000${problem.message}`;
    if (!seen.has(key)) problems.push(problem);
    seen.add(key);
  }
  return problems;
}

function formatProblem(error: ErrorObject): ConfigProblem {
  const params = error.params as Record<string, unknown>;
  // ajv reports an unknown key at its parent; pointing at the key itself tells the user which one to remove.
  if (error.keyword === 'additionalProperties' && typeof params['additionalProperty'] === 'string') {
    return {
      path: error.instancePath + pointerSegment(params['additionalProperty']),
      message: 'is not a known option',
    };
  }
  if (error.keyword === 'enum' && Array.isArray(params['allowedValues'])) {
    const allowed = params['allowedValues'].map((v) => JSON.stringify(v)).join(', ');
    return { path: error.instancePath, message: `must be one of ${allowed}` };
  }
  return { path: error.instancePath, message: error.message ?? `fails ${error.keyword}` };
}

function configProblem(error: ErrorObject): ConfigProblem {
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      return {
        path: error.instancePath + pointerSegment(String(params['missingProperty'])),
        message: 'is required',
      };
    case 'additionalProperties': {
      const key = String(params['additionalProperty']);
      return {
        path: error.instancePath + pointerSegment(key),
        message: `is not a known option${suggestion(key, error.parentSchema)}`,
      };
    }
    case 'enum': {
      const allowed = (params['allowedValues'] as unknown[] | undefined) ?? [];
      return {
        path: error.instancePath,
        message: allowed.length === 0 ? 'has no allowed value' : `must be one of ${quoteAll(allowed)}`,
      };
    }
    case 'minLength':
      if (params['limit'] === 1) return { path: error.instancePath, message: 'must not be empty' };
      break;
  }
  return { path: error.instancePath, message: error.message ?? `fails ${error.keyword}` };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Escapes one JSON Pointer segment (RFC 6901). */
function pointerSegment(key: string): string {
  return '/' + key.replace(/~/g, '~0').replace(/\//g, '~1');
}

function quoteAll(values: readonly unknown[]): string {
  return values.map((value) => (typeof value === 'string' ? `'${value}'` : JSON.stringify(value))).join(', ');
}

/** `" (did you mean 'port'?)"` when a known key of the object is within two edits of `key`. */
function suggestion(key: string, parentSchema: unknown): string {
  if (!isObject(parentSchema) || !isObject(parentSchema['properties'])) return '';
  let best: string | undefined;
  let bestDistance = 3;
  for (const known of Object.keys(parentSchema['properties'])) {
    const distance = editDistance(key.toLowerCase(), known.toLowerCase());
    if (distance < bestDistance) {
      best = known;
      bestDistance = distance;
    }
  }
  return best === undefined ? '' : ` (did you mean '${best}'?)`;
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1);
      current.push(Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, substitution));
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}

import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import { ConfigError, type ConfigProblem } from '../errors/config-error';
import type { DataFormat } from './data-format';

// One ajv instance for every format schema; `useDefaults` is what turns `{}` into a complete config. Not strict:
// a host's format schema may carry annotation keywords of its own (for its UI or docs), which must not break it.
const ajv = new Ajv({ useDefaults: true, allErrors: true, strict: false });

// Keyed by the format object, so a host's format that is dropped takes its compiled validator with it.
const validators = new WeakMap<DataFormat<unknown>, ValidateFunction>();

/**
 * A format's options with defaults applied. `input` is the format's own sub-object of `dataFormat` (for JSON
 * `{ jsonContent: 'arrayOfObjects' }`); `undefined` stands for `{}`. The caller's object is never changed: the
 * result is a validated deep copy.
 *
 * Throws a {@link ConfigError} (`ORIGIN_CONFIG_INVALID`) listing every problem, each with a JSON Pointer relative
 * to the format's sub-object (`/maxObjectLengthChars must be >= 1`).
 */
export function resolveFormatConfig<C>(format: DataFormat<C>, input: unknown): C {
  let config: unknown;
  try {
    config = input === undefined ? {} : structuredClone(input);
  } catch {
    throw new ConfigError([
      { path: '', message: 'must be plain data (it holds a value that cannot be copied)' },
    ]);
  }
  const validate = validatorOf(format);
  if (!validate(config)) throw new ConfigError((validate.errors ?? []).map(toProblem));
  return config as C;
}

function validatorOf(format: DataFormat<unknown>): ValidateFunction {
  let validate = validators.get(format);
  if (!validate) {
    validate = ajv.compile(format.configSchema);
    validators.set(format, validate);
  }
  return validate;
}

function toProblem(error: ErrorObject): ConfigProblem {
  const params = error.params as Record<string, unknown>;
  // ajv reports an unknown key at its parent; pointing at the key itself tells the user which one to remove.
  if (error.keyword === 'additionalProperties' && typeof params['additionalProperty'] === 'string') {
    return {
      path: `${error.instancePath}/${escapePointer(params['additionalProperty'])}`,
      message: 'is not a known option',
    };
  }
  if (error.keyword === 'enum' && Array.isArray(params['allowedValues'])) {
    const allowed = params['allowedValues'].map((v) => JSON.stringify(v)).join(', ');
    return { path: error.instancePath, message: `must be one of ${allowed}` };
  }
  return { path: error.instancePath, message: error.message ?? `fails ${error.keyword}` };
}

function escapePointer(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}

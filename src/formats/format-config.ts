import type { ValidateFunction } from 'ajv/dist/2020.js';
import { ConfigError } from '../errors/config-error';
import { compileConfigSchema, configProblems } from './config-validation';
import type { DataFormat } from './data-format';

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
  if (!validate(config)) throw new ConfigError(configProblems(validate.errors ?? [], 'format'));
  return config as C;
}

function validatorOf(format: DataFormat<unknown>): ValidateFunction {
  let validate = validators.get(format);
  if (!validate) {
    validate = compileConfigSchema(format.configSchema);
    validators.set(format, validate);
  }
  return validate;
}

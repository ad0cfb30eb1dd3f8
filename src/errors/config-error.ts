import { OriginError } from './origin-error';

/** One problem found in a configuration: a JSON Pointer into the config object and what is wrong there. */
export interface ConfigProblem {
  /** JSON Pointer of the offending value, e.g. `/http/port`; `''` for the whole object. */
  readonly path: string;
  readonly message: string;
}

/**
 * A configuration that cannot be used. It lists every problem found, not only the first, so one round of
 * fixes is enough.
 */
export class ConfigError extends OriginError<'ORIGIN_CONFIG_INVALID'> {
  readonly problems: readonly ConfigProblem[];

  constructor(problems: readonly ConfigProblem[]) {
    super('ORIGIN_CONFIG_INVALID', {
      count: problems.length,
      problems: problems.map((p) => `${p.path || '/'} ${p.message}`).join('; '),
    });
    this.problems = problems;
  }
}

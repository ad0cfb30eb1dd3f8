import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError, InProcessRunnerPool, Origin, echoPipeline } from 'rest-service-origin';
import { NOT_YET_BUILT, REQUIRED_WHEN_RULES } from '../../src/origin/config-schema';

const CONFIG_DOC = readFileSync(join(__dirname, '..', '..', 'docs', 'config.md'), 'utf8');

/** A config with `flag` (`<tab>.<key>`) on and the keys it requires filled in. */
function configWith(flag: string): Record<string, unknown> {
  const [tab = '', key = ''] = flag.split('.');
  const section: Record<string, unknown> = { [key]: true };
  for (const rule of REQUIRED_WHEN_RULES) {
    if (rule.tab === tab && rule.flag === key) for (const required of rule.required) section[required] = 'x';
  }
  return { dataFormat: { format: 'json' }, [tab]: section };
}

describe('options of features not built yet', () => {
  const pool = new InProcessRunnerPool(10, echoPipeline, { runnerIdleTimeMs: 0 });
  afterAll(() => pool.close());

  // Loops rather than it.each: the list is empty whenever every feature is built, and it.each refuses an empty table.
  it('refuses each flag of a feature not built yet in new Origin', () => {
    for (const { flag } of NOT_YET_BUILT) {
      let error: unknown;
      try {
        new Origin(configWith(flag), { runners: pool });
      } catch (caught) {
        error = caught;
      }
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).problems.map((p) => p.path)).toContain(`/${flag.replace('.', '/')}`);
    }
  });

  it('marks each option of a feature not built yet in docs/config.md', () => {
    for (const { options, issue } of NOT_YET_BUILT) {
      for (const option of options) {
        const row = CONFIG_DOC.split('\n').find((line) => line.startsWith(`| \`${option}\` |`));
        expect(row).toContain(`**Not built yet** (issue ${issue})`);
      }
    }
  });

  it('marks nothing else: TLS and Kerberos are built (or being built)', () => {
    const marked = CONFIG_DOC.split('\n').filter((line) => line.includes('**Not built yet** (issue'));
    expect(marked).toHaveLength(NOT_YET_BUILT.flatMap((f) => f.options).length);
    expect(marked.join('\n')).not.toMatch(/`(tls|http\.(useKerberosWithSpnego|kerberosRealm))/);
  });
});

import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { InProcessRunnerPool, Origin, echoPipeline } from 'rest-service-origin';

// Every format page ends with "Try it": a complete config (```json config), a curl command (```sh curl) and the
// answer (```json answer). This runs them as written: the origin the CLI would serve (echo pipeline) and the
// real curl, against the answer the page shows.
const ROOT = join(__dirname, '..', '..');
const PAGES = join(ROOT, 'docs', 'formats');
const DOC_URL = 'http://localhost:8000/';

interface Example {
  readonly config: Record<string, unknown> & { http?: Record<string, unknown> };
  readonly curl: string;
  readonly answer: unknown;
}

function block(page: string, info: string): string {
  const match = new RegExp('```' + info + '\\n([\\s\\S]*?)\\n```').exec(page);
  if (!match?.[1]) throw new Error(`no \`\`\`${info} block`);
  return match[1];
}

function exampleOf(file: string): Example {
  const page = readFileSync(join(PAGES, file), 'utf8');
  return {
    config: JSON.parse(block(page, 'json config')) as Example['config'],
    curl: block(page, 'sh curl'),
    answer: JSON.parse(block(page, 'json answer')),
  };
}

const pages = readdirSync(PAGES).filter((f) => f.endsWith('.md'));

describe('the Try it example of every format page', () => {
  it('covers every format page', () => {
    expect(pages.length).toBeGreaterThanOrEqual(9);
  });

  it.each(pages)('%s: curl gets the answer the page shows', async (file) => {
    const example = exampleOf(file);
    expect(example.curl).toContain(DOC_URL);
    expect(example.config.http?.['port']).toBe(8000);
    const config = { ...example.config, http: { ...example.config.http, host: '127.0.0.1', port: 0 } };
    const pool = new InProcessRunnerPool(10, echoPipeline, { runnerIdleTimeMs: 0 });
    const origin = new Origin(config, { runners: pool });
    try {
      const url = await origin.start();
      const command = example.curl.replaceAll(DOC_URL, url);
      // Asynchronous: the origin answers on this thread while curl runs.
      const { stdout } = await promisify(execFile)('sh', ['-c', command], {
        cwd: ROOT,
        encoding: 'utf8',
        timeout: 20_000,
      });
      expect(JSON.parse(stdout)).toEqual(example.answer);
    } finally {
      await origin.destroy();
      await pool.close();
    }
  });
});

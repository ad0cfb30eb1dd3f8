/**
 * Writes `docs/errors.md` (from the error table), `docs/config.md` (from the configuration schema of the
 * built-in formats) and `config.schema.json` (the JSON Schema of a config file, published in the package). Run with `npm run docs:generate` after changing either; `tests/docs/generated-docs.test.ts`
 * fails while the committed files differ from what this writes.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { defaultRegistry } from '../src/formats/built-in';
import { renderConfigDoc, renderConfigSchemaFile, renderErrorsDoc } from './doc-renderers';

const docs = new URL('../docs/', import.meta.url);

await mkdir(docs, { recursive: true });
await writeFile(new URL('errors.md', docs), renderErrorsDoc());
await writeFile(new URL('config.md', docs), renderConfigDoc(defaultRegistry));
await writeFile(new URL('../config.schema.json', import.meta.url), renderConfigSchemaFile(defaultRegistry));
console.log('Wrote docs/errors.md, docs/config.md and config.schema.json');

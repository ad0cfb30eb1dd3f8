import { readFile, realpath } from 'node:fs/promises';
import { dirname, isAbsolute, relative, resolve } from 'node:path';
import { ConfigError } from '../errors/config-error';

/** A file xmllint reads besides the schema: an imported or included schema under the name the schema uses. */
export interface XmlSchemaFile {
  readonly fileName: string;
  readonly contents: string;
}

/** An `httpResponse.xmlSchema` ready for xmllint: its text and the files it imports, includes or redefines. */
export interface LoadedXmlSchema {
  /** The schema text, its `schemaLocation`s rewritten to the names of {@link imports}. */
  readonly schema: string;
  readonly imports: readonly XmlSchemaFile[];
}

const OPTION_PATH = '/httpResponse/xmlSchema';
// `schemaLocation` of xs:import, xs:include, xs:redefine and xs:override (any prefix, either quote).
const LOCATION =
  /(<(?:[\w.-]+:)?(?:import|include|redefine|override)\b[^>]*?\bschemaLocation\s*=\s*)("[^"]*"|'[^']*')/g;
// A URI scheme (`http:`, `file:`, `urn:` …); a Windows drive letter is a path, not a scheme.
const SCHEME = /^[A-Za-z][A-Za-z0-9+.-]+:/;
// Bounds the files one schema can pull in, so a config cannot make start() read a whole tree.
const MAX_FILES = 200;

/**
 * Makes `schema` (XSD 1.0 text) ready for validation and proves that it compiles, so that a broken schema is found
 * at `start()` rather than by every request (docs/decisions/0058-xml-schema-compiled-at-start.md).
 *
 * Imports, includes, redefines and overrides are read from files: a relative `schemaLocation` resolves against
 * `resourcesDirectory` (`''` = the working directory) for the schema itself and against the importing file's
 * directory for the files it pulls in, and must stay inside `resourcesDirectory` after symbolic links are
 * followed (ADR 0032); an absolute one is read as it is. A URL is refused: nothing is fetched.
 *
 * @throws ConfigError (`ORIGIN_CONFIG_INVALID`, path `/httpResponse/xmlSchema`) naming an import that is a URL,
 *   lies outside the resources directory or cannot be read, or the first errors xmllint gives compiling it.
 */
export async function loadXmlSchema(schema: string, resourcesDirectory: string): Promise<LoadedXmlSchema> {
  const loader = new ImportLoader(resourcesDirectory);
  const text = await loader.rewrite(schema, resolve(resourcesDirectory), 'xmlSchema');
  const loaded = { schema: text, imports: loader.files };
  await proveCompiles(loaded);
  return loaded;
}

/** Reads every file a schema pulls in, giving each a flat name in xmllint's in-memory file system. */
class ImportLoader {
  readonly files: XmlSchemaFile[] = [];
  readonly #directory: string;
  /** Real path → flat name, so that a file imported twice (or in a cycle) is read once. */
  readonly #names = new Map<string, string>();

  constructor(resourcesDirectory: string) {
    this.#directory = resolve(resourcesDirectory);
  }

  /** `text` with each `schemaLocation` replaced by the flat name of the file it names, read relative to `base`. */
  async rewrite(text: string, base: string, from: string): Promise<string> {
    const names = new Map<string, string>();
    for (const match of text.matchAll(LOCATION)) {
      const location = (match[2] ?? '""').slice(1, -1);
      if (!names.has(location)) names.set(location, await this.#load(location, base, from));
    }
    return text.replace(LOCATION, (_, head: string, quoted: string) => {
      const name = names.get(quoted.slice(1, -1)) ?? quoted.slice(1, -1);
      return `${head}"${name}"`;
    });
  }

  async #load(location: string, base: string, from: string): Promise<string> {
    const problem = (message: string): ConfigError =>
      new ConfigError([{ path: OPTION_PATH, message: `${from} imports '${location}', ${message}` }]);
    if (SCHEME.test(location) && !/^[A-Za-z]:[\\/]/.test(location)) {
      throw problem('a URL: imports are read from the resources directory, never fetched');
    }
    const path = isAbsolute(location) ? location : resolve(base, location);
    let real: string;
    try {
      real = await realpath(path);
    } catch (error) {
      throw problem(`which cannot be read: ${reason(error)}`);
    }
    if (
      !isAbsolute(location) &&
      (leaves(this.#directory, path) || leaves(await this.#realDirectory(), real))
    ) {
      throw problem(`which lies outside the resources directory ${this.#directory}`);
    }
    const known = this.#names.get(real);
    if (known !== undefined) return known;
    if (this.#names.size >= MAX_FILES) throw problem(`more than ${MAX_FILES} schema files in all`);
    const name = `import-${this.#names.size + 1}.xsd`;
    this.#names.set(real, name);
    let contents: string;
    try {
      contents = await readFile(real, 'utf8');
    } catch (error) {
      throw problem(`which cannot be read: ${reason(error)}`);
    }
    const file = { fileName: name, contents: '' };
    this.files.push(file);
    file.contents = await this.rewrite(contents, dirname(real), location);
    return name;
  }

  async #realDirectory(): Promise<string> {
    try {
      return await realpath(this.#directory);
    } catch {
      return this.#directory;
    }
  }
}

function leaves(base: string, path: string): boolean {
  const rel = relative(base, path);
  return rel === '' || rel.startsWith('..') || isAbsolute(rel);
}

function reason(error: unknown): string {
  // Not `instanceof Error`: errors of node:fs may come from another realm (a vm context, a worker).
  const message = (error as { message?: unknown } | null)?.message;
  return typeof message === 'string' ? message : String(error);
}

/** Runs xmllint on a probe document: a schema that does not compile makes it fail, whatever the document. */
async function proveCompiles(loaded: LoadedXmlSchema): Promise<void> {
  const { validateXML } = await import('xmllint-wasm');
  try {
    await validateXML({
      xml: [{ fileName: 'probe.xml', contents: '<probe/>' }],
      schema: [{ fileName: 'schema.xsd', contents: loaded.schema }],
      preload: loaded.imports,
    });
  } catch (error) {
    const lines = reason(error)
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => /error|warning/i.test(line) && !/failed to compile$/.test(line));
    const detail = lines.slice(0, 3).join('; ') || reason(error).trim();
    throw new ConfigError([{ path: OPTION_PATH, message: `does not compile as an XML Schema: ${detail}` }]);
  }
}

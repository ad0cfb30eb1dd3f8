import { ConfigError } from '../../errors/config-error';

/** One `prefix` → `uri` pair of the XML format's `namespaces` option. */
export interface XmlNamespace {
  readonly prefix: string;
  readonly uri: string;
}

/** What a step of a delimiter path sees of an element: sax's view of it with `xmlns` on. */
export interface XmlElementView {
  /** The qualified name as written (`p:item`). */
  readonly name: string;
  readonly local: string;
  readonly uri: string;
  readonly attributes: Readonly<Record<string, { readonly value: string }>>;
}

interface Predicate {
  readonly attribute: string;
  /** `undefined`: the attribute only has to be present. */
  readonly value: string | undefined;
}

interface Step {
  /** `undefined` for `*`. */
  readonly name: string | undefined;
  /** Set when the step's prefix is one of the configured namespaces: match by namespace URI and local name. */
  readonly uri: string | undefined;
  readonly local: string;
  readonly predicates: readonly Predicate[];
}

/**
 * Which elements start a record: the compiled `delimiterElement` option.
 *
 * - `''`: the document element (the whole document is one record).
 * - `item`: an element called `item` directly under the document element (same as `/*\/item`).
 * - A simplified XPath: absolute steps separated by `/`, each a name, `p:name` or `*`, each optionally followed
 *   by predicates `[@attr]` or `[@attr='value']` (either quote). A step's prefix that is one of `namespaces`
 *   matches by namespace URI and local name; any other name matches the qualified name as written.
 *
 * Steps are matched element by element from the document element down, so an element matches when its depth is
 * the number of steps and it and every ancestor match their step. `//`, axes, positions and functions are not
 * part of the subset: they are refused when the parser is made.
 */
export class XmlDelimiter {
  readonly #steps: readonly Step[];

  /** @throws ConfigError (`ORIGIN_CONFIG_INVALID`, path `/delimiterElement`) for text outside the subset. */
  constructor(delimiterElement: string, namespaces: readonly XmlNamespace[]) {
    const uris = new Map(namespaces.map((ns) => [ns.prefix, ns.uri]));
    const text = delimiterElement.trim();
    if (text === '') {
      this.#steps = [{ name: undefined, uri: undefined, local: '', predicates: [] }];
    } else if (!text.startsWith('/')) {
      this.#steps = [{ name: undefined, uri: undefined, local: '', predicates: [] }, parseStep(text, uris)];
    } else {
      this.#steps = text
        .slice(1)
        .split('/')
        .map((step) => parseStep(step, uris));
    }
  }

  /** Depth (0 = document element) at which records start. */
  get depth(): number {
    return this.#steps.length - 1;
  }

  /** Whether `element`, at `depth`, matches the step of that depth (ancestors are checked by the caller). */
  matches(element: XmlElementView, depth: number): boolean {
    const step = this.#steps[depth];
    if (step === undefined) return false;
    if (step.name !== undefined) {
      if (step.uri !== undefined) {
        if (element.uri !== step.uri || element.local !== step.local) return false;
      } else if (element.name !== step.name) {
        return false;
      }
    }
    for (const predicate of step.predicates) {
      const attribute = element.attributes[predicate.attribute];
      if (attribute === undefined) return false;
      if (predicate.value !== undefined && attribute.value !== predicate.value) return false;
    }
    return true;
  }
}

// A name is a local name with an optional prefix, neither holding whitespace or a character XPath syntax uses,
// so functions (`text()`), axes (`child::a`) and positions (`[1]`) do not match.
const NAME = `[^\\s/[\\]@=*'"():,]+(?::[^\\s/[\\]@=*'"():,]+)?`;
const STEP = new RegExp(`^(\\*|${NAME})((?:\\[@${NAME}(?:=(?:'[^']*'|"[^"]*"))?\\])*)$`);
const PREDICATE = new RegExp(`\\[@(${NAME})(?:=(?:'([^']*)'|"([^"]*)"))?\\]`, 'g');

function parseStep(text: string, uris: ReadonlyMap<string, string>): Step {
  const match = STEP.exec(text);
  if (!match) {
    throw new ConfigError([
      {
        path: '/delimiterElement',
        message: `step '${text}' is not an element name, '*', or a name with [@attr] / [@attr='value'] predicates`,
      },
    ]);
  }
  const name = match[1] === '*' ? undefined : match[1];
  const predicates: Predicate[] = [];
  for (const p of (match[2] ?? '').matchAll(PREDICATE)) {
    predicates.push({ attribute: p[1] ?? '', value: p[2] ?? p[3] });
  }
  const colon = name?.indexOf(':') ?? -1;
  const uri = name !== undefined && colon > 0 ? uris.get(name.slice(0, colon)) : undefined;
  return { name, uri, local: name === undefined ? '' : name.slice(colon + 1), predicates };
}

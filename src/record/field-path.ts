/**
 * Field paths as the engine writes them.
 *
 * Grammar: the empty path `''` and `'/'` name the root. Otherwise a path is a sequence of segments, each either
 * `/name` (a key of a MAP or LIST_MAP) or `[n]` (a position in a LIST, or the n-th entry of a LIST_MAP):
 * `/a/b[0]/c`, `[2]/x` (the root is a LIST; `/[2]/x` is read the same way). A name holding anything but letters,
 * digits and `_` may be quoted in single or double quotes, where a backslash takes the next character literally:
 * `/'a/b'`, `/"x[1]"`, `/'it\'s'`, `/'back\\slash'`. Unquoted names may hold any character except `/ [ ] ' " \`;
 * the empty name is written `/''`.
 */

/** One step of a field path: a key of a MAP or LIST_MAP, or a position in a LIST or LIST_MAP. */
export type PathSegment =
  { readonly kind: 'key'; readonly key: string } | { readonly kind: 'index'; readonly index: number };

const ROOT: readonly PathSegment[] = Object.freeze([]);

// Pipelines read the same few paths from every record of a batch, so parsed paths are kept; the bound keeps a
// host that builds paths from data from growing the cache without limit.
const CACHE_LIMIT = 1024;
const cache = new Map<string, readonly PathSegment[]>();

/**
 * Parses a field path into segments.
 *
 * The result is frozen and may be shared between callers (parsed paths are cached), so treat it as read-only.
 *
 * @throws RangeError for a malformed path, naming the path and the 0-based position of the problem; a malformed
 *   path is a programmer error, so it is thrown rather than reported as data.
 */
export function parseFieldPath(path: string): readonly PathSegment[] {
  if (path === '' || path === '/') return ROOT;
  const cached = cache.get(path);
  if (cached !== undefined) return cached;
  const segments = Object.freeze(parseUncached(path));
  if (cache.size >= CACHE_LIMIT) cache.clear();
  cache.set(path, segments);
  return segments;
}

/**
 * Writes segments as a field path that {@link parseFieldPath} reads back to the same segments. Keys made only of
 * letters, digits and `_` are written bare; any other key (including the empty key) is single-quoted with `\` and
 * `'` escaped, as the engine quotes names with non-word characters. No segments give `'/'`, the root.
 *
 * @throws RangeError when an index segment is not a non-negative safe integer.
 */
export function formatFieldPath(segments: readonly PathSegment[]): string {
  if (segments.length === 0) return '/';
  let out = '';
  for (const segment of segments) {
    if (segment.kind === 'index') {
      if (!Number.isSafeInteger(segment.index) || segment.index < 0) {
        throw new RangeError(`Field path index ${segment.index} is not a non-negative safe integer.`);
      }
      out += `[${segment.index}]`;
    } else {
      out += '/' + formatKey(segment.key);
    }
  }
  return out;
}

const WORD_KEY = /^\w+$/;

function formatKey(key: string): string {
  if (WORD_KEY.test(key)) return key;
  return `'${key.replace(/[\\']/g, '\\$&')}'`;
}

function malformed(path: string, position: number, problem: string): RangeError {
  return new RangeError(`Malformed field path ${JSON.stringify(path)} at position ${position}: ${problem}.`);
}

function parseUncached(path: string): PathSegment[] {
  const segments: PathSegment[] = [];
  let i = 0;
  // `/[0]` is accepted for a LIST root, though `[0]` is how it is written.
  if (path.startsWith('/[')) i = 1;
  while (i < path.length) {
    const c = path[i];
    if (c === '[') {
      const close = path.indexOf(']', i + 1);
      if (close < 0) throw malformed(path, i, "'[' without a closing ']'");
      const digits = path.slice(i + 1, close);
      if (!/^\d+$/.test(digits))
        throw malformed(path, i + 1, `index ${JSON.stringify(digits)} is not a number`);
      const index = Number(digits);
      if (!Number.isSafeInteger(index)) throw malformed(path, i + 1, `index ${digits} is too large`);
      segments.push({ kind: 'index', index });
      i = close + 1;
    } else if (c === '/') {
      i = parseKey(path, i + 1, segments);
    } else {
      throw malformed(path, i, `expected '/' or '[' but found ${JSON.stringify(c)}`);
    }
  }
  return segments;
}

/** Reads the key that starts at `start` (just after a `/`), pushes it and returns where the next segment starts. */
function parseKey(path: string, start: number, segments: PathSegment[]): number {
  const quote = path[start];
  if (quote === "'" || quote === '"') {
    let key = '';
    let i = start + 1;
    for (;;) {
      if (i >= path.length) throw malformed(path, start, `quoted name without a closing ${quote}`);
      const c = path[i] as string;
      if (c === '\\') {
        if (i + 1 >= path.length) throw malformed(path, i, 'backslash at the end of the path');
        key += path[i + 1];
        i += 2;
      } else if (c === quote) {
        i += 1;
        break;
      } else {
        key += c;
        i += 1;
      }
    }
    if (i < path.length && path[i] !== '/' && path[i] !== '[') {
      throw malformed(
        path,
        i,
        `expected '/' or '[' after the quoted name but found ${JSON.stringify(path[i])}`,
      );
    }
    segments.push({ kind: 'key', key });
    return i;
  }
  let i = start;
  while (i < path.length) {
    const c = path[i];
    if (c === '/' || c === '[') break;
    if (c === ']' || c === "'" || c === '"' || c === '\\') {
      throw malformed(path, i, `${JSON.stringify(c)} in an unquoted name; quote the name`);
    }
    i += 1;
  }
  if (i === start) throw malformed(path, start, "empty name; write the empty name as ''");
  segments.push({ kind: 'key', key: path.slice(start, i) });
  return i;
}

import { field, type FieldValue, type PlainMap } from '../../record/field';

/**
 * Why a JSON text is not valid JSON: `position` is the UTF-16 index in the text where the problem is found,
 * `detail` a short lower-case phrase (`expected ',' or '}' after an object member but found ']'`).
 */
export class JsonSyntaxError extends Error {
  override readonly name = 'JsonSyntaxError';
  readonly position: number;
  readonly detail: string;

  constructor(position: number, detail: string) {
    super(`${detail} (at position ${position})`);
    this.position = position;
    this.detail = detail;
  }
}

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);
const INT64_MAX = (1n << 63n) - 1n;
const INT64_MIN = -(1n << 63n);

/**
 * The value of one integer token (`-?digits`, already checked against the JSON grammar), typed by magnitude:
 * a safe integer is a `number`, a larger one within the signed 64-bit range a `bigint` (LONG), anything beyond
 * that a DECIMAL {@link TypedField} holding the token's exact digits.
 */
export function exactInteger(token: string): FieldValue {
  const digits = token.charCodeAt(0) === 0x2d ? token.length - 1 : token.length;
  // Every integer of up to 15 digits is below 2^53, so only longer ones need the exact check.
  if (digits <= 15) return Number(token);
  const big = BigInt(token);
  if (big >= -MAX_SAFE && big <= MAX_SAFE) return Number(token);
  if (big >= INT64_MIN && big <= INT64_MAX) return big;
  return field('DECIMAL', token);
}

/**
 * Decodes one JSON text exactly. It accepts precisely what `JSON.parse` accepts (RFC 8259; whitespace around the
 * value) and builds the same tree, except that integers keep their exact value (see {@link exactInteger})
 * where `JSON.parse` would round them to the nearest double. A key `__proto__` becomes an own property, as with
 * `JSON.parse`; a repeated key keeps its first position and its last value.
 *
 * It is slower than `JSON.parse`, so the JSON parser sends it only the values whose text has a run of 16 or
 * more digits. It is iterative, so nesting depth is bounded by memory, not by the call stack.
 *
 * @throws {@link JsonSyntaxError} with the position and reason when `text` is not valid JSON.
 */
export function decodeJsonExact(text: string): FieldValue {
  return new ExactDecoder(text).decode();
}

/** Where `text` stops being valid JSON, or `undefined` when it is valid. */
export function findJsonSyntaxError(text: string): JsonSyntaxError | undefined {
  try {
    new ExactDecoder(text).decode();
    return undefined;
  } catch (error) {
    if (error instanceof JsonSyntaxError) return error;
    throw error;
  }
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

const ESCAPES: Readonly<Record<string, string>> = {
  '"': '"',
  '\\': '\\',
  '/': '/',
  b: '\b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
};

class ExactDecoder {
  readonly #text: string;
  #pos = 0;

  constructor(text: string) {
    this.#text = text;
  }

  decode(): FieldValue {
    const text = this.#text;
    // Open containers, innermost last, with the key each open object is waiting to fill.
    const containers: (FieldValue[] | PlainMap)[] = [];
    const keys: string[] = [];
    let value: FieldValue;

    parseValue: for (;;) {
      this.#skipWhitespace();
      const c = text.charCodeAt(this.#pos);
      if (c === 0x7b) {
        this.#pos++;
        this.#skipWhitespace();
        if (text.charCodeAt(this.#pos) === 0x7d) {
          this.#pos++;
          value = {};
        } else {
          containers.push({});
          keys.push(this.#readKey());
          continue parseValue;
        }
      } else if (c === 0x5b) {
        this.#pos++;
        this.#skipWhitespace();
        if (text.charCodeAt(this.#pos) === 0x5d) {
          this.#pos++;
          value = [];
        } else {
          containers.push([]);
          keys.push('');
          continue parseValue;
        }
      } else if (c === QUOTE) {
        value = this.#readString();
      } else if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
        value = this.#readNumber();
      } else if (text.startsWith('true', this.#pos)) {
        this.#pos += 4;
        value = true;
      } else if (text.startsWith('false', this.#pos)) {
        this.#pos += 5;
        value = false;
      } else if (text.startsWith('null', this.#pos)) {
        this.#pos += 4;
        value = null;
      } else {
        throw this.#unexpected('where a value was expected');
      }

      // Attach the finished value to its container; a closing bracket finishes that container in turn.
      for (;;) {
        const parent = containers[containers.length - 1];
        if (parent === undefined) break parseValue;
        this.#skipWhitespace();
        const next = text.charCodeAt(this.#pos);
        if (Array.isArray(parent)) {
          parent.push(value);
          if (next === 0x2c) {
            this.#pos++;
            continue parseValue;
          }
          if (next !== 0x5d) throw this.#unexpected("after an array element, where ',' or ']' was expected");
        } else {
          setMember(parent, keys[keys.length - 1] ?? '', value);
          if (next === 0x2c) {
            this.#pos++;
            this.#skipWhitespace();
            keys[keys.length - 1] = this.#readKey();
            continue parseValue;
          }
          if (next !== 0x7d) throw this.#unexpected("after an object member, where ',' or '}' was expected");
        }
        this.#pos++;
        containers.pop();
        keys.pop();
        value = parent;
      }
    }

    this.#skipWhitespace();
    if (this.#pos < text.length) throw this.#unexpected('after the end of the value');
    return value;
  }

  /** Reads `"key"` and the `:` after it, leaving the position at the member's value. */
  #readKey(): string {
    if (this.#text.charCodeAt(this.#pos) !== QUOTE) {
      throw this.#unexpected('where a property name in double quotes was expected');
    }
    const key = this.#readString();
    this.#skipWhitespace();
    if (this.#text.charCodeAt(this.#pos) !== 0x3a)
      throw this.#unexpected("after a property name, where ':' was expected");
    this.#pos++;
    return key;
  }

  #readString(): string {
    const text = this.#text;
    let pos = this.#pos + 1;
    let start = pos;
    let out = '';
    for (;;) {
      if (pos >= text.length) throw new JsonSyntaxError(this.#pos, 'the string is not terminated');
      const c = text.charCodeAt(pos);
      if (c === QUOTE) {
        this.#pos = pos + 1;
        return out + text.slice(start, pos);
      }
      if (c === BACKSLASH) {
        out += text.slice(start, pos);
        const e = text[pos + 1] ?? '';
        const simple = ESCAPES[e];
        if (simple !== undefined) {
          out += simple;
          pos += 2;
        } else if (e === 'u' && /^[0-9a-fA-F]{4}$/.test(text.slice(pos + 2, pos + 6))) {
          out += String.fromCharCode(parseInt(text.slice(pos + 2, pos + 6), 16));
          pos += 6;
        } else {
          throw new JsonSyntaxError(
            pos,
            `invalid escape sequence '${text.slice(pos, pos + (e === 'u' ? 6 : 2))}'`,
          );
        }
        start = pos;
        continue;
      }
      if (c < 0x20)
        throw new JsonSyntaxError(pos, `unescaped control character ${describeCode(c)} in a string`);
      pos++;
    }
  }

  #readNumber(): FieldValue {
    const text = this.#text;
    const start = this.#pos;
    let pos = start;
    if (text.charCodeAt(pos) === 0x2d) pos++;
    const first = text.charCodeAt(pos);
    if (first === 0x30) pos++;
    else if (first >= 0x31 && first <= 0x39) pos = skipDigits(text, pos);
    else throw new JsonSyntaxError(pos, 'a number has no digits after its minus sign');
    let integer = true;
    if (text.charCodeAt(pos) === 0x2e) {
      const digits = skipDigits(text, pos + 1);
      if (digits === pos + 1)
        throw new JsonSyntaxError(digits, 'a number has no digits after its decimal point');
      pos = digits;
      integer = false;
    }
    const e = text.charCodeAt(pos);
    if (e === 0x65 || e === 0x45) {
      pos++;
      const sign = text.charCodeAt(pos);
      if (sign === 0x2b || sign === 0x2d) pos++;
      const digits = skipDigits(text, pos);
      if (digits === pos) throw new JsonSyntaxError(digits, 'a number has no digits in its exponent');
      pos = digits;
      integer = false;
    }
    this.#pos = pos;
    const token = text.slice(start, pos);
    return integer ? exactInteger(token) : Number(token);
  }

  #skipWhitespace(): void {
    const text = this.#text;
    let pos = this.#pos;
    for (;;) {
      const c = text.charCodeAt(pos);
      if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) break;
      pos++;
    }
    this.#pos = pos;
  }

  #unexpected(where: string): JsonSyntaxError {
    const c = this.#text.codePointAt(this.#pos);
    if (c === undefined) return new JsonSyntaxError(this.#pos, `the input ends ${where}`);
    return new JsonSyntaxError(this.#pos, `unexpected character ${describeCode(c)} ${where}`);
  }
}

function skipDigits(text: string, from: number): number {
  let pos = from;
  for (;;) {
    const c = text.charCodeAt(pos);
    // Written so that NaN (past the end) also stops.
    if (!(c >= 0x30 && c <= 0x39)) return pos;
    pos++;
  }
}

function setMember(target: PlainMap, key: string, value: FieldValue): void {
  // Plain assignment of `__proto__` would replace the prototype instead of adding a member.
  if (key === '__proto__') {
    Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
  } else {
    target[key] = value;
  }
}

/** `'x'` for a printable ASCII character, `U+XXXX` for anything else. */
export function describeCode(code: number): string {
  if (code >= 0x21 && code <= 0x7e) return `'${String.fromCharCode(code)}'`;
  return `U+${code.toString(16).toUpperCase().padStart(4, '0')}`;
}

import sax, { type QualifiedTag, type SAXOptions, type SAXParser } from 'sax';
import { TextDecoder } from 'node:util';
import { OriginError } from '../../errors/origin-error';
import { field, isTypedField, type FieldValue, type PlainMap } from '../../record/field';
import {
  MAX_EXCERPT_CHARS,
  type ParsedRecord,
  type ParseFailure,
  type ParseResult,
  type Parser,
} from '../data-format';
import { failure } from '../failure';
import { XmlDelimiter } from './xml-delimiter';
import type { XmlFormatConfig } from './xml-options';

/** The options an {@link XmlParser} needs: the XML format's config with defaults applied. */
export type XmlParserOptions = XmlFormatConfig;

/** One element of the record being built. */
interface Frame {
  readonly name: string;
  readonly map: PlainMap;
  /** XML attributes and namespace declarations, when they become field attributes. */
  readonly attributes: Record<string, string> | undefined;
  text: string;
  hasChildren: boolean;
}

/** The excerpt of a failure never needs more characters than this. */
const EXCERPT_CHARS = MAX_EXCERPT_CHARS;

// Every ASCII control character except tab, line feed and carriage return.
// eslint-disable-next-line no-control-regex
const CONTROL_CHARACTERS = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g;

const NON_WHITESPACE = /\S/;

/**
 * Text is written to sax in slices of at most this many characters, so that its buffers and attribute list are
 * checked against the limits while a token is still being read, not after a whole chunk of it. 1,024 rather than
 * 16,384, for unknown declarations (see {@link LONGEST_DECLARATION_PREFIX}); 256 would cost about a tenth of the XML
 * throughput, 1,024 costs none measurable (`npm run bench:parsers -- xml`).
 */
const SAX_SLICE_CHARS = 1024;

/**
 * The most characters sax holds after `<!` before it knows the declaration: `[CDATA` and `DOCTYP` are six, and the
 * next character decides (`--` decides at two). sax holds an unknown declaration whole and, for every character
 * it adds, matches two regular expressions against all of it so far: a body of `<!` and 116 KB without `>` took
 * 34 s (found by `npm run fuzz`). XML allows no other `<!` outside a DTD, so one that holds more than this at the
 * end of a slice is malformed, and sax's `onsgmldeclaration` (the `>` of a shorter one) ends the parse too. A
 * declaration is thus never read past the slice it began in: at most about 5 ms of sax's work.
 */
const LONGEST_DECLARATION_PREFIX = 6;

/** The failure detail of a `<!` that starts no comment, CDATA section or DOCTYPE. */
const UNKNOWN_DECLARATION = "'<!' starts no comment, CDATA section or DOCTYPE";

/** Thrown out of sax's error handler to end the read in progress (see the handler). */
const STOP_READING = new Error('the XML read stops at its first error');

/**
 * sax's buffers of one token each, by the name a failure gives the token. Its buffer of a `<!` declaration is not
 * among them: an unknown one is malformed long before any token limit (see {@link LONGEST_DECLARATION_PREFIX}).
 */
const SAX_BUFFERS = {
  comment: 'comment',
  doctype: 'DOCTYPE',
  procInstName: 'processing instruction',
  procInstBody: 'processing instruction',
  cdata: 'CDATA section',
  tagName: 'element name',
  attribName: 'attribute name',
  attribValue: 'attribute value',
  entity: 'entity reference',
  textNode: 'text',
} as const;

/** The parts of sax's parser state the limits read (sax's own, undocumented, stable since sax 1.0). */
type SaxInternals = {
  readonly attribList: unknown[];
  /** What sax holds of a `<!` declaration it does not know yet (never past {@link LONGEST_DECLARATION_PREFIX}). */
  readonly sgmlDecl?: string;
} & {
  readonly [K in keyof typeof SAX_BUFFERS]?: string;
};

/**
 * Parses one XML body into records, on sax in strict mode (well-formedness is checked; a non-XML body is a
 * failure, never a guess).
 *
 * Records: one per element matched by `delimiterElement` (see {@link XmlDelimiter}), or the document element
 * when it is `''`. An element becomes a MAP: XML attributes become `attr|<name>` fields and namespace
 * declarations `ns|<declaration>` fields (or, with `outputFieldAttributes`, field attributes `xmlAttr:<name>`
 * and `xmlns:<prefix>` of the element's MAP); each child element name becomes a key whose value is always a LIST
 * of the child elements of that name, in document order; the text of an element without child elements becomes
 * `value` (a STRING, untrimmed; whitespace-only text and the text of mixed content are dropped); comments and
 * processing instructions are skipped. Maps are plain objects: no key can look like an integer (XML names cannot
 * start with a digit, and generated keys hold `|` or are `value`), so their order is document order.
 *
 * Failures: a record longer than `maxRecordLengthChars` (counted from its start tag's `<` to its end tag's `>`) is
 * an `ORIGIN_XML_RECORD_TOO_LONG` failure and parsing goes on; its tree is dropped as soon as it passes the limit,
 * so memory stays bounded by the limit. A record whose elements nest deeper than `maxNestingDepth` (the record
 * element is 1) is an `ORIGIN_XML_TOO_DEEP` failure and parsing goes on; its tree is dropped at the first element
 * too deep, so no later step runs out of call stack on it. Malformed XML is an `ORIGIN_XML_MALFORMED` failure naming line and column,
 * after which the rest of the body is ignored (`canContinue: false`).
 *
 * Security: DTDs are never read. A DOCTYPE is skipped as text; an entity reference other than the five of XML
 * and character references is malformed, so an external entity (XXE) is never fetched and entity expansion
 * (billion laughs) cannot happen.
 *
 * Byte offsets count UTF-8 bytes of the decoded text (after charset decoding, BOM and control-character removal).
 */
export class XmlParser implements Parser {
  readonly #options: XmlParserOptions;
  readonly #delimiter: XmlDelimiter;
  /** Set once the encoding is known: at once for a configured charset, after the document's head otherwise. */
  #decoder: TextDecoder | undefined;
  /** Bytes held while the encoding is sniffed from the byte order mark and the XML declaration. */
  #head: Buffer | undefined;
  readonly #sax: SAXParser;
  #records: ParsedRecord[] = [];
  #failures: ParseFailure[] = [];

  /** Decoded text kept from char position `#textStart` on (whose UTF-8 offset is `#textStartBytes`). */
  #text = '';
  #textStart = 0;
  #textStartBytes = 0;

  /** Open elements, and for each element outside a record whether it and its ancestors match the delimiter. */
  #depth = 0;
  readonly #names: string[] = [];
  readonly #matched: boolean[] = [];
  #seenRoot = false;
  #failed = false;
  /** Characters written to sax so far, and the count at which the limits are checked next (see #write). */
  #saxChars = 0;
  #nextCheck = SAX_SLICE_CHARS;
  #index = 0;

  /** Char position of the current record's `<`; -1 outside records. */
  #recordStart = -1;
  #recordBytes = 0;
  #recordDepth = 0;
  #recordPath = '';
  #recordTooLong = false;
  /** Set once the record nests deeper than `maxNestingDepth`: its value is no longer built. */
  #recordTooDeep = false;
  #excerptHead: string | undefined;
  #frames: Frame[] = [];
  #recordValue: FieldValue = null;
  #namespaces: Map<string, string> | undefined;

  /**
   * @throws `OriginError('ORIGIN_CHARSET_UNSUPPORTED')` for a charset without a decoder here, and `ConfigError`
   *   for a `delimiterElement` outside the XPath subset.
   */
  constructor(options: XmlParserOptions) {
    this.#options = options;
    this.#delimiter = new XmlDelimiter(options.delimiterElement, options.namespaces);
    let decoder: TextDecoder;
    try {
      decoder = new TextDecoder(options.charset);
    } catch (error) {
      throw new OriginError('ORIGIN_CHARSET_UNSUPPORTED', { charset: options.charset }, { cause: error });
    }
    // UTF-8, the default, leaves the encoding to the document (docs/decisions/0059-xml-input-encoding-from-the-document.md).
    if (decoder.encoding === 'utf-8') this.#head = Buffer.alloc(0);
    else this.#decoder = decoder;
    // strictEntities: only the five XML entities; sax would otherwise accept HTML's (`&nbsp;`), which XML has not.
    const saxOptions: SAXOptions & { strictEntities: boolean } = {
      xmlns: true,
      position: true,
      strictEntities: true,
    };
    const parser = sax.parser(true, saxOptions);
    // sax checks its buffers only at the end of each write, flushing or failing depending on where the chunks
    // were cut; switching the check off keeps results independent of chunking. Record length is bounded here.
    (parser as unknown as { bufferCheckPosition: number }).bufferCheckPosition = Number.POSITIVE_INFINITY;
    // In xmlns mode sax looks each new attribute name up in its list of [name, value] pairs with indexOf, which
    // never finds a string among pairs: always -1, at a cost that makes one element's attributes quadratic (200k
    // attributes took 16 s). The same answer at once; sax empties the list in place, so the override stays.
    (parser as unknown as SaxInternals).attribList.indexOf = () => -1;
    parser.onopentag = (tag) => this.#open(tag as QualifiedTag);
    parser.onclosetag = () => this.#close();
    parser.ontext = (text) => this.#addText(text);
    parser.oncdata = (text) => this.#addText(text);
    parser.onsgmldeclaration = () => {
      this.#malformed(UNKNOWN_DECLARATION);
      throw STOP_READING;
    };
    parser.onerror = (error) => {
      this.#malformed(error.message.split('\n')[0] ?? error.message);
      // sax reads on after an error to the end of the text it was given, reporting further errors as it goes, and
      // after the first each costs more: a 16 KB slice of broken CDATA made 79,000 errors and took seconds. Only
      // the first counts, so the read stops here; #write catches this.
      throw STOP_READING;
    };
    this.#sax = parser;
  }

  /** Characters of decoded text held between calls: at most the record in progress, within its limit. */
  get bufferedChars(): number {
    return this.#text.length;
  }

  push(chunk: Uint8Array): ParseResult {
    if (!this.#failed) {
      const decoder = this.#decoder ?? this.#sniff(chunk, false);
      if (decoder) this.#write(decoder.decode(this.#takeHead(chunk), { stream: true }));
    }
    return this.#take();
  }

  end(): ParseResult {
    if (!this.#failed) {
      const decoder = this.#decoder ?? this.#sniff(new Uint8Array(0), true);
      if (decoder) this.#write(decoder.decode(this.#takeHead(new Uint8Array(0))));
    }
    if (!this.#failed) {
      // close() resets sax's position, so a missing root is reported before it.
      if (!this.#failed && !this.#seenRoot) this.#malformed('the document has no root element');
      if (!this.#failed) {
        try {
          this.#sax.close();
        } catch {
          // The error was reported through onerror.
        }
      }
    }
    return this.#take();
  }

  /**
   * Adds `chunk` to the bytes held while the encoding is unknown and, once they tell it (or at the end), makes
   * the decoder. An encoding the document declares that has no decoder here fails the body.
   */
  #sniff(chunk: Uint8Array, final: boolean): TextDecoder | undefined {
    const head = Buffer.concat([this.#head ?? Buffer.alloc(0), chunk]);
    this.#head = head;
    const label = sniffXmlEncoding(head, final);
    if (label === undefined) return undefined;
    try {
      this.#decoder = new TextDecoder(label);
    } catch {
      this.#malformed(`the XML declaration names encoding '${label}', which has no decoder here`);
      return undefined;
    }
    return this.#decoder;
  }

  /** The held bytes, which already hold `chunk`, once after sniffing; `chunk` itself afterwards. */
  #takeHead(chunk: Uint8Array): Uint8Array {
    const head = this.#head;
    if (head === undefined) return chunk;
    this.#head = undefined;
    return head;
  }

  #take(): ParseResult {
    const result = { records: this.#records, failures: this.#failures };
    this.#records = [];
    this.#failures = [];
    return result;
  }

  #write(decoded: string): void {
    const text = this.#options.ignoreControlCharacters ? decoded.replace(CONTROL_CHARACTERS, '') : decoded;
    if (text === '') return;
    this.#text += text;
    for (let at = 0; at < text.length && !this.#failed;) {
      // Slices end every SAX_SLICE_CHARS characters counted from the start of the body, not of the chunk, and the
      // limits are checked there only: a token over its limit is then found at the same place, with the same line,
      // offset and excerpt, however the body was chunked.
      let end = Math.min(text.length, at + (this.#nextCheck - this.#saxChars));
      // A surrogate pair stays in one slice.
      if (end < text.length && isHighSurrogate(text.charCodeAt(end - 1))) end++;
      try {
        this.#sax.write(at === 0 && end === text.length ? text : text.slice(at, end));
      } catch {
        // sax throws on the write after an error it already reported through onerror.
      }
      this.#saxChars += end - at;
      at = end;
      if (this.#saxChars >= this.#nextCheck) {
        this.#nextCheck += SAX_SLICE_CHARS;
        if (!this.#failed) this.#checkSaxLimits();
      }
    }
    if (this.#failed || this.#recordStart < 0) return;
    const written = this.#textStart + this.#text.length;
    if (!this.#recordTooLong && written - this.#recordStart > this.#options.maxRecordLengthChars) {
      // The record is already longer than allowed, whatever follows: stop building it.
      this.#recordTooLong = true;
      this.#frames = [];
    }
    if (this.#recordTooLong) {
      if (this.#excerptHead === undefined && written - this.#recordStart >= EXCERPT_CHARS) {
        this.#excerptHead = this.#slice(this.#recordStart, this.#recordStart + EXCERPT_CHARS);
      }
      if (this.#excerptHead !== undefined) this.#dropTo(written);
    }
  }

  /** Ends the parse when the element being read has too many attributes or a token is too long. */
  #checkSaxLimits(): void {
    const sax = this.#sax as unknown as SaxInternals;
    const options = this.#options;
    if ((sax.sgmlDecl?.length ?? 0) > LONGEST_DECLARATION_PREFIX) {
      this.#malformed(UNKNOWN_DECLARATION);
      return;
    }
    if (sax.attribList.length > options.maxAttributesPerElement) {
      this.#halt('ORIGIN_XML_TOO_MANY_ATTRIBUTES', { limit: options.maxAttributesPerElement });
      return;
    }
    // A record's own tokens (its start tag too, read before the parser knows it starts a record) may be as long as
    // the record may be.
    const limit = Math.max(options.maxTokenLengthChars, options.maxRecordLengthChars);
    for (const buffer of Object.keys(SAX_BUFFERS) as (keyof typeof SAX_BUFFERS)[]) {
      if ((sax[buffer]?.length ?? 0) > limit) {
        this.#halt('ORIGIN_XML_TOKEN_TOO_LONG', { token: SAX_BUFFERS[buffer], limit });
        return;
      }
    }
  }

  #open(tag: QualifiedTag): void {
    if (this.#failed) return;
    // A short element's attributes are all read within one slice, before the check between slices sees them.
    let attributes = 0;
    for (const _name in tag.attributes) {
      if (++attributes > this.#options.maxAttributesPerElement) {
        this.#halt('ORIGIN_XML_TOO_MANY_ATTRIBUTES', { limit: this.#options.maxAttributesPerElement });
        return;
      }
    }
    const depth = this.#depth++;
    if (this.#recordStart >= 0) {
      if (++this.#recordDepth > this.#options.maxNestingDepth && !this.#recordTooDeep) {
        this.#recordTooDeep = true;
        this.#frames = [];
      }
      if (!this.#recordTooLong && !this.#recordTooDeep) this.#frames.push(this.#frame(tag));
      return;
    }
    if (depth === 0 && this.#seenRoot) {
      // sax accepts a second document element; XML does not.
      this.#malformed('the document has more than one root element');
      return;
    }
    this.#seenRoot = true;
    this.#names[depth] = tag.name;
    const matched = (depth === 0 || this.#matched[depth - 1] === true) && this.#delimiter.matches(tag, depth);
    this.#matched[depth] = matched;
    if (matched && depth === this.#delimiter.depth) {
      this.#recordStart = this.#sax.startTagPosition - 1;
      this.#dropTo(this.#recordStart);
      this.#recordBytes = this.#textStartBytes;
      this.#recordDepth = 1;
      this.#recordTooLong = false;
      this.#recordTooDeep = false;
      this.#excerptHead = undefined;
      this.#recordPath = '/' + this.#names.slice(0, depth + 1).join('/');
      // The namespaces in scope at the record element become record header attributes, so that a response
      // writing the record's prefixed names can declare them (docs/decisions/0057-xml-response-declares-every-prefix.md).
      this.#namespaces = new Map();
      this.#addNamespaces(tag);
      this.#frames = [this.#frame(tag)];
    } else {
      this.#dropTo(this.#sax.position);
    }
  }

  #frame(tag: QualifiedTag): Frame {
    const map: PlainMap = {};
    let attributes: Record<string, string> | undefined;
    const asFieldAttributes = this.#options.outputFieldAttributes;
    for (const name of Object.keys(tag.attributes)) {
      const value = tag.attributes[name]?.value ?? '';
      const declaration = name === 'xmlns' || name.startsWith('xmlns:');
      if (asFieldAttributes) {
        attributes ??= {};
        attributes[declaration ? name : `xmlAttr:${name}`] = value;
      } else {
        map[declaration ? `ns|${name}` : `attr|${name}`] = value;
      }
    }
    if (this.#options.includeFieldXpaths) this.#addNamespaces(tag);
    return { name: tag.name, map, attributes, text: '', hasChildren: false };
  }

  #addNamespaces(tag: QualifiedTag): void {
    const namespaces = this.#namespaces;
    if (namespaces === undefined) return;
    // for-in on purpose: sax chains each element's bindings to its parent's through the prototype.
    for (const prefix in tag.ns) {
      if (prefix !== 'xml' && prefix !== 'xmlns') namespaces.set(prefix, tag.ns[prefix] ?? '');
    }
  }

  #addText(text: string): void {
    if (this.#failed || this.#recordStart < 0 || this.#recordTooLong) return;
    const frame = this.#frames[this.#frames.length - 1];
    if (frame) frame.text += text;
  }

  #close(): void {
    if (this.#failed) return;
    this.#depth--;
    if (this.#recordStart < 0) {
      this.#matched.length = this.#depth;
      this.#dropTo(this.#sax.position);
      return;
    }
    this.#recordDepth--;
    if (!this.#recordTooLong && !this.#recordTooDeep) {
      const frame = this.#frames.pop();
      if (frame) {
        const value = this.#finish(frame);
        const parent = this.#frames[this.#frames.length - 1];
        if (parent) addChild(parent, frame.name, value);
        else this.#recordValue = this.#options.preserveRootElement ? member({}, frame.name, value) : value;
      }
    }
    if (this.#recordDepth === 0) this.#endRecord();
  }

  #finish(frame: Frame): FieldValue {
    if (!frame.hasChildren && NON_WHITESPACE.test(frame.text)) frame.map['value'] = frame.text;
    return frame.attributes ? field('MAP', frame.map, frame.attributes) : frame.map;
  }

  #endRecord(): void {
    const end = this.#sax.position;
    const length = end - this.#recordStart;
    if (this.#recordTooLong || length > this.#options.maxRecordLengthChars) {
      this.#failures.push(
        failure({
          code: 'ORIGIN_XML_RECORD_TOO_LONG',
          params: { offset: this.#recordBytes, length, limit: this.#options.maxRecordLengthChars },
          recordIndex: this.#index,
          byteOffset: this.#recordBytes,
          excerpt:
            this.#excerptHead ??
            this.#slice(this.#recordStart, Math.min(end, this.#recordStart + EXCERPT_CHARS)),
          canContinue: true,
        }),
      );
    } else if (this.#recordTooDeep) {
      this.#failures.push(
        failure({
          code: 'ORIGIN_XML_TOO_DEEP',
          params: { offset: this.#recordBytes, limit: this.#options.maxNestingDepth },
          recordIndex: this.#index,
          byteOffset: this.#recordBytes,
          excerpt: this.#slice(this.#recordStart, Math.min(end, this.#recordStart + EXCERPT_CHARS)),
          canContinue: true,
        }),
      );
    } else {
      const value = this.#recordValue;
      if (this.#options.includeFieldXpaths) {
        const element = this.#options.preserveRootElement
          ? (Object.getOwnPropertyDescriptor(value, this.#frameName())?.value as FieldValue | undefined)
          : value;
        if (element !== undefined) addXpaths(element, this.#recordPath);
      }
      const namespaces = this.#namespaces;
      if (namespaces && namespaces.size > 0) {
        const attributes: Record<string, string> = {};
        for (const [prefix, uri] of namespaces) attributes[prefix === '' ? 'xmlns' : `xmlns:${prefix}`] = uri;
        this.#records.push({ value, attributes });
      } else {
        this.#records.push({ value });
      }
    }
    this.#index++;
    this.#recordStart = -1;
    this.#recordValue = null;
    this.#frames = [];
    this.#matched.length = this.#depth;
    this.#dropTo(end);
  }

  /** The record element's name: the last segment of the record's path. */
  #frameName(): string {
    return this.#recordPath.slice(this.#recordPath.lastIndexOf('/') + 1);
  }

  #malformed(detail: string): void {
    this.#halt('ORIGIN_XML_MALFORMED', { column: this.#sax.column, detail });
  }

  /** Ends the parse with a failure that names the line; the rest of the body is ignored. */
  #halt(
    code: 'ORIGIN_XML_MALFORMED' | 'ORIGIN_XML_TOO_MANY_ATTRIBUTES' | 'ORIGIN_XML_TOKEN_TOO_LONG',
    params: Record<string, string | number>,
  ): void {
    if (this.#failed) return;
    this.#failed = true;
    const position = this.#sax.position;
    const inRecord = this.#recordStart >= 0;
    const excerpt = inRecord
      ? (this.#excerptHead ??
        this.#slice(this.#recordStart, Math.min(position, this.#recordStart + EXCERPT_CHARS)))
      : this.#slice(Math.max(this.#textStart, position - EXCERPT_CHARS), position);
    const byteOffset = inRecord
      ? this.#recordBytes
      : this.#byteOffsetAt(Math.max(this.#textStart, Math.min(position - 1, this.#textEnd())));
    this.#failures.push(
      failure({
        code,
        params: { line: this.#sax.line + 1, ...params },
        recordIndex: this.#index,
        byteOffset,
        excerpt,
        canContinue: false,
      }),
    );
    this.#frames = [];
    this.#text = '';
  }

  #textEnd(): number {
    return this.#textStart + this.#text.length;
  }

  #slice(from: number, to: number): string {
    return this.#text.slice(Math.max(0, from - this.#textStart), Math.max(0, to - this.#textStart));
  }

  #byteOffsetAt(position: number): number {
    return this.#textStartBytes + Buffer.byteLength(this.#slice(this.#textStart, position), 'utf8');
  }

  /** Forgets the text before char position `position`, keeping count of its UTF-8 bytes. */
  #dropTo(position: number): void {
    const cut = Math.min(position, this.#textEnd()) - this.#textStart;
    if (cut <= 0) return;
    this.#textStartBytes += Buffer.byteLength(this.#text.slice(0, cut), 'utf8');
    this.#text = this.#text.slice(cut);
    this.#textStart += cut;
  }
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

/** `map[key] = value`, also for a key `__proto__` (an XML name may be one), which plain assignment would not set. */
function member(map: PlainMap, key: string, value: FieldValue): PlainMap {
  if (key === '__proto__') Object.defineProperty(map, key, { value, enumerable: true, writable: true });
  else map[key] = value;
  return map;
}

function addChild(parent: Frame, name: string, value: FieldValue): void {
  parent.hasChildren = true;
  const list = Object.prototype.hasOwnProperty.call(parent.map, name) ? parent.map[name] : undefined;
  if (Array.isArray(list)) list.push(value);
  else member(parent.map, name, [value]);
}

/**
 * Gives every leaf (`value` and `attr|<name>`) of an element tree a field attribute `xpath`: its path from the
 * document element, `@<name>` for attributes, and a 1-based `[i]` index on an element only when its list holds
 * more than one element. The maps were made by this parser and are not shared yet, so they are changed in place.
 */
function addXpaths(element: FieldValue, path: string): void {
  const map = (isTypedField(element) ? element.value : element) as PlainMap;
  for (const key of Object.keys(map)) {
    const value = map[key];
    if (Array.isArray(value)) {
      const many = value.length > 1;
      value.forEach((child, i) => addXpaths(child, many ? `${path}/${key}[${i + 1}]` : `${path}/${key}`));
    } else if (typeof value === 'string') {
      if (key === 'value') map[key] = field('STRING', value, { xpath: path });
      else if (key.startsWith('attr|'))
        map[key] = field('STRING', value, { xpath: `${path}/@${key.slice(5)}` });
    }
  }
}

/**
 * Longest XML declaration looked for: its `?>` must end within this many bytes, else the body is read as UTF-8.
 * Only this head is searched, whatever more arrived with it, so the answer does not depend on the chunking.
 */
const MAX_DECLARATION_BYTES = 1024;

/**
 * The encoding of an XML document from its first bytes (XML 1.0 Appendix F): a byte order mark (UTF-8, UTF-16LE,
 * UTF-16BE), `<?` in UTF-16 without one, else the `encoding` of the XML declaration, else UTF-8. `undefined`
 * while `head` is too short to tell and more may come.
 */
export function sniffXmlEncoding(head: Uint8Array, final: boolean): string | undefined {
  if (!final && head.length < 5) return undefined;
  const [a, b, c, d] = head;
  if (a === 0xef && b === 0xbb && c === 0xbf) return 'utf-8';
  if (a === 0xff && b === 0xfe) return 'utf-16le';
  if (a === 0xfe && b === 0xff) return 'utf-16be';
  if (a === 0x3c && b === 0x00 && c === 0x3f && d === 0x00) return 'utf-16le';
  if (a === 0x00 && b === 0x3c && c === 0x00 && d === 0x3f) return 'utf-16be';
  const bytes = Buffer.from(head.buffer, head.byteOffset, head.length);
  if (!bytes.toString('latin1', 0, 5).startsWith('<?xml')) return 'utf-8';
  const end = bytes.subarray(0, MAX_DECLARATION_BYTES).indexOf('?>');
  if (end < 0) return !final && bytes.length < MAX_DECLARATION_BYTES ? undefined : 'utf-8';
  const declared = /\sencoding\s*=\s*["']([A-Za-z][\w.:-]*)["']/.exec(bytes.toString('latin1', 0, end));
  return declared?.[1] ?? 'utf-8';
}

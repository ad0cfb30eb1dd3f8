import { OriginError } from '../errors/origin-error';
import type { DataRecord } from '../record/data-record';
import { isTypedField, type FieldAttributes, type FieldValue } from '../record/field';
import { isListMap, listMapEntries } from '../record/list-map';
import type { RenderedResponse } from './json-response';
import type { ResponseSink } from '../pipeline/response-sink';
import { responseEncoding, type ResponseEncoding } from './response-encoding';
import type { XmlSchemaFile } from './xml-schema';
import {
  contentTypeOf,
  renderSink,
  responseHeaders,
  type EnvelopeWriter,
  type RenderedText,
} from './response-envelope';

/** The parts of the HTTP Response config the XML renderer reads (`httpResponse` with defaults applied). */
export interface XmlResponseConfig {
  /** Send the records without the envelope. */
  readonly sendRawResponse: boolean;
  /** UTF-8, UTF-16LE, ISO-8859-1 (latin1) or US-ASCII, in any letter case. */
  readonly charset: string;
  /** Indent nested elements by two spaces, one element per line. */
  readonly prettyFormat: boolean;
  /** Validate every rendered response against `xmlSchema` before it is sent. */
  readonly validateSchema: boolean;
  /** XSD 1.0 text; used when `validateSchema`. */
  readonly xmlSchema: string;
  /**
   * The files `xmlSchema` imports or includes, under the names its `schemaLocation`s use (`loadXmlSchema` reads
   * them from the resources directory and rewrites `xmlSchema` to match); none when omitted.
   */
  readonly xmlSchemaImports?: readonly XmlSchemaFile[];
}

// XML 1.0 Name, restricted to letters, digits and `_ . -` (plus one prefix colon): every name this accepts is a
// valid element name, and names it refuses are refused rather than silently rewritten.
const XML_NAME = /^[\p{L}_][\p{L}\p{N}_.\-\u00b7]*(?::[\p{L}_][\p{L}\p{N}_.\-\u00b7]*)?$/u;
// Characters XML 1.0 cannot carry at all, even as references.
// eslint-disable-next-line no-control-regex
const NOT_XML_CHAR = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/u;

function checkName(name: string, what: string): string {
  if (!XML_NAME.test(name)) throw renderError(`${what} '${name}' is not a valid XML name`);
  return name;
}

function renderError(detail: string): OriginError {
  return new OriginError('ORIGIN_RESPONSE_RENDER_FAILED', { detail });
}

function escapeText(text: string): string {
  if (NOT_XML_CHAR.test(text)) throw renderError('a value holds a character XML 1.0 cannot carry');
  return text.replace(/[&<>"\r]/g, (c) =>
    c === '&' ? '&amp;' : c === '<' ? '&lt;' : c === '>' ? '&gt;' : c === '"' ? '&quot;' : '&#13;',
  );
}

/** The text of a scalar as the engine's XML writer gives it. */
function scalarText(value: FieldValue): string {
  if (value instanceof Date) return String(value.getTime());
  if (value instanceof Uint8Array)
    return Buffer.from(value.buffer, value.byteOffset, value.length).toString('base64');
  const type = typeof value;
  // `String` would write a function's source text or `Symbol(…)`: refused, as the JSON writer refuses them.
  if (type !== 'string' && type !== 'number' && type !== 'boolean' && type !== 'bigint') {
    throw renderError(`a ${type} is not a field value`);
  }
  return String(value);
}

function attributeText(attributes: FieldAttributes | undefined): string {
  if (attributes === undefined) return '';
  let text = '';
  for (const key of Object.keys(attributes)) {
    // The XML parser's outputFieldAttributes names attributes `xmlAttr:<name>`; writing them back as `<name>`
    // makes an XML request echo as the same XML.
    const name = attributeName(key);
    text += ` ${checkName(name, 'field attribute')}="${escapeText(attributes[key] ?? '')}"`;
  }
  return text;
}

/** Namespaces whose prefix is fixed by convention, declared when a record uses them without a declaration. */
const WELL_KNOWN_NAMESPACES: Readonly<Record<string, string>> = {
  xsi: 'http://www.w3.org/2001/XMLSchema-instance',
};

/** The prefix of a qualified name, or `undefined` for an unprefixed one. */
function prefixOf(name: string): string | undefined {
  const colon = name.indexOf(':');
  return colon < 0 ? undefined : name.slice(0, colon);
}

/** The name a field attribute is written under (the XML parser's `xmlAttr:<name>` is written as `<name>`). */
function attributeName(key: string): string {
  return key.startsWith('xmlAttr:') ? key.slice('xmlAttr:'.length) : key;
}

/** The prefixes an element's attributes declare (`xmlns:<prefix>`); `undefined` when none. */
function declaredPrefixes(attributes: FieldAttributes | undefined): string[] | undefined {
  if (attributes === undefined) return undefined;
  let declared: string[] | undefined;
  for (const key of Object.keys(attributes)) {
    const name = attributeName(key);
    if (!name.startsWith('xmlns:')) continue;
    // Namespaces in XML 1.0 cannot undeclare a prefix.
    if (attributes[key] === '') throw renderError(`namespace declaration '${name}' has an empty URI`);
    (declared ??= []).push(name.slice('xmlns:'.length));
  }
  return declared;
}

/**
 * Writes XML text; `indent` is `undefined` for compact output.
 *
 * Namespaces (docs/decisions/0057-xml-response-declares-every-prefix.md): every prefix an element or attribute
 * name uses is declared. A prefix not declared by an `xmlns:<prefix>` field attribute of the element or an
 * ancestor in the record is declared on the record's element, with the URI of the record's header attribute
 * `xmlns:<prefix>` (the XML parser sets it for the namespaces in scope) or, for `xsi`, the XML Schema instance
 * namespace; a prefix with neither fails the response.
 */
class XmlWriter {
  text = '';
  readonly #pretty: boolean;
  /** Prefixes declared by each open element of the record being written, outermost first. */
  readonly #scopes: (string[] | undefined)[] = [];
  /** Prefixes the record uses without a declaration in scope. */
  #undeclared: Set<string> | undefined;
  /** Depth of the record's element, and where its start tags' attributes end (a LIST repeats the element). */
  #recordDepth = -1;
  #recordTagEnds: number[] = [];

  constructor(pretty: boolean) {
    this.#pretty = pretty;
  }

  #newline(depth: number): void {
    if (this.#pretty) this.text += '\n' + '  '.repeat(depth);
  }

  /** One record as element(s) called `name`, with declarations for the namespace prefixes it uses. */
  record(name: string, record: DataRecord, depth: number): void {
    this.#undeclared = undefined;
    this.#recordDepth = depth;
    this.#recordTagEnds = [];
    this.field(name, record.value, depth);
    this.#recordDepth = -1;
    // field() fills it; TypeScript cannot see that through the call.
    const undeclared = this.#undeclared as Set<string> | undefined;
    if (undeclared === undefined) return;
    let declarations = '';
    for (const prefix of undeclared) {
      const uri = record.header.getAttribute(`xmlns:${prefix}`) ?? WELL_KNOWN_NAMESPACES[prefix];
      if (uri === undefined || uri === '') {
        throw renderError(
          `namespace prefix '${prefix}' is used but not declared: give the element an xmlns:${prefix} field attribute or the record an xmlns:${prefix} header attribute`,
        );
      }
      declarations += ` xmlns:${prefix}="${escapeText(uri)}"`;
    }
    const ends = this.#recordTagEnds;
    for (let i = ends.length - 1; i >= 0; i--) {
      const at = ends[i] as number;
      this.text = this.text.slice(0, at) + declarations + this.text.slice(at);
    }
  }

  /** Notes the prefixes of an element's name and attribute names that no declaration in scope covers. */
  #checkPrefixes(
    name: string,
    attributes: FieldAttributes | undefined,
    declared: string[] | undefined,
  ): void {
    this.#checkPrefix(prefixOf(name), declared, name);
    if (attributes === undefined) return;
    for (const key of Object.keys(attributes)) {
      const attribute = attributeName(key);
      if (attribute !== 'xmlns' && !attribute.startsWith('xmlns:')) {
        this.#checkPrefix(prefixOf(attribute), declared, attribute);
      }
    }
  }

  #checkPrefix(prefix: string | undefined, declared: string[] | undefined, name: string): void {
    if (prefix === undefined || prefix === 'xml' || declared?.includes(prefix)) return;
    if (prefix === 'xmlns') throw renderError(`name '${name}' uses the reserved prefix xmlns`);
    for (const scope of this.#scopes) if (scope?.includes(prefix)) return;
    (this.#undeclared ??= new Set()).add(prefix);
  }

  /** One field as element(s) called `name`: a LIST repeats the element, a MAP nests its members. */
  field(name: string, value: FieldValue, depth: number, attributes?: FieldAttributes): void {
    if (isTypedField(value)) {
      this.field(name, value.value as FieldValue, depth, value.attributes);
      return;
    }
    if (Array.isArray(value)) {
      for (const item of value) this.field(name, item, depth, attributes);
      return;
    }
    this.#newline(depth);
    const open = `<${checkName(name, 'field name')}${attributeText(attributes)}`;
    const declared = declaredPrefixes(attributes);
    this.#checkPrefixes(name, attributes, declared);
    if (depth === this.#recordDepth) this.#recordTagEnds.push(this.text.length + open.length);
    if (value === null) {
      this.text += `${open}/>`;
      return;
    }
    // A list-map in its own key order (JS would put integer-like keys first).
    const members = isListMap(value)
      ? listMapEntries(value)
      : isMap(value)
        ? Object.entries(value)
        : undefined;
    if (members === undefined) {
      this.text += `${open}>${escapeText(scalarText(value))}</${name}>`;
      return;
    }
    if (members.length === 0) {
      this.text += `${open}/>`;
      return;
    }
    this.text += `${open}>`;
    this.#scopes.push(declared);
    for (const [key, member] of members) this.field(key, member, depth + 1);
    this.#scopes.pop();
    this.#newline(depth);
    this.text += `</${name}>`;
  }

  element(name: string, text: string, depth: number): void {
    this.#newline(depth);
    this.text += `<${name}>${escapeText(text)}</${name}>`;
  }

  open(name: string, depth: number): void {
    this.#newline(depth);
    this.text += `<${name}>`;
  }

  close(name: string, depth: number): void {
    this.#newline(depth);
    this.text += `</${name}>`;
  }
}

function isMap(value: FieldValue): value is { [key: string]: FieldValue } {
  if (typeof value !== 'object' || value === null || value instanceof Uint8Array || value instanceof Date) {
    return false;
  }
  const proto = Object.getPrototypeOf(value) as unknown;
  if (proto === Object.prototype || proto === null) return true;
  // A class instance (a Map, a RegExp, …) is no MAP: its entries would come out empty or wrong.
  throw renderError(
    `an instance of ${(value as object).constructor?.name ?? 'a class'} is not a field value`,
  );
}

function envelopeBody(
  status: number,
  data: readonly DataRecord[],
  errors: readonly DataRecord[],
  errorMessage: string | undefined,
  pretty: boolean,
): string {
  const writer = new XmlWriter(pretty);
  writer.text = '<response>';
  writer.element('httpStatusCode', String(status), 1);
  for (const record of data) writer.record('data', record, 1);
  for (const record of errors) writer.record('error', record, 1);
  if (errorMessage !== undefined) writer.element('errorMessage', errorMessage, 1);
  writer.close('response', 0);
  return writer.text;
}

function rawBody(records: readonly DataRecord[], pretty: boolean): string {
  if (records.length === 0) return '<records/>';
  const writer = new XmlWriter(pretty);
  writer.text = '<records>';
  for (const record of records) writer.record('record', record, 1);
  writer.close('records', 0);
  return writer.text;
}

function declaration(label: string, pretty: boolean): string {
  return `<?xml version="1.0" encoding="${label}"?>${pretty ? '\n' : ''}`;
}

function encode(body: string, charset: ResponseEncoding, pretty: boolean): Buffer {
  // Outside text and attribute values the document is ASCII, so every character matched here is in one of
  // them, where a character reference means the same character.
  const unencodable = charset.unencodableCodePoints;
  const safe =
    unencodable === undefined
      ? body
      : body.replace(unencodable, (c) => `&#x${(c.codePointAt(0) ?? 0).toString(16)};`);
  // XML requires a byte order mark on UTF-16.
  const bom = charset.encoding === 'utf16le' ? '\ufeff' : '';
  return Buffer.from(`${bom}${declaration(charset.name, pretty)}${safe}`, charset.encoding);
}

const XML_MIME_TYPE = 'application/xml';

function xmlWriter(pretty: boolean): EnvelopeWriter {
  return {
    mimeType: XML_MIME_TYPE,
    envelope: (status, data, errors, errorMessage) =>
      envelopeBody(status, data, errors, errorMessage, pretty),
    raw: (records) => rawBody(records, pretty),
  };
}
const WRITERS = { pretty: xmlWriter(true), compact: xmlWriter(false) };

/**
 * Validates `document` (a whole XML document as text) against the XSD 1.0 `schema` with libxml2's xmllint
 * (compiled to WebAssembly, run in a worker thread: no native code, no file system, no network). `imports` are
 * the files the schema's `schemaLocation`s name (see `loadXmlSchema`). Resolves when it is valid.
 *
 * @throws OriginError `ORIGIN_RESPONSE_SCHEMA_INVALID` naming the first violation (or the schema's own error).
 */
export async function validateXmlDocument(
  document: string,
  schema: string,
  imports: readonly XmlSchemaFile[] = [],
): Promise<void> {
  const { validateXML } = await import('xmllint-wasm');
  const result = await validateXML({
    xml: [{ fileName: 'response.xml', contents: document }],
    schema: [{ fileName: 'schema.xsd', contents: schema }],
    preload: imports,
  });
  if (result.valid) return;
  const first = result.errors[0];
  const detail = first
    ? `${first.loc ? `line ${first.loc.lineNumber}: ` : ''}${first.message.trim()}`
    : result.rawOutput.trim() || 'xmllint reported the document as invalid';
  throw new OriginError('ORIGIN_RESPONSE_SCHEMA_INVALID', { detail: detail.replace(/\.$/, '') });
}

/**
 * Renders the XML response to one batch from what the pipeline put in `sink`.
 *
 * - Status: {@link responseStatus}, as for JSON.
 * - Envelope (default): `<response>` holding `<httpStatusCode>`, one `<data>` per data record and one `<error>`
 *   per error record (each holding the record's fields as child elements), and `<errorMessage>` with the message
 *   of the first error record that has one; the element is left out when there is none (XML has no `null`).
 * - Raw (`sendRawResponse`): `<records>` holding one `<record>` per error record when there are any, else per
 *   data record; `<records/>` when there are none, so the body is always a document.
 * - Fields: a MAP or LIST_MAP nests its members as elements in their order; a LIST repeats its element once per
 *   item (an empty list writes nothing); `null` and empty maps write an empty element; BYTE_ARRAY is base64;
 *   DATE/DATETIME/TIME are epoch milliseconds; other scalars their string form. Field attributes become XML
 *   attributes (`xmlAttr:<name>` is written as `<name>`). A field or attribute name that is not a valid XML
 *   name (letters, digits, `_ . -`, one prefix colon) is refused, never rewritten: the response fails with
 *   `ORIGIN_RESPONSE_RENDER_FAILED` naming it.
 * - Text: `<?xml version="1.0" encoding="<charset>"?>` then the document; `prettyFormat` puts each element on
 *   its own line indented by two spaces per level; characters outside the charset are character references.
 * - Headers: `Content-Type: application/xml; charset=<charset>`, then the headers the pipeline asked for.
 * - `validateSchema`: the document is validated against `xmlSchema` ({@link validateXmlDocument}) before it is
 *   returned; an invalid one is never returned.
 *
 * @throws OriginError `ORIGIN_RESPONSE_CHARSET_UNSUPPORTED`, `ORIGIN_RESPONSE_RENDER_FAILED` or
 *   `ORIGIN_RESPONSE_SCHEMA_INVALID`.
 */
export async function renderXmlResponse(
  sink: ResponseSink,
  config: XmlResponseConfig,
): Promise<RenderedResponse> {
  const rendered = renderXmlText(sink, config);
  if (config.validateSchema) await validateRendered(rendered, config);
  return encodeRendered(rendered, config);
}

/** The XML response's status, headers and text, before validation and encoding. */
interface XmlText extends RenderedText {
  readonly headers: Record<string, string>;
  readonly charset: ResponseEncoding;
}

function renderXmlText(sink: ResponseSink, config: XmlResponseConfig): XmlText {
  const charset = responseEncoding(config.charset);
  const writer = config.prettyFormat ? WRITERS.pretty : WRITERS.compact;
  const { status, text } = renderSink(sink, config.sendRawResponse, writer);
  return { status, text, charset, headers: responseHeaders(contentTypeOf(XML_MIME_TYPE, charset), sink) };
}

function validateRendered(rendered: XmlText, config: XmlResponseConfig): Promise<void> {
  // xmllint reads UTF-8 only; the document validated is the one sent, declared as UTF-8.
  return validateXmlDocument(
    declaration('UTF-8', config.prettyFormat) + rendered.text,
    config.xmlSchema,
    config.xmlSchemaImports,
  );
}

function encodeRendered(rendered: XmlText, config: XmlResponseConfig): RenderedResponse {
  return {
    status: rendered.status,
    headers: rendered.headers,
    body: encode(rendered.text, rendered.charset, config.prettyFormat),
  };
}

/**
 * {@link renderXmlResponse} without schema validation: synchronous, for configs without `validateSchema`.
 *
 * @throws OriginError `ORIGIN_RESPONSE_CHARSET_UNSUPPORTED` or `ORIGIN_RESPONSE_RENDER_FAILED`.
 */
export function renderXmlResponseUnvalidated(
  sink: ResponseSink,
  config: XmlResponseConfig,
): RenderedResponse {
  return encodeRendered(renderXmlText(sink, config), config);
}

/**
 * Renders the XML answer to a request the origin rejected (or whose batch failed): `<response>` with
 * `<httpStatusCode>` = `status`, no data or error elements, and `<errorMessage>` as given (by convention
 * `"<CODE> - <message>"`). Not validated against `xmlSchema`: a rejection must always reach the client. Raw mode
 * uses it too, as JSON does.
 *
 * @throws OriginError `ORIGIN_RESPONSE_CHARSET_UNSUPPORTED` when `config.charset` is not supported.
 */
export function renderXmlEnvelopeError(
  status: number,
  errorMessage: string,
  config: Pick<XmlResponseConfig, 'charset' | 'prettyFormat'>,
): RenderedResponse {
  const charset = responseEncoding(config.charset);
  // A message may hold characters XML cannot carry (a control character from a client's header, say).
  const message = errorMessage.replace(new RegExp(NOT_XML_CHAR.source, 'gu'), '\ufffd');
  return {
    status,
    headers: responseHeaders(contentTypeOf(XML_MIME_TYPE, charset), undefined),
    body: encode(envelopeBody(status, [], [], message, config.prettyFormat), charset, config.prettyFormat),
  };
}

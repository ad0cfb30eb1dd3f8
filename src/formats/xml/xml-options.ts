import type { JsonSchema } from '../data-format';
import type { XmlNamespace } from './xml-delimiter';
import { TEXT_INPUT_OPTIONS_SCHEMA } from '../text-input';

/** The XML format's options (`dataFormat.xml`) with defaults applied. */
export interface XmlFormatConfig {
  /** `''`: the whole document is one record; else an element name under the root or a simplified XPath. */
  readonly delimiterElement: string;
  /** Keep the record element itself as the single key of the record's root map. */
  readonly preserveRootElement: boolean;
  /** Field attribute `xpath` on every leaf, record header attributes `xmlns:<prefix>` for the namespaces. */
  readonly includeFieldXpaths: boolean;
  /** Prefixes the delimiter's XPath may use. */
  readonly namespaces: readonly XmlNamespace[];
  /** XML attributes and namespace declarations become field attributes instead of fields. */
  readonly outputFieldAttributes: boolean;
  /** Longest record text in characters; a longer one is an `ORIGIN_XML_RECORD_TOO_LONG` failure. */
  readonly maxRecordLengthChars: number;
  /** Deepest nesting of elements a record may have; a deeper one is an `ORIGIN_XML_TOO_DEEP` failure. */
  readonly maxNestingDepth: number;
  /** Most attributes (namespace declarations included) one element may have; more end the parse. */
  readonly maxAttributesPerElement: number;
  /** Longest comment, PI, DOCTYPE, CDATA section, name, attribute value or run of text outside records. */
  readonly maxTokenLengthChars: number;
  /** Charset of the body, as a WHATWG encoding label; UTF-8 (the default) lets the document say its encoding. */
  readonly charset: string;
  /** Remove ASCII control characters other than tab, LF and CR before parsing. */
  readonly ignoreControlCharacters: boolean;
}

/** JSON Schema of {@link XmlFormatConfig}; every option has a default. */
export const XML_FORMAT_SCHEMA: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    delimiterElement: {
      type: 'string',
      default: '',
      description:
        "Delimiter Element: '' makes the whole document one record; a name (item) makes each such element directly under the root a record; a simplified XPath (/root/a/b, /root/*/b, /root/a[@id='1'], p:name with namespaces) makes each matching element a record.",
    },
    preserveRootElement: {
      type: 'boolean',
      default: true,
      description:
        'Preserve Root Element: the record root is a map with the record element as its single key (the document element without a delimiter).',
    },
    includeFieldXpaths: {
      type: 'boolean',
      default: false,
      description:
        'Include Field XPaths: field attribute xpath on every text and attribute field, and record header attributes xmlns:<prefix> for the namespaces in scope.',
    },
    namespaces: {
      type: 'array',
      default: [],
      description: 'Namespaces: prefix and URI pairs the delimiter XPath may use.',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['prefix', 'uri'],
        properties: {
          prefix: { type: 'string', minLength: 1, description: 'Prefix used in delimiterElement.' },
          uri: { type: 'string', minLength: 1, description: 'Namespace URI the prefix stands for.' },
        },
      },
    },
    outputFieldAttributes: {
      type: 'boolean',
      default: false,
      description:
        'Output Field Attributes: XML attributes become field attributes xmlAttr:<name> and namespace declarations field attributes xmlns:<prefix> of the element, instead of attr|<name> and ns|<declaration> fields.',
    },
    maxRecordLengthChars: {
      type: 'integer',
      minimum: 1,
      default: 4096,
      description:
        'Max Record Length (chars): a longer record is skipped and goes to the stage error handling; parsing goes on.',
    },
    maxNestingDepth: {
      type: 'integer',
      minimum: 1,
      default: 250,
      description:
        'Addition: deepest nesting of elements one record may have (the record element is 1); a deeper record is not built and goes to the stage error handling (ORIGIN_XML_TOO_DEEP). A record value nests up to twice as deep as its elements (repeated elements become lists), so the default keeps every later step (copies, JSON and XML responses, Engine Record) well within the call stack.',
    },
    maxAttributesPerElement: {
      type: 'integer',
      minimum: 1,
      default: 1000,
      description:
        'Addition: the most attributes (namespace declarations included) one element may have, anywhere in the body. An element with more ends the parse with an ORIGIN_XML_TOO_MANY_ATTRIBUTES failure (the records before it are kept), as soon as the excess is read.',
    },
    maxTokenLengthChars: {
      type: 'integer',
      minimum: 1,
      default: 65536,
      description:
        'Addition: the longest single token of the body, in characters: a comment, processing instruction, DOCTYPE, CDATA section, element or attribute name, attribute value, or run of text; maxRecordLengthChars when that is larger, since the tokens of a record may be as long as the record. A longer one ends the parse with an ORIGIN_XML_TOKEN_TOO_LONG failure as soon as the excess is read, so skipped text never piles up in memory.',
    },
    ...TEXT_INPUT_OPTIONS_SCHEMA,
    charset: {
      ...TEXT_INPUT_OPTIONS_SCHEMA.charset,
      description:
        'Charset of the body (a WHATWG encoding label). UTF-8, the default, leaves the encoding to the document: a byte order mark (UTF-8, UTF-16LE/BE), UTF-16 without one, or the encoding of the XML declaration, else UTF-8. Any other charset is used as it is.',
    },
  },
};

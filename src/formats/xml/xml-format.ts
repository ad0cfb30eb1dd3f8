import type { DataFormat } from '../data-format';
import { XmlParser } from './xml-parser';
import { XML_FORMAT_SCHEMA, type XmlFormatConfig } from './xml-options';

/**
 * The built-in `xml` format. `createParser` throws `OriginError('ORIGIN_CHARSET_UNSUPPORTED')` for a charset
 * without a decoder and `ConfigError` for a `delimiterElement` outside the XPath subset; everything about the
 * input is reported as failures by the parser (see `XmlParser`).
 */
export const xmlFormat: DataFormat<XmlFormatConfig> = {
  name: 'xml',
  description: 'XML: one record per delimiter element, or the whole document as one record.',
  configSchema: XML_FORMAT_SCHEMA,
  headerAttributes: ['xmlns', 'xmlns:*'],
  createParser: (config) => new XmlParser(config),
};

// The HTTP Response tab's options live beside the renderers they configure; the origin's config schema and
// resolveConfig import them from here (DESIGN §4: each config type lives beside the code it configures).

/** Values of `httpResponse.dataFormat`. */
export const RESPONSE_DATA_FORMATS = ['json', 'xml'] as const;
/** Values of `httpResponse.jsonContent`. */
export const RESPONSE_JSON_CONTENTS = ['arrayOfObjects', 'multipleObjects'] as const;

/**
 * The canonical names of the charsets a response can be written in (the encodings Node's `Buffer` writes), each
 * with the aliases `resolveConfig` also accepts. Names and aliases are matched case-insensitively; the resolved
 * config always holds the canonical name, which is also a valid IANA name for a `Content-Type` header.
 */
export const RESPONSE_CHARSET_ALIASES = {
  'UTF-8': ['utf8'],
  'UTF-16LE': ['utf16le', 'utf-16-le'],
  'ISO-8859-1': ['iso8859-1', 'iso_8859-1', 'latin1', 'latin-1'],
  'US-ASCII': ['ascii', 'us_ascii'],
} as const satisfies Record<string, readonly string[]>;

/** A canonical response charset name: a key of {@link RESPONSE_CHARSET_ALIASES}. */
export type ResponseCharset = keyof typeof RESPONSE_CHARSET_ALIASES;

/** The canonical response charset names, in the order the schema lists them. */
export const RESPONSE_CHARSETS = Object.keys(RESPONSE_CHARSET_ALIASES) as ResponseCharset[];

const CHARSET_BY_LOWER_NAME: ReadonlyMap<string, ResponseCharset> = new Map(
  RESPONSE_CHARSETS.flatMap((canonical) => [
    [canonical.toLowerCase(), canonical] as const,
    ...RESPONSE_CHARSET_ALIASES[canonical].map((alias) => [alias, canonical] as const),
  ]),
);

/** The canonical name of a response charset given by any accepted spelling; `undefined` when not supported. */
export function canonicalResponseCharset(name: string): ResponseCharset | undefined {
  return CHARSET_BY_LOWER_NAME.get(name.toLowerCase());
}

/** The format of the response body (HTTP Response tab, Data Format). */
export type ResponseDataFormat = (typeof RESPONSE_DATA_FORMATS)[number];
/** How a raw JSON response presents several records (HTTP Response tab, JSON Content). */
export type ResponseJsonContent = (typeof RESPONSE_JSON_CONTENTS)[number];

/** HTTP Response tab. */
export interface HttpResponseConfig {
  readonly sendRawResponse: boolean;
  readonly dataFormat: ResponseDataFormat;
  readonly jsonContent: ResponseJsonContent;
  /** Always the canonical name, whatever alias the input used. */
  readonly charset: ResponseCharset;
  readonly prettyFormat: boolean;
  readonly validateSchema: boolean;
  /** Non-empty when `validateSchema`. */
  readonly xmlSchema: string;
  /**
   * (addition) Send the message of an error thrown by the pipeline, or met unexpectedly by the origin, to the
   * client word for word. Off by default: the client gets the code and a generic text (decision 0046).
   */
  readonly sendErrorDetails: boolean;
  /**
   * (addition) Compress responses with `br` or `gzip` as the client's `Accept-Encoding` asks, adding
   * `Vary: Accept-Encoding`. Off by default (decision 0101).
   */
  readonly compress: boolean;
  /** (addition) With `compress`, the smallest rendered body in bytes that is compressed; default 1024. */
  readonly compressMinBytes: number;
}

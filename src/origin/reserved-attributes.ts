import { ARCHIVE_ENTRY_ATTRIBUTES } from '../formats/compression/entry-pattern';
import type { FormatRegistry } from '../formats/format-registry';
import { ReservedAttributeNames } from '../record/reserved-attribute-names';

/**
 * The record header attributes the origin itself writes besides the fixed request ones (`method`, `path`,
 * `queryString`, `remoteHost`, the client certificate's and the authenticated caller's, which `requestAttributes`
 * keeps out on its own): the empty-body placeholder's marker and the position of a record that failed to parse.
 */
export const ORIGIN_RECORD_ATTRIBUTES: readonly string[] = Object.freeze([
  'emptyPayloadRecord',
  'errorRecordIndex',
  'errorByteOffset',
]);

/**
 * Every attribute name a request header may not take in an origin using `formats` (decision 0046): the origin's
 * own, the archive entry attributes of Compression Format, and what every format of the registry declares in
 * `headerAttributes`, whichever format the origin is configured with, so that a pipeline can trust `avroSchema`
 * even in a JSON origin. Made once per origin.
 */
export function reservedAttributeNames(formats: FormatRegistry): ReservedAttributeNames {
  return new ReservedAttributeNames([
    ...ORIGIN_RECORD_ATTRIBUTES,
    ...ARCHIVE_ENTRY_ATTRIBUTES,
    ...formats.formats().flatMap((format) => format.headerAttributes ?? []),
  ]);
}

import type { JsonSchema } from '../data-format';

/** The Engine Record format's options (`dataFormat.engineRecord`): none; only the shared compression applies. */
export type EngineRecordFormatConfig = Readonly<Record<string, never>>;

/** JSON Schema of {@link EngineRecordFormatConfig}: an empty object (spec §2.3: only the compression options). */
export const ENGINE_RECORD_FORMAT_SCHEMA: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {},
};

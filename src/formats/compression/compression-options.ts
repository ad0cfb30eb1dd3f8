/** Values of `dataFormat.compression.format`. */
export const COMPRESSION_FORMATS = ['none', 'compressedFile', 'archive', 'compressedArchive'] as const;

/** How a request body is packed (Data Format tab, Compression Format). */
export type CompressionFormat = (typeof COMPRESSION_FORMATS)[number];

/** Data Format tab, Compression Format and File Name Pattern within Compressed Directory. */
export interface CompressionConfig {
  readonly format: CompressionFormat;
  readonly filePattern: string;
}

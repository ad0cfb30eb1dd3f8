import { createCompressionParser } from '../formats/compression/compression-parser';
import type { DataFormat, ParseSource, Parser } from '../formats/data-format';
import { BodyPaceWatch } from '../http/body-pace';
import type { BodyReadOptions } from '../http/body-reader';
import type { OriginConfig } from './config';
import { MemoryRelease } from './memory-release';

/**
 * How an origin reads every request body, decided once when the origin is made (DESIGN.md §2): the size limit
 * in bytes, and the parser factory (the format's own parser, or one wrapped in the configured compression
 * format). The per-request part, the Content-Encoding, is read once per request by the early checks and handed to
 * the body reader with this plan's limit.
 */
export interface BodyPlan {
  /** `http.maxRequestSizeMb` in bytes (MB = 10^6 bytes, as the reference engine counts), and as configured. */
  readonly limit: { readonly maxRequestBytes: number; readonly limitMb: number };
  /** Holds every body to `http.bodyReadTimeoutMs` and `http.minBodyBytesPerSecond`; absent when the timeout is 0. */
  readonly pace: BodyPaceWatch | undefined;
  /** The body reader's options for a body without Content-Encoding: made once, used by nearly every request. */
  readonly unencoded: BodyReadOptions;
  /** `http.maxRecordsPerRequest`: records and failures one body may yield before its parse is stopped (413). */
  readonly maxRecords: number;
  /** Asks for a collection once the last large body is answered (`http.releaseMemoryAfterMb`, decision 0091). */
  readonly release: MemoryRelease;
  /**
   * Makes the parser of one request body from `remoteAddress`, the client's address (behind a trusted proxy, the
   * one its forwarding header names): formats that keep state per exporter (NetFlow v9 templates) key it by that.
   * Every parser shares the origin's state map and is held to `http.maxRequestSizeMb` of decompressed bytes.
   */
  readonly createParser: (remoteAddress: string | undefined) => Parser;
}

/**
 * The body plan of an origin with `config` reading `format`. Makes one parser right away, so that a format's
 * config problem (an unknown charset, say) fails when the origin is made, not on every request.
 */
export function bodyPlanFor(config: OriginConfig, format: DataFormat): BodyPlan {
  const formatConfig = config.dataFormat[format.name];
  format.createParser(formatConfig, { originState: new Map() });
  const limitMb = config.http.maxRequestSizeMb;
  const maxRequestBytes = limitMb * 1_000_000;
  const { compression } = config.dataFormat;
  const originState = new Map<string, unknown>();
  // Formats that decompress inside the input (Avro's block codecs) hold to the same budget as the body. One
  // object literal per request: spreading a shared source into a new object cost as much as the JSON parse of a
  // one-record body (CPU profile of the echo bench).
  const sourceOf = (remoteAddress: string | undefined): ParseSource => ({
    remoteAddress,
    originState,
    maxDecodedBytes: maxRequestBytes,
  });
  const createParser =
    compression.format === 'none'
      ? (remoteAddress: string | undefined): Parser =>
          format.createParser(formatConfig, sourceOf(remoteAddress))
      : (remoteAddress: string | undefined): Parser =>
          createCompressionParser(format, formatConfig, compression, sourceOf(remoteAddress), {
            maxDecodedBytes: maxRequestBytes,
          });
  const limit = { maxRequestBytes, limitMb };
  const { bodyReadTimeoutMs, minBodyBytesPerSecond } = config.http;
  const pace =
    bodyReadTimeoutMs > 0
      ? new BodyPaceWatch({ timeoutMs: bodyReadTimeoutMs, minBytesPerSecond: minBodyBytesPerSecond })
      : undefined;
  return {
    limit,
    pace,
    unencoded: { ...limit, codings: [], ...(pace === undefined ? {} : { pace }) },
    maxRecords: config.http.maxRecordsPerRequest,
    release: new MemoryRelease(config.http.releaseMemoryAfterMb),
    createParser,
  };
}

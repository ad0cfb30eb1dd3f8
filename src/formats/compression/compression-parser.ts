import { Unzip, UnzipInflate, type UnzipFile } from 'fflate';
import type {
  DataFormat,
  ParseFailure,
  ParseResult,
  ParseSource,
  ParsedRecord,
  Parser,
} from '../data-format';
import { createDecompressor, DecompressError, type StreamCodec } from '../decompressors';
import { failure } from '../failure';
import { ContainerError, inBlocks, type ByteSink, type OpenEntry } from './byte-sink';
import type { CompressionConfig, CompressionFormat } from './compression-options';
import { entryAttributes, entryPatternMatcher } from './entry-pattern';
import { TarReader, looksLikeTar } from './tar-reader';

/** Limits of one input. */
export interface CompressionLimits {
  /** Most bytes decompression may produce for one input, all entries together (the request's maxRequestSizeMb). */
  readonly maxDecodedBytes: number;
}

/**
 * Decompressors are fed this much at a time, so that one push never produces more than about a thousand times
 * this (deflate's best ratio) before the size limit is checked: a zip bomb stops near the limit with memory flat.
 */
const FEED_BYTES = 4096;
/** Bytes needed to tell the containers apart: the tar magic `ustar` sits at offset 257. */
const DETECT_BYTES = 262;
/** The end-of-central-directory record: its signature and the most bytes it can end with (a 64 KiB comment). */
const ZIP_END_SIGNATURE = Buffer.from([0x50, 0x4b, 0x05, 0x06]);
const ZIP_TAIL_BYTES = 22 + 0xffff;
const EMPTY: ParseResult = { records: [], failures: [] };

/** What the first bytes of a body (or of a decompressed stream) can be. */
type Container = StreamCodec | 'zip' | 'tar';

/** The containers each mode accepts, in the order they are tried. */
const ALLOWED: Readonly<Record<Exclude<CompressionFormat, 'none'>, readonly Container[]>> = {
  compressedFile: ['gzip', 'bzip2', 'xz', 'zstandard', 'snappy'],
  archive: ['zip', 'tar'],
  compressedArchive: ['gzip', 'bzip2', 'xz', 'zstandard', 'zip'],
};

/** How a container is named in messages. */
const CONTAINER_NAMES: Readonly<Record<Container, string>> = {
  gzip: 'gzip',
  bzip2: 'bzip2',
  xz: 'xz',
  zstandard: 'Zstandard',
  snappy: 'snappy-framed',
  zip: 'zip',
  tar: 'tar',
};

/** Magic bytes of the compressed files (tar and zip are told apart by {@link isKind}). */
const MAGIC: Readonly<Record<StreamCodec, readonly number[]>> = {
  gzip: [0x1f, 0x8b],
  // "BZh", then the block size digit, checked apart.
  bzip2: [0x42, 0x5a, 0x68],
  xz: [0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00],
  zstandard: [0x28, 0xb5, 0x2f, 0xfd],
  // The stream identifier chunk: type 0xff, length 6, "sNaPpY".
  snappy: [0xff, 0x06, 0x00, 0x00, 0x73, 0x4e, 0x61, 0x50, 0x70, 0x59],
};

/**
 * A parser for a compressed or archived body (`dataFormat.compression`): it decompresses and unpacks as bytes
 * arrive and feeds each file to a fresh parser of `format`.
 *
 * - `compressedFile`: a gzip, bzip2, xz, Zstandard or snappy-framed file (concatenated members, streams or frames
 *   read as one, as the tools do), whose content is parsed as one input.
 * - `archive`: a zip or tar archive; `compressedArchive`: a tar compressed with gzip, bzip2, xz or Zstandard
 *   (`.tar.gz`, `.tar.bz2`, `.tar.xz`, `.tar.zst`) or a zip. Each file entry whose name matches `filePattern` (see
 *   {@link entryPatternMatcher}) gets its own parser, and its records get the header attributes
 *   `filePathInsideArchive` and `fileNameInsideArchive` (added to the ones the format sets). Record indexes run on
 *   across entries; byte offsets are within the entry.
 *
 * The container is recognized by its magic bytes (gzip `1f 8b`, bzip2 `BZh1`–`BZh9`, xz `fd 37 7a 58 5a 00`,
 * Zstandard `28 b5 2f fd`, snappy's stream identifier `ff 06 00 00 sNaPpY`, zip `PK\3\4`, tar `ustar` at 257); one
 * the mode does not allow is `ORIGIN_ARCHIVE_NOT_RECOGNIZED`. The decompressors are maintained packages (see
 * `../decompressors`); bzip2's (seek-bzip) reads only a whole input, so a bzip2 body is decompressed at its end. A corrupt or truncated container is `ORIGIN_ARCHIVE_MALFORMED`, and
 * more than `maxDecodedBytes` decompressed is `ORIGIN_ARCHIVE_TOO_LARGE`: each is one failure with scope `'stage'`
 * and parsing stops (records already produced are kept in the results). Nothing touches the disk; entry names
 * are only names. Never throws on bad input.
 */
export class CompressionParser implements Parser {
  readonly #format: DataFormat;
  readonly #formatConfig: unknown;
  readonly #source: ParseSource;
  readonly #mode: Exclude<CompressionFormat, 'none'>;
  readonly #matches: (name: string) => boolean;
  readonly #maxDecodedBytes: number;
  #root: ByteSink;
  #records: ParsedRecord[] = [];
  #failures: ParseFailure[] = [];
  #decoded = 0;
  /** Record index of the first record of the current entry. */
  #recordBase = 0;
  #stopped = false;

  /** @param formatConfig - the format's options, already validated (as `resolveFormatConfig` returns them). */
  constructor(
    format: DataFormat,
    formatConfig: unknown,
    compression: CompressionConfig,
    source: ParseSource,
    limits: CompressionLimits,
  ) {
    if (compression.format === 'none') throw new RangeError('CompressionParser needs a compression format');
    this.#format = format;
    this.#formatConfig = formatConfig;
    this.#source = source;
    this.#mode = compression.format;
    this.#matches = entryPatternMatcher(compression.filePattern);
    this.#maxDecodedBytes = limits.maxDecodedBytes;
    this.#root = inBlocks(this.#detector(ALLOWED[this.#mode], undefined), FEED_BYTES);
  }

  push(chunk: Uint8Array): ParseResult {
    if (this.#stopped || chunk.length === 0) return EMPTY;
    // The root copies what it keeps (inBlocks), so the caller may reuse its chunk.
    this.#guard(() => this.#root.write(chunk));
    return this.#take();
  }

  end(): ParseResult {
    if (this.#stopped) return EMPTY;
    this.#guard(() => this.#root.end());
    this.#stopped = true;
    return this.#take();
  }

  #take(): ParseResult {
    if (this.#records.length === 0 && this.#failures.length === 0) return EMPTY;
    const result = { records: this.#records, failures: this.#failures };
    this.#records = [];
    this.#failures = [];
    return result;
  }

  #guard(step: () => void): void {
    try {
      step();
    } catch (error) {
      const known = error instanceof ContainerError;
      const code = known ? error.code : 'ORIGIN_ARCHIVE_MALFORMED';
      const params = known
        ? error.params
        : {
            container: this.#mode === 'compressedFile' ? 'compressed' : 'archive',
            detail: (error as Error).message,
          };
      this.#failures.push(
        failure({
          code,
          params,
          scope: 'stage',
          recordIndex: this.#recordBase,
          // Where a container's fault shows depends on how its bytes were chunked (a decompressor reports it when
          // fed, not where it starts); the whole input is refused, so the offset is the input's start.
          byteOffset: 0,
          // The container's bytes are binary and say nothing readable; the message names the problem.
          excerpt: '',
          canContinue: false,
        }),
      );
      this.#stopped = true;
      this.#root = { write: () => undefined, end: () => undefined };
    }
  }

  /**
   * Holds the first bytes until the container can be told, then routes everything to its reader; `outer` is the
   * codec around it when this is the tar inside a compressed file.
   */
  #detector(allowed: readonly Container[], outer: StreamCodec | undefined): ByteSink {
    let head: Buffer[] = [];
    let headBytes = 0;
    let next: ByteSink | undefined;
    const decide = (): ByteSink => {
      const bytes = Buffer.concat(head);
      head = [];
      const kind = allowed.find((k) => isKind(k, bytes));
      if (kind === undefined) {
        const names = allowed.map((k) => CONTAINER_NAMES[k]);
        throw new ContainerError('ORIGIN_ARCHIVE_NOT_RECOGNIZED', {
          expected:
            outer === undefined
              ? `a ${names.slice(0, -1).join(', ')}${names.length > 1 ? ' or ' : ''}${names.at(-1)} file`
              : `a tar archive inside the ${CONTAINER_NAMES[outer]} file`,
          mode: this.#mode,
          head: bytes.subarray(0, 8).toString('hex') || '(none)',
        });
      }
      const sink = this.#readerFor(kind);
      sink.write(bytes);
      return sink;
    };
    return {
      write: (chunk) => {
        if (next) return next.write(chunk);
        head.push(Buffer.from(chunk));
        headBytes += chunk.length;
        if (headBytes >= DETECT_BYTES) next = decide();
      },
      end: () => {
        if (!next) {
          if (headBytes === 0) return;
          next = decide();
        }
        next.end();
      },
    };
  }

  #readerFor(kind: Container): ByteSink {
    if (kind === 'zip') return this.#zipReader();
    if (kind === 'tar') return new TarReader(this.#openEntry);
    const inner =
      this.#mode === 'compressedFile' ? this.#entrySink(undefined) : this.#detector(['tar'], kind);
    return this.#decompressing(kind, inner);
  }

  /**
   * `inner` fed with what `codec` decompresses, every byte counted against the budget. The decompressor is given the
   * budget too, so that a Zstandard frame declaring more content is refused before it is decompressed.
   */
  #decompressing(codec: StreamCodec, inner: ByteSink): ByteSink {
    const decompressor = createDecompressor(
      codec,
      (data) => {
        this.#count(data.length);
        inner.write(data);
      },
      this.#maxDecodedBytes,
    );
    const step = (run: () => void): void => {
      try {
        run();
      } catch (error) {
        if (!(error instanceof DecompressError)) throw error;
        if (error.kind === 'tooLarge') throw this.#tooLarge();
        throw new ContainerError('ORIGIN_ARCHIVE_MALFORMED', {
          container: CONTAINER_NAMES[codec],
          detail: error.detail,
        });
      }
    };
    return {
      write: (chunk) => step(() => decompressor.push(chunk)),
      end: () => {
        step(() => decompressor.end());
        inner.end();
      },
    };
  }

  #zipReader(): ByteSink {
    const open: UnzipFile[] = [];
    // fflate catches what its callbacks throw and reports it as a stream error, so the reason is kept here.
    let stop: unknown;
    const unzip = new Unzip((file) => {
      if (file.name.endsWith('/')) return;
      const entry = this.#openEntry(file.name);
      if (!entry) return;
      open.push(file);
      file.ondata = (error, data, final) => {
        if (stop !== undefined) return;
        try {
          if (error) throw error;
          this.#count(data.length);
          entry.write(data);
          if (final) {
            open.splice(open.indexOf(file), 1);
            entry.end();
          }
        } catch (thrown) {
          stop = thrown;
          file.terminate();
        }
      };
      file.start();
    });
    unzip.register(UnzipInflate);
    const push = (chunk: Uint8Array, final: boolean): void => {
      try {
        unzip.push(chunk, final);
      } catch (thrown) {
        stop ??= thrown;
      }
      if (stop !== undefined) {
        if (stop instanceof ContainerError) throw stop;
        const detail = stop instanceof Error ? stop.message : String(stop);
        throw new ContainerError('ORIGIN_ARCHIVE_MALFORMED', { container: 'zip', detail });
      }
    };
    // The end-of-central-directory record closes every whole zip; the streaming reader never needs it, so it is
    // looked for in the last bytes to tell a complete archive from a cut one.
    const tail: Buffer[] = [];
    let tailBytes = 0;
    return {
      write: (chunk) => {
        tail.push(Buffer.from(chunk));
        tailBytes += chunk.length;
        while (tailBytes - (tail[0] as Buffer).length >= ZIP_TAIL_BYTES)
          tailBytes -= (tail.shift() as Buffer).length;
        for (let at = 0; at < chunk.length; at += FEED_BYTES)
          push(chunk.subarray(at, at + FEED_BYTES), false);
      },
      end: () => {
        push(new Uint8Array(0), true);
        if (Buffer.concat(tail).lastIndexOf(ZIP_END_SIGNATURE) === -1) {
          throw new ContainerError('ORIGIN_ARCHIVE_MALFORMED', {
            container: 'zip',
            detail: 'it has no end-of-central-directory record (the archive is cut short)',
          });
        }
        if (open.length > 0) {
          throw new ContainerError('ORIGIN_ARCHIVE_MALFORMED', {
            container: 'zip',
            detail: `it ends inside the entry ${JSON.stringify(open[0]?.name)}`,
          });
        }
      },
    };
  }

  #count(bytes: number): void {
    this.#decoded += bytes;
    if (this.#decoded > this.#maxDecodedBytes) throw this.#tooLarge();
  }

  #tooLarge(): ContainerError {
    return new ContainerError('ORIGIN_ARCHIVE_TOO_LARGE', {
      limitMb: this.#maxDecodedBytes / 1_000_000,
      limitBytes: this.#maxDecodedBytes,
    });
  }

  readonly #openEntry: OpenEntry = (name) => (this.#matches(name) ? this.#entrySink(name) : undefined);

  /** A fresh parser of the format for one file; `name` is the entry name, `undefined` for a compressed file. */
  #entrySink(name: string | undefined): ByteSink {
    const parser = this.#format.createParser(this.#formatConfig, this.#source);
    const extra = name === undefined ? undefined : entryAttributes(name);
    let produced = 0;
    const collect = (result: ParseResult): void => {
      for (const record of result.records) {
        this.#records.push(extra ? { ...record, attributes: { ...record.attributes, ...extra } } : record);
      }
      for (const f of result.failures) {
        this.#failures.push(
          this.#recordBase === 0 ? f : { ...f, recordIndex: f.recordIndex + this.#recordBase },
        );
        if (f.scope === 'record') produced++;
      }
      produced += result.records.length;
    };
    return {
      write: (chunk) => collect(parser.push(chunk)),
      end: () => {
        collect(parser.end());
        this.#recordBase += produced;
      },
    };
  }
}

function isKind(kind: Container, bytes: Buffer): boolean {
  if (kind === 'tar') return looksLikeTar(bytes);
  if (kind === 'zip') {
    // A local file header, or the end record of an empty zip.
    return (
      bytes[0] === 0x50 &&
      bytes[1] === 0x4b &&
      ((bytes[2] === 3 && bytes[3] === 4) || (bytes[2] === 5 && bytes[3] === 6))
    );
  }
  if (!MAGIC[kind].every((b, i) => bytes[i] === b)) return false;
  // bzip2's block size, '1' to '9' (hundreds of kB).
  return kind !== 'bzip2' || ((bytes[3] ?? 0) >= 0x31 && (bytes[3] ?? 0) <= 0x39);
}

/**
 * A parser of `format` for a body packed as `compression` says; with `format: 'none'`, the format's own parser.
 * See `CompressionParser`. `formatConfig` must already be validated (as `resolveFormatConfig` returns it).
 */
export function createCompressionParser(
  format: DataFormat,
  formatConfig: unknown,
  compression: CompressionConfig,
  source: ParseSource,
  limits: CompressionLimits,
): Parser {
  if (compression.format === 'none') return format.createParser(formatConfig, source);
  return new CompressionParser(format, formatConfig, compression, source, limits);
}

import { ContainerError, type ByteSink, type OpenEntry } from './byte-sink';

const BLOCK = 512;
/** Longest PAX or GNU long-name header data kept; a larger one is refused rather than buffered. */
const MAX_META_BYTES = 1 << 20;

type State = 'header' | 'data' | 'padding' | 'meta' | 'done';

/**
 * Reads a tar archive (POSIX ustar, PAX `path` records, GNU long names) as its bytes arrive, and hands the data
 * of each regular file to the sink `open` gives for its name. Synchronous on purpose: the `Parser` contract
 * returns records from `push`, and tar-stream delivers entries on later ticks.
 *
 * Names are only names: nothing is written anywhere, so `../x` or `/etc/passwd` is just an entry called that.
 * Directories, links and device entries are skipped. A header with a bad checksum, a bad size field or a body that
 * ends inside a header or an entry throws {@link ContainerError} (`ORIGIN_ARCHIVE_MALFORMED`).
 */
export class TarReader implements ByteSink {
  readonly #open: OpenEntry;
  #state: State = 'header';
  #header = Buffer.alloc(BLOCK);
  #headerFill = 0;
  /** Bytes left in the current entry's data (or metadata), then in its padding. */
  #left = 0;
  #padding = 0;
  #entry: ByteSink | undefined;
  #meta: Buffer[] = [];
  #metaKind: 'pax' | 'longName' | 'ignore' = 'ignore';
  #nextName: string | undefined;
  #offset = 0;

  constructor(open: OpenEntry) {
    this.#open = open;
  }

  write(chunk: Uint8Array): void {
    let at = 0;
    while (at < chunk.length && this.#state !== 'done') {
      switch (this.#state) {
        case 'header': {
          const take = Math.min(BLOCK - this.#headerFill, chunk.length - at);
          this.#header.set(chunk.subarray(at, at + take), this.#headerFill);
          this.#headerFill += take;
          at += take;
          if (this.#headerFill === BLOCK) {
            this.#headerFill = 0;
            this.#readHeader();
          }
          break;
        }
        case 'data':
        case 'meta': {
          const take = Math.min(this.#left, chunk.length - at);
          const part = chunk.subarray(at, at + take);
          if (this.#state === 'data') this.#entry?.write(part);
          else if (this.#metaKind !== 'ignore') this.#meta.push(Buffer.from(part));
          at += take;
          this.#left -= take;
          if (this.#left === 0) this.#finishEntry();
          break;
        }
        case 'padding': {
          const take = Math.min(this.#padding, chunk.length - at);
          at += take;
          this.#padding -= take;
          if (this.#padding === 0) this.#state = 'header';
          break;
        }
      }
    }
    this.#offset += chunk.length;
  }

  end(): void {
    if (this.#state === 'done' || (this.#state === 'header' && this.#headerFill === 0)) return;
    throw new ContainerError('ORIGIN_ARCHIVE_MALFORMED', {
      container: 'tar',
      detail: `it ends at byte ${this.#offset}, inside ${this.#state === 'header' ? 'a header' : 'an entry'}`,
    });
  }

  #readHeader(): void {
    const header = this.#header;
    if (header.every((byte) => byte === 0)) {
      this.#state = 'done';
      return;
    }
    if (checksumOf(header) !== readOctal(header, 148, 8)) this.#malformed('a header checksum does not match');
    const size = readSize(header);
    if (size === undefined) this.#malformed('a header has an unreadable size');
    const type = String.fromCharCode(header[156] as number);
    const name = this.#nextName ?? headerName(header);
    this.#nextName = undefined;
    this.#left = size as number;
    this.#padding = (BLOCK - ((size as number) % BLOCK)) % BLOCK;
    this.#entry = undefined;
    if (type === 'x' || type === 'L') {
      if ((size as number) > MAX_META_BYTES)
        this.#malformed(`a ${type} header of ${size} bytes is too large`);
      this.#state = 'meta';
      this.#metaKind = type === 'x' ? 'pax' : 'longName';
    } else if (type === '0' || type === '\0' || type === '7') {
      this.#state = 'data';
      this.#entry = this.#open(name);
    } else {
      // Directories, links, devices, global PAX headers: their data (if any) is skipped.
      this.#state = 'meta';
      this.#metaKind = 'ignore';
    }
    if (this.#left === 0) this.#finishEntry();
  }

  #finishEntry(): void {
    if (this.#state === 'data') {
      const entry = this.#entry;
      this.#entry = undefined;
      entry?.end();
    } else if (this.#metaKind !== 'ignore') {
      const data = Buffer.concat(this.#meta);
      this.#nextName = this.#metaKind === 'pax' ? paxPath(data) : cString(data, 0, data.length);
    }
    this.#meta = [];
    this.#metaKind = 'ignore';
    this.#state = this.#padding > 0 ? 'padding' : 'header';
  }

  #malformed(detail: string): never {
    throw new ContainerError('ORIGIN_ARCHIVE_MALFORMED', { container: 'tar', detail });
  }
}

/** True when `head` (at least 263 bytes) is a ustar or GNU tar header. */
export function looksLikeTar(head: Uint8Array): boolean {
  return (
    head.length >= 262 && Buffer.from(head.buffer, head.byteOffset + 257, 5).toString('latin1') === 'ustar'
  );
}

function headerName(header: Buffer): string {
  const name = cString(header, 0, 100);
  const ustar = header.toString('latin1', 257, 263) === 'ustar\0';
  const prefix = ustar ? cString(header, 345, 155) : '';
  return prefix === '' ? name : `${prefix}/${name}`;
}

function cString(buffer: Buffer, start: number, length: number): string {
  const end = buffer.indexOf(0, start);
  return buffer.toString('utf8', start, end === -1 || end > start + length ? start + length : end);
}

function readOctal(buffer: Buffer, start: number, length: number): number | undefined {
  const text = buffer
    .toString('latin1', start, start + length)
    .replace(/[\0 ]+$/, '')
    .trim();
  if (!/^[0-7]+$/.test(text)) return undefined;
  return parseInt(text, 8);
}

/** The size field: octal, or GNU base-256 (high bit set) for entries of 8 GiB and more. */
function readSize(header: Buffer): number | undefined {
  if (((header[124] as number) & 0x80) === 0) return readOctal(header, 124, 12);
  let value = 0;
  for (let i = 125; i < 136; i++) value = value * 256 + (header[i] as number);
  return Number.isSafeInteger(value) ? value : undefined;
}

function checksumOf(header: Buffer): number {
  let sum = 0;
  for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 0x20 : (header[i] as number);
  return sum;
}

/** The `path` of PAX extended header records (`"<length> <key>=<value>\n"`), if there is one. */
function paxPath(data: Buffer): string | undefined {
  let at = 0;
  let path: string | undefined;
  while (at < data.length) {
    const space = data.indexOf(0x20, at);
    if (space === -1) break;
    const length = parseInt(data.toString('latin1', at, space), 10);
    if (!(length > 0) || at + length > data.length) break;
    const record = data.toString('utf8', space + 1, at + length - 1);
    const equals = record.indexOf('=');
    if (equals !== -1 && record.slice(0, equals) === 'path') path = record.slice(equals + 1);
    at += length;
  }
  return path;
}

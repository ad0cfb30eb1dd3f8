import type { DeferredBytes } from '../record/deferred-record';
import type { FieldValue } from '../record/field';

/**
 * The size of the blocks a {@link TextArena} copies texts into: just over 32 MiB, so that the C allocator (glibc)
 * always maps a block on its own and unmaps it when it is freed. Smaller blocks came from its heap once its
 * threshold for mapping had grown past them, and their freed memory stayed resident (`npm run bench -- --memory`
 * read RSS 1.12–1.20x warm after 100 MB bodies with 256 KiB blocks). Pages of a block that no text reached are
 * never resident.
 */
const BLOCK_BYTES = 32 * 1024 * 1024 + 64 * 1024;
/** A text longer than this gets a block of its own, so that a block never wastes more than this at its end. */
const OWN_BLOCK_BYTES = 256 * 1024;
/** UTF-8 takes at most 3 bytes per UTF-16 code unit (a surrogate pair: 4 bytes for 2 units). */
const MAX_UTF8_BYTES_PER_UNIT = 3;

/**
 * Where a parser deferring values (decision 0125) keeps the source texts of a large body's records: copied, as
 * UTF-8, into blocks of 32 MiB allocated outside V8's heap, one after the other (decision 0135). A record then
 * holds its block and two offsets ({@link DeferredBytes}) instead of a string of its own.
 *
 * Why: a large body's records live until its batch is answered, so each record's text string survived the
 * scavenges during the upload and was copied by them, once into the young generation's second half and once into
 * the old generation; those copies were most of the pauses that other clients' requests waited behind. Bytes
 * outside the heap are never copied by the garbage collector, and a block is one heap object for hundreds of
 * records.
 *
 * One arena per parser (per request); its blocks are freed when the last record holding them is collected. A
 * block, once its bytes are handed out, is never written there again.
 */
export class TextArena {
  #block: Buffer | undefined;
  #used = 0;

  /** Copies `bytes` from `start` to `end` (UTF-8 text) into the arena; the record's value is `decode` of it. */
  copy(bytes: Uint8Array, start: number, end: number, decode: (text: string) => FieldValue): DeferredBytes {
    const length = end - start;
    const source = bytes.subarray(start, end);
    if (length > OWN_BLOCK_BYTES) {
      const own = ownBlock(length);
      own.set(source);
      return { bytes: own, start: 0, end: length, decode };
    }
    const block = this.#room(length);
    const at = this.#used;
    block.set(source, at);
    this.#used = at + length;
    return { bytes: block, start: at, end: at + length, decode };
  }

  /** Writes `text` into the arena as UTF-8; the record's value is `decode` of it. */
  write(text: string, decode: (text: string) => FieldValue): DeferredBytes {
    // Room for the longest encoding first: counting the UTF-8 bytes would read the text twice.
    const most = text.length * MAX_UTF8_BYTES_PER_UNIT;
    if (most > OWN_BLOCK_BYTES) {
      const length = Buffer.byteLength(text, 'utf8');
      if (length > OWN_BLOCK_BYTES) {
        const own = ownBlock(length);
        own.write(text, 0, 'utf8');
        return { bytes: own, start: 0, end: length, decode };
      }
    }
    const block = this.#room(Math.min(most, OWN_BLOCK_BYTES));
    const at = this.#used;
    const written = block.write(text, at, 'utf8');
    this.#used = at + written;
    return { bytes: block, start: at, end: at + written, decode };
  }

  /** The current block when it has `length` bytes free, else a new one (`length` ≤ {@link OWN_BLOCK_BYTES}). */
  #room(length: number): Buffer {
    const block = this.#block;
    if (block !== undefined && block.length - this.#used >= length) return block;
    this.#block = ownBlock(BLOCK_BYTES);
    this.#used = 0;
    return this.#block;
  }
}

/** Not a slice of Node's shared pool, whose other users' bytes the records would keep alive. */
function ownBlock(length: number): Buffer {
  return Buffer.allocUnsafeSlow(length);
}

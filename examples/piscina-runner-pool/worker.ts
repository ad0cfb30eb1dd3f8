// The pipeline's CPU-heavy stage, run on a worker thread by piscina: it receives the records' values (plain
// data, copied to the thread by structured clone) and returns the values of the response records.
import { createHash } from 'node:crypto';
import { isMainThread } from 'node:worker_threads';

/** What the main thread sends for one batch. */
export interface DigestTask {
  readonly documents: readonly { readonly id?: unknown; readonly text?: unknown }[];
  /** How many times each text is hashed (key stretching stands in for any CPU-bound stage). */
  readonly rounds: number;
}

/** One response record's value. */
export interface Digest {
  readonly id: string;
  readonly sha256: string;
  /** True: the stage ran on a worker thread, not on the thread that serves requests. */
  readonly onWorkerThread: boolean;
}

export default function digest({ documents, rounds }: DigestTask): Digest[] {
  return documents.map((document) => {
    let hash = Buffer.from(String(document.text ?? ''), 'utf8');
    for (let round = 0; round < rounds; round++) hash = createHash('sha256').update(hash).digest();
    return { id: String(document.id ?? ''), sha256: hash.toString('hex'), onWorkerThread: !isMainThread };
  });
}

import type { Socket } from 'node:net';

/** How long a refused client may go on sending after its answer, before the connection is cut. */
export const LINGER_MS = 2_000;

/**
 * Makes the close Node does after an answer with `Connection: close` a lingering one (as Apache's): the answer is
 * followed by a FIN, the client's further bytes are still read (and discarded by Node's parser) until the client
 * closes its side too or {@link LINGER_MS} pass, and only then is the socket destroyed.
 *
 * Why: an answer sent before the body was read (413, 408, 503…) closes a socket that still has unread bytes, and
 * Linux answers those with a reset, which makes the client drop the answer it had not read yet: a client still
 * sending its body saw a connection reset instead of its 413. Node calls `destroySoon()` once the response is
 * written; this replaces it on the one socket.
 */
export function lingerOnClose(socket: Socket): void {
  socket.destroySoon = function lingeringClose(this: Socket): void {
    if (this.writable) this.end();
    const timer = setTimeout(() => this.destroy(), LINGER_MS);
    timer.unref();
    this.once('close', () => clearTimeout(timer));
  };
}

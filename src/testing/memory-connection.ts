import { Duplex } from 'node:stream';

/**
 * Two ends of an in-memory connection: what one end writes, the other reads; ending one ends the other's
 * readable side, destroying one destroys both. Stands in for a TCP connection between a client and a server in
 * the same process (Node 20 has no `stream.duplexPair`).
 *
 * @param serverAddress - the `remoteAddress` the server end reports (a socket's client address).
 */
export function memoryConnection(serverAddress: string): { client: Duplex; server: Duplex } {
  // Each end pushes into the other, which exists only once both are made: hence the look-up through `ends`.
  const ends: { client?: Duplex; server?: Duplex } = {};
  const end = (peer: () => Duplex | undefined): Duplex =>
    new Duplex({
      read() {},
      write(chunk: Buffer, _encoding, callback) {
        peer()?.push(chunk);
        callback();
      },
      final(callback) {
        peer()?.push(null);
        callback();
      },
      destroy(error, callback) {
        const other = peer();
        if (other !== undefined && !other.destroyed) other.destroy();
        callback(error);
      },
    });
  const client = (ends.client = end(() => ends.server));
  const server = (ends.server = end(() => ends.client));
  // What node:http and the origin read of a socket: the client's address, and the no-ops of a TCP socket.
  Object.assign(server, {
    remoteAddress: serverAddress,
    remotePort: 0,
    setNoDelay: () => server,
    setKeepAlive: () => server,
    setTimeout: () => server,
  });
  Object.assign(client, { setNoDelay: () => client, setKeepAlive: () => client, setTimeout: () => client });
  return { client, server };
}

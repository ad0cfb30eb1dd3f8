import type { IncomingMessage } from 'node:http';
import { remoteHostOf, requestAttributes, splitTarget } from '../http/request-attributes';
import type { RequestInfo } from '../pipeline/batch';
import type { HeaderAttributes } from '../record/record-header';
import type { RequestRecordSource } from '../record/data-record';

/**
 * What the origin knows about one request, read from its `IncomingMessage` when first asked: the batch's
 * {@link RequestInfo} and the source its records' headers are built from, in one object.
 *
 * Most pipelines never read a record header or the request's headers (the echo microservice does not), and
 * copying the headers into attributes was one of the larger costs of a small request; so the header attributes
 * are built on first read, from the message's `rawHeaders`, and are the same object from then on. The request
 * line's parts are cheap and read at once.
 */
export class IncomingRequestInfo implements RequestInfo, RequestRecordSource {
  readonly requestId: string;
  readonly method: string;
  readonly path: string;
  readonly queryString: string;
  readonly receivedAt: number;
  /** Set by the request path once the application ID check admitted the request. */
  applicationId: string | undefined;
  readonly #message: Pick<IncomingMessage, 'method' | 'url' | 'rawHeaders' | 'socket'>;
  readonly #copyAuthorizationHeaders: boolean;
  readonly #clientCertificate: HeaderAttributes | undefined;
  #attributes: HeaderAttributes | undefined;

  constructor(
    requestId: string,
    message: Pick<IncomingMessage, 'method' | 'url' | 'rawHeaders' | 'socket'>,
    copyAuthorizationHeaders: boolean,
    clientCertificate?: HeaderAttributes,
  ) {
    this.requestId = requestId;
    this.method = message.method ?? '';
    const { path, queryString } = splitTarget(message.url ?? '/');
    this.path = path;
    this.queryString = queryString;
    this.receivedAt = Date.now();
    this.applicationId = undefined;
    this.#message = message;
    this.#copyAuthorizationHeaders = copyAuthorizationHeaders;
    this.#clientCertificate = clientCertificate;
  }

  /** The client's address as the `remoteHost` attribute shows it (an IPv4-mapped IPv6 address as IPv4). */
  get remoteHost(): string {
    return remoteHostOf(this.#message.socket?.remoteAddress);
  }

  /** The request's header attributes (frozen, built once): the records' base attributes. */
  get headers(): HeaderAttributes {
    return (this.#attributes ??= requestAttributes(this.#message, {
      copyAuthorizationHeaders: this.#copyAuthorizationHeaders,
      verified: this.#clientCertificate,
    }));
  }

  /** The same attributes under the name a record source gives them. */
  get baseAttributes(): HeaderAttributes {
    return this.headers;
  }
}

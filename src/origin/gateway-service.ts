import type { IncomingMessage, ServerResponse } from 'node:http';
import type { OriginError } from '../errors/origin-error';

/**
 * The API gateway as an origin sees it (decision 0065): the origin owns this contract and the gateway implements
 * it, so that origin/ never imports gateway/ and gateway/ imports of origin/ only this file.
 */
export interface ServiceGateway {
  /**
   * Registers a service under `service.name` and returns where callers reach it.
   *
   * @throws OriginError `ORIGIN_GATEWAY_SERVICE_TAKEN` when the name is registered already,
   *   `ORIGIN_GATEWAY_NOT_LISTENING` when the gateway is not listening, `ORIGIN_GATEWAY_AUTHENTICATOR_MISSING`
   *   when the service is on the secure API and the gateway has no authenticator.
   */
  register(service: GatewayService): GatewayRegistration;
}

/** Which of the gateway's APIs a service is reached through: `/rest/v1/gateway/…` or `/public-rest/v1/gateway/…`. */
export type GatewayApi = 'secure' | 'public';

/** An origin as a service of the gateway. */
export interface GatewayService {
  /** `http.gatewayServiceName`: the URL segment after `/v1/gateway/`. */
  readonly name: string;
  /** `secure` when `http.requireGatewayAuthentication`, else `public`. */
  readonly api: GatewayApi;
  /** The pipeline the gateway's authorizer is asked about ("may user U read pipeline P"). */
  readonly pipeline: string;
  /**
   * Serves a request the gateway let through. `req.url` has been rewritten to the caller's path after the
   * service name and its query, so the `path` and `queryString` attributes read as in listening-port mode;
   * `identity` is the authenticated caller's attributes (`authenticationMethod: gateway`, `authenticatedUser`),
   * `undefined` for an anonymous caller of the public API. Never throws.
   */
  serve(
    req: IncomingMessage,
    res: ServerResponse,
    identity: Readonly<Record<string, string>> | undefined,
  ): void;
  /** Answers a request the gateway refused (401, 403, 400) in the origin's response format. Never throws. */
  refuse(
    req: IncomingMessage,
    res: ServerResponse,
    error: OriginError,
    headers?: Record<string, string>,
  ): void;
}

/** A registered service. */
export interface GatewayRegistration {
  /** The URL callers reach the service at, e.g. `http://gw:8443/rest/v1/gateway/orders`. */
  readonly url: string;
  /** Removes the service: from now on its URL is answered 404. Calling it again does nothing. */
  unregister(): void;
}

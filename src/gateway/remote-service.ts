import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { Pool } from 'undici';
import { GATEWAY_SECRET_HEADER, GATEWAY_USER_HEADER } from '../auth/forwarded-authenticator';
import { withForwardedFor } from '../http/client-address';
import { IDENTITY_ATTRIBUTES } from '../auth/identity-attributes';
import { OriginError } from '../errors/origin-error';
import type { GatewayApi, GatewayService } from '../origin/gateway-service';
import { renderJsonEnvelopeError } from '../response/json-response';

/** An origin in another process, as the host registers it with `gateway.registerRemote` (decision 0067). */
export interface RemoteService {
  readonly name: string;
  readonly api: GatewayApi;
  /** The pipeline the authorizer is asked about. */
  readonly pipeline: string;
  /** The origin's own endpoint (`http://10.0.0.5:8000/`, `https://…` when it serves TLS). */
  readonly url: string;
  /** The per-registration secret the origin was given as `options.gatewaySecret`. */
  readonly secret: string;
  /** Connections the gateway keeps to the origin; 16 by default. */
  readonly connections?: number;
  /** TLS options of the connection to an HTTPS origin (`ca` for its certificate). */
  readonly connect?: Pool.Options['connect'];
}

// RFC 9110 §7.6.1: meaningful for one connection only, never forwarded. `host` is the origin's own.
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'host',
]);

/**
 * A {@link GatewayService} that forwards over an undici pool: request and response bodies stream both ways,
 * hop-by-hop headers are dropped, any client-sent copy of the secret or user header is dropped and the gateway's
 * own are set. The origin enforces its own limits and answers; a connection failure is 502.
 */
export class RemoteForwarder implements GatewayService {
  readonly name: string;
  readonly api: GatewayApi;
  readonly pipeline: string;
  readonly #secret: string;
  readonly #pool: Pool;

  constructor(remote: RemoteService) {
    this.name = remote.name;
    this.api = remote.api;
    this.pipeline = remote.pipeline;
    this.#secret = remote.secret;
    this.#pool = new Pool(new URL(remote.url).origin, {
      connections: remote.connections ?? 16,
      ...(remote.connect === undefined ? {} : { connect: remote.connect }),
    });
  }

  serve(
    req: IncomingMessage,
    res: ServerResponse,
    identity: Readonly<Record<string, string>> | undefined,
  ): void {
    const headers = forwardedHeaders(req.headers);
    // As a proxy does, so that the origin, trusting the gateway (http.trustedProxies), sees the client's address.
    headers['x-forwarded-for'] = withForwardedFor(req.headers['x-forwarded-for'], req.socket.remoteAddress);
    headers[GATEWAY_SECRET_HEADER] = this.#secret;
    const user = identity?.[IDENTITY_ATTRIBUTES.user];
    if (user !== undefined) headers[GATEWAY_USER_HEADER] = user;
    const hasBody =
      req.headers['content-length'] !== undefined || req.headers['transfer-encoding'] !== undefined;
    this.#pool
      .request({
        path: req.url ?? '/',
        method: (req.method ?? 'GET') as 'GET',
        headers,
        ...(hasBody ? { body: req } : {}),
      })
      .then(
        ({ statusCode, headers: answerHeaders, body }) => {
          res.writeHead(statusCode, forwardedHeaders(answerHeaders as IncomingHttpHeaders));
          body.pipe(res);
          body.on('error', () => res.destroy());
          // A client that goes away frees the upstream connection rather than leaving the answer unread.
          res.on('close', () => {
            if (!res.writableFinished) body.destroy();
          });
        },
        (error: unknown) => {
          const detail = error instanceof Error ? error.message : String(error);
          this.refuse(
            req,
            res,
            new OriginError('ORIGIN_GATEWAY_UPSTREAM_FAILED', { service: this.name, detail }),
          );
        },
      );
  }

  refuse(
    req: IncomingMessage,
    res: ServerResponse,
    error: OriginError,
    headers?: Record<string, string>,
  ): void {
    answerWithEnvelope(req, res, error, headers);
  }

  close(): Promise<void> {
    return this.#pool.close();
  }
}

/** The end-to-end headers of a message, without the gateway's own (a client cannot send those). */
function forwardedHeaders(headers: IncomingHttpHeaders): Record<string, string | string[]> {
  const named = new Set(
    String(headers['connection'] ?? '')
      .toLowerCase()
      .split(/\s*,\s*/),
  );
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || HOP_BY_HOP.has(name) || named.has(name)) continue;
    if (name === GATEWAY_SECRET_HEADER || name === GATEWAY_USER_HEADER) continue;
    out[name] = value;
  }
  return out;
}

/** Answers with the default JSON envelope; closes the connection when a request body is left unread. */
export function answerWithEnvelope(
  req: IncomingMessage,
  res: ServerResponse,
  error: OriginError,
  extra: Record<string, string> = {},
): void {
  if (res.headersSent || res.destroyed) return;
  const rendered = renderJsonEnvelopeError(error.httpStatus, error.describe(), { charset: 'UTF-8' });
  const headers: Record<string, string | number> = { ...rendered.headers, ...extra };
  headers['Content-Length'] = Buffer.byteLength(rendered.body as Buffer | string);
  if (!req.complete) headers['Connection'] = 'close';
  res.writeHead(rendered.status, headers);
  res.end(rendered.body);
}

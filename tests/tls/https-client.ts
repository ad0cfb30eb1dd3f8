import { execFile } from 'node:child_process';
import { Agent, request } from 'undici';
import {
  InProcessRunnerPool,
  Origin,
  echoPipeline,
  type OriginConfigInput,
  type Pipeline,
  type TlsCredentials,
} from 'rest-service-origin';
import type { TlsMaterial } from './tls-material';

/** Which client certificate an HTTPS client presents: none, one signed by the test CA, or one by another CA. */
export type ClientIdentity = 'none' | 'trusted' | 'foreign';

/**
 * An undici Agent that trusts the test CA and presents the chosen client certificate. `pipelining: 0` and one
 * connection keep requests on one keep-alive connection, which the reload tests rely on. Close it in teardown.
 */
export function httpsAgent(
  material: TlsMaterial,
  identity: ClientIdentity = 'none',
  ca: string = material.caPem,
): Agent {
  const client =
    identity === 'trusted'
      ? { cert: material.read(material.files.clientCert), key: material.read(material.files.clientKey) }
      : identity === 'foreign'
        ? {
            cert: material.read(material.files.foreignClientCert),
            key: material.read(material.files.foreignClientKey),
          }
        : {};
  return new Agent({ connections: 1, connect: { ca, ...client } });
}

/** Sends one request over `agent` and reads the whole answer. */
export async function sendHttps(
  url: string,
  agent: Agent,
  options: { method?: string; path?: string; body?: string; headers?: Record<string, string> } = {},
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; json: unknown }> {
  const answer = await request(new URL(options.path ?? '/', url), {
    dispatcher: agent,
    method: (options.method ?? 'POST') as 'POST',
    body: options.body,
    headers: options.headers,
  });
  const text = await answer.body.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = text;
  }
  return { status: answer.statusCode, headers: answer.headers, json };
}

/**
 * Runs `curl` against an HTTPS URL, trusting the test CA (and presenting the trusted client certificate when
 * asked). Resolves with curl's exit code, its output (body, then `\n<status>`) and stderr; never rejects on a
 * non-zero exit, so that a refused handshake can be asserted.
 */
export function curlHttps(
  url: string,
  material: TlsMaterial,
  options: { body?: string; identity?: ClientIdentity; extraArgs?: readonly string[] } = {},
): Promise<{ exitCode: number; stdout: string; stderr: string }> {
  const args = ['--silent', '--show-error', '--cacert', material.path('ca.pem'), '-w', '\n%{http_code}'];
  if (options.identity === 'trusted' || options.identity === 'foreign') {
    const files = material.files;
    const [cert, key] =
      options.identity === 'trusted'
        ? [files.clientCert, files.clientKey]
        : [files.foreignClientCert, files.foreignClientKey];
    args.push('--cert', material.path(cert), '--key', material.path(key));
  }
  if (options.body !== undefined)
    args.push('-H', 'Content-Type: application/json', '--data-binary', options.body);
  args.push(...(options.extraArgs ?? []), url);
  return new Promise((resolve) => {
    execFile('curl', args, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === 'number' ? error.code : 1;
      resolve({ exitCode: code, stdout, stderr });
    });
  });
}

/** An origin serving HTTPS on an ephemeral loopback port, and a way to stop it with its runner pool. */
export interface HttpsTestOrigin {
  readonly origin: Origin;
  readonly url: string;
  stop(): Promise<void>;
}

/**
 * Starts an origin with `tls.useTls` on 127.0.0.1, port 0, JSON, `general.resourcesDirectory` = the material's
 * directory (so keystore names of `material.files` work as relative paths), and a PEM keystore unless `tls`
 * says otherwise. `config` adds or overrides other tabs (its `tls` is merged over the defaults here).
 */
export async function startHttpsOrigin(
  material: TlsMaterial,
  config: Partial<OriginConfigInput> = {},
  options: { pipeline?: Pipeline; tlsCredentials?: TlsCredentials } = {},
): Promise<HttpsTestOrigin> {
  const pool = new InProcessRunnerPool(4, options.pipeline ?? echoPipeline, { runnerIdleTimeMs: 0 });
  const origin = new Origin(
    {
      ...config,
      general: { resourcesDirectory: material.dir, ...config.general },
      http: { host: '127.0.0.1', port: 0, ...config.http },
      dataFormat: config.dataFormat ?? { format: 'json' },
      tls: { useTls: true, keystoreType: 'pem', keystoreFile: material.files.pemKeystore, ...config.tls },
    },
    { runners: pool, ...(options.tlsCredentials ? { tlsCredentials: options.tlsCredentials } : {}) },
  );
  const stop = async (): Promise<void> => {
    await origin.destroy();
    await pool.close();
  };
  try {
    return { origin, url: await origin.start(), stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

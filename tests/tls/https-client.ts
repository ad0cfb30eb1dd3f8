import { execFile } from 'node:child_process';
import { Agent, request } from 'undici';
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

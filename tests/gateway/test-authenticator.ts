import type { GatewayAuthenticator, GatewayAuthentication, GatewayUser } from 'rest-service-origin';

/** A test authenticator on the committed contract: HTTP Basic against a fixed list of users (plain passwords). */
export class ListAuthenticator implements GatewayAuthenticator {
  readonly kind = 'test-list';
  readonly challenge = 'Basic realm="gateway", charset="UTF-8"';
  closed = false;
  failWith: Error | undefined;
  readonly #users: ReadonlyMap<string, { password: string; user: GatewayUser }>;

  constructor(users: readonly { name: string; password: string; roles: readonly string[] }[]) {
    this.#users = new Map(
      users.map((u) => [u.name, { password: u.password, user: { name: u.name, roles: u.roles } }]),
    );
  }

  async authenticate(request: {
    headers: Record<string, string | string[] | undefined>;
  }): Promise<GatewayAuthentication> {
    if (this.failWith) throw this.failWith;
    const header = request.headers['authorization'];
    if (typeof header !== 'string') return { ok: false, reason: 'missing', challenge: this.challenge };
    const match = /^Basic ([A-Za-z0-9+/=]+)$/.exec(header);
    const [name = '', password] = match
      ? Buffer.from(match[1] ?? '', 'base64')
          .toString('utf8')
          .split(':', 2)
      : [];
    const entry = this.#users.get(name);
    if (entry === undefined || entry.password !== password) {
      return { ok: false, reason: 'invalid', challenge: this.challenge };
    }
    return { ok: true, user: entry.user };
  }

  async close(): Promise<void> {
    this.closed = true;
  }
}

export function basic(user: string, password: string): string {
  return `Basic ${Buffer.from(`${user}:${password}`, 'utf8').toString('base64')}`;
}

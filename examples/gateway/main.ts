// Two services on one API gateway, in one process: `orders` on the secure API (the gateway authenticates and
// checks roles and read permission) and `status` on the public API. Run it with `npx tsx examples/gateway/main.ts`.
import {
  Gateway,
  InMemoryAcl,
  InProcessRunnerPool,
  Origin,
  SendResponse,
  type GatewayAuthenticator,
} from 'rest-service-origin';

// A host's own authenticator on the GatewayAuthenticator contract (the shipped ones read a users file or LDAP):
// HTTP Basic against one hard-wired user, for the example only.
const authenticator: GatewayAuthenticator = {
  kind: 'example',
  async authenticate({ headers }) {
    const challenge = 'Basic realm="gateway", charset="UTF-8"';
    if (headers.authorization === undefined) return { ok: false, reason: 'missing', challenge };
    const expected = `Basic ${Buffer.from('ada:example-password').toString('base64')}`;
    if (headers.authorization !== expected) return { ok: false, reason: 'invalid', challenge };
    return { ok: true, user: { name: 'ada', roles: ['manager'] } };
  },
};

const gateway = new Gateway({
  port: Number(process.env.PORT ?? 0),
  host: '127.0.0.1',
  authenticator,
  authorizer: new InMemoryAcl({ orders: ['ada'], status: ['*'] }),
});
console.log(`gateway at ${await gateway.start()}`);

// The pipeline answers with each record and who sent it (the gateway's identity attributes).
const runners = new InProcessRunnerPool(10, (batch) => {
  const response = new SendResponse();
  for (const record of batch.records) {
    record.set('/user', record.header.getAttributeOrDefault('authenticatedUser', 'anonymous'));
    record.set('/path', record.header.getAttributeOrDefault('path', ''));
  }
  response.write(batch);
});
const service = (name: string, secure: boolean): Origin =>
  new Origin(
    {
      general: { name },
      http: { useApiGateway: true, gatewayServiceName: name, requireGatewayAuthentication: secure },
      dataFormat: { format: 'json' },
    },
    { runners, gateway },
  );
const orders = service('orders', true);
const status = service('status', false);
console.log(`orders at ${await orders.start()}`);
console.log(`status at ${await status.start()}`);

async function call(url: string | undefined, headers: Record<string, string> = {}): Promise<void> {
  const answer = await fetch(`${url}/eu?since=1`, {
    method: 'POST',
    headers: { 'X-Requested-By': 'example', ...headers },
    body: '{"item":"tea"}',
  });
  console.log(answer.status, await answer.text());
}

await call(status.url);
await call(orders.url);
await call(orders.url, { Authorization: `Basic ${Buffer.from('ada:example-password').toString('base64')}` });

await orders.close();
await status.close();
await gateway.close();
await runners.close();

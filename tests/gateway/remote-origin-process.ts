// An origin in its own process behind a gateway in another (tests/gateway/remote.test.ts): gateway mode with a
// gateway secret, listening on an ephemeral loopback port. Each record is answered with its header attributes.
// argv: <service name> <secret> [<JSON of extra config tabs, e.g. tls, general, options of http>]. Prints `listening at <url>`, closes on SIGTERM.
import { InProcessRunnerPool, Origin, SendResponse } from 'rest-service-origin';

const [name = 'remote', secret = '', extra = '{}'] = process.argv.slice(2);
const more = JSON.parse(extra) as Record<string, object>;
const runners = new InProcessRunnerPool(10, (batch) => {
  for (const record of batch.records) record.set('/attributes', record.header.attributes());
  new SendResponse().write(batch);
});
const origin = new Origin(
  {
    ...more,
    general: { name, ...more['general'] },
    http: {
      useApiGateway: true,
      gatewayServiceName: name,
      host: '127.0.0.1',
      port: 0,
      maxRequestSizeMb: 1,
      ...more['http'],
    },
    dataFormat: { format: 'json' },
  },
  { runners, gatewaySecret: secret },
);
console.log(`listening at ${await origin.start()}`);
process.once('SIGTERM', () => {
  void origin.close().then(() => runners.close());
});

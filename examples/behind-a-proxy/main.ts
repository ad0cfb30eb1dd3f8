// An origin behind a load balancer: http.trustedProxies says which peers are proxies, and only their
// X-Forwarded-For names the client (docs/deployment.md). The pipeline answers with the remoteHost each record got.
//   node --import tsx examples/behind-a-proxy/main.ts
import { request } from 'node:http';
import { InProcessRunnerPool, Origin, SendResponse } from 'rest-service-origin';

const reply = new SendResponse();
const runners = new InProcessRunnerPool(10, (batch) => {
  for (const record of batch.records)
    record.set('/remoteHost', record.header.getAttribute('remoteHost') ?? '');
  reply.write(batch);
});
const origin = new Origin(
  {
    // nginx on this machine connects from 127.0.0.1; list your balancers' addresses or ranges here.
    http: { host: '127.0.0.1', port: 0, trustedProxies: ['127.0.0.1', '10.0.0.0/8'] },
    dataFormat: { format: 'json' },
  },
  { runners },
);
const url = new URL(await origin.start());

/** POSTs one record from `localAddress` with the given X-Forwarded-For; resolves with the remoteHost it got. */
function remoteHostSeen(localAddress: string, forwardedFor: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method: 'POST', localAddress, headers: { 'X-Forwarded-For': forwardedFor } },
      (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString()));
        res.on('end', () =>
          resolve((JSON.parse(text) as { data: { remoteHost: string }[] }).data[0]!.remoteHost),
        );
      },
    );
    req.on('error', reject);
    req.end('{"order":1}');
  });
}

// From the proxy (127.0.0.1): the header is walked from the right, trusted hops skipped.
console.log('via the proxy:', await remoteHostSeen('127.0.0.1', '198.51.100.7, 10.1.2.3'));
// From a client that is no proxy (127.0.0.2): its header is a forgery and changes nothing.
console.log('forged:', await remoteHostSeen('127.0.0.2', '198.51.100.7'));
await origin.close();
await runners.close();

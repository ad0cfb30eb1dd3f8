// A host's own DataFormat (logfmt-format.ts) registered beside the built-in ones and used by an origin.
// Run it with `npx tsx examples/custom-format/main.ts`.
import { InProcessRunnerPool, Origin, SendResponse, defaultRegistry, parseWhole } from 'rest-service-origin';
import { logfmtFormat } from './logfmt-format';

// A clone, so that other origins of the process keep the registry they had.
const formats = defaultRegistry.clone().register(logfmtFormat);

// Parsers are testable without HTTP: parseWhole validates the options and applies the schema's defaults.
const { records } = parseWhole(logfmtFormat, { numbers: false }, Buffer.from('a=1 b="x y"\n'));
console.log('parsed alone:', JSON.stringify(records.map((record) => record.value)));

const runners = new InProcessRunnerPool(2, (batch) => {
  // Records the format could not parse arrive as error records (onRecordError: sendToError, the default).
  new SendResponse().write(batch);
  SendResponse.forErrors({ statusCode: 400 }).write(batch, batch.errorRecords);
});
const origin = new Origin(
  {
    http: { host: '127.0.0.1', port: 0, maxConcurrentRequests: 2 },
    dataFormat: { format: 'logfmt', logfmt: { maxLineBytes: 200 } },
  },
  { runners, formats },
);
const url = await origin.start();

const body = [
  'level=info msg="disk full" retries=3 urgent',
  'level=warn msg="unterminated',
  'level=debug msg=ok',
].join('\n');
const answer = await fetch(url, { method: 'POST', body });
console.log(answer.status, await answer.text());

await origin.close();
await runners.close();

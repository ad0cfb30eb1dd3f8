import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  InProcessRunnerPool,
  Origin,
  SendResponse,
  defaultRegistry,
  jsonFormat,
  type Batch,
  type DataFormat,
  type OriginConfigInput,
  type OriginEvents,
  type RunnerPool,
} from 'rest-service-origin';
import { send } from './origin-helpers';

/**
 * Issue 12, Found 10 (decision 0046): a client cannot forge a record header attribute the origin or a format
 * writes by sending a request header of that name, and the message of an error the origin did not write does
 * not reach the client unless the host opts in with `httpResponse.sendErrorDetails`.
 */

const FIXTURES = join(__dirname, '..', 'fixtures', 'formats');

const origins: Origin[] = [];
afterEach(async () => {
  await Promise.all(origins.splice(0).map((origin) => origin.destroy()));
});

async function serve(
  config: Omit<OriginConfigInput, 'http'> & { http?: OriginConfigInput['http'] },
  runners: RunnerPool,
  formats = defaultRegistry,
): Promise<{ origin: Origin; url: string }> {
  const origin = new Origin(
    { ...config, http: { host: '127.0.0.1', port: 0, ...config.http } },
    { runners, formats },
  );
  origins.push(origin);
  return { origin, url: await origin.start() };
}

/** A pool whose pipeline keeps every record's header attributes and answers with the records. */
function recordingPool(seen: Record<string, string>[]): InProcessRunnerPool {
  return new InProcessRunnerPool(
    2,
    (batch: Batch) => {
      for (const record of batch.records) seen.push(record.header.attributes());
      new SendResponse().write(batch);
    },
    { runnerIdleTimeMs: 0 },
  );
}

const FORGED = {
  emptyPayloadRecord: 'true',
  AVROSCHEMA: '{"type":"string"}',
  filePathInsideArchive: '/etc',
  FileNameInsideArchive: 'passwd',
  errorRecordIndex: '0',
  errorByteOffset: '0',
  xmlns: 'urn:forged',
  tlsClientSubject: 'CN=admin',
};

describe('request headers named like attributes the origin or a format writes', () => {
  it('never land in a record; other headers do', async () => {
    const seen: Record<string, string>[] = [];
    const { url } = await serve({ dataFormat: { format: 'json' } }, recordingPool(seen));
    const answer = await send(url, { body: '{"a":1}', headers: { ...FORGED, 'X-Tag': 'blue' } });
    expect(answer.status).toBe(200);
    expect(seen).toHaveLength(1);
    const attributes = seen[0]!;
    expect(attributes['X-Tag']).toBe('blue');
    const lowerNames = Object.keys(attributes).map((name) => name.toLowerCase());
    for (const forged of Object.keys(FORGED)) expect(lowerNames).not.toContain(forged.toLowerCase());
  });

  it('leave the values the format wrote: avroSchema from the container, not from the header', async () => {
    const seen: Record<string, string>[] = [];
    const { url } = await serve({ dataFormat: { format: 'avro' } }, recordingPool(seen));
    const body = readFileSync(join(FIXTURES, 'avro', 'null-codec.input.bin'));
    const answer = await send(url, { body, headers: { avroSchema: '{"type":"string"}' } });
    expect(answer.status).toBe(200);
    expect(seen.length).toBeGreaterThan(0);
    for (const attributes of seen) {
      expect(attributes['avroSchema']).toContain('"name": "Order"');
      expect(Object.keys(attributes).filter((name) => name.toLowerCase() === 'avroschema')).toEqual([
        'avroSchema',
      ]);
    }
  });

  it('leave an empty body its own emptyPayloadRecord marker and nothing else', async () => {
    const seen: Record<string, string>[] = [];
    const { url } = await serve({ dataFormat: { format: 'json' } }, recordingPool(seen));
    await send(url, { method: 'GET', headers: { EmptyPayloadRecord: 'false' } });
    expect(seen).toHaveLength(1);
    expect(seen[0]!['emptyPayloadRecord']).toBe('true');
    expect(seen[0]!['EmptyPayloadRecord']).toBeUndefined();
  });

  it('include what a host format declares in headerAttributes, whichever format the origin uses', async () => {
    const hostFormat: DataFormat = { ...jsonFormat, name: 'tagged', headerAttributes: ['tenant', 'tag-*'] };
    const formats = defaultRegistry.clone().register(hostFormat);
    const seen: Record<string, string>[] = [];
    const { url } = await serve({ dataFormat: { format: 'json' } }, recordingPool(seen), formats);
    await send(url, { body: '{}', headers: { Tenant: 'other', 'Tag-Color': 'red', tagline: 'kept' } });
    expect(seen[0]!['Tenant']).toBeUndefined();
    expect(seen[0]!['Tag-Color']).toBeUndefined();
    expect(seen[0]!['tagline']).toBe('kept');
  });
});

describe('the message of an error the origin did not write', () => {
  const SECRET = 'connect failed: password=hunter2 at /srv/app/secret.js:12';

  async function failing(
    sendErrorDetails: boolean | undefined,
    runners: RunnerPool,
  ): Promise<{ url: string; rejections: OriginEvents['rejection'][] }> {
    const rejections: OriginEvents['rejection'][] = [];
    const { origin, url } = await serve(
      {
        dataFormat: { format: 'json' },
        ...(sendErrorDetails === undefined ? {} : { httpResponse: { sendErrorDetails } }),
      },
      runners,
    );
    origin.on('rejection', (info) => rejections.push(info));
    return { url, rejections };
  }

  const throwing = (): InProcessRunnerPool =>
    new InProcessRunnerPool(
      1,
      () => {
        throw new Error(SECRET);
      },
      { runnerIdleTimeMs: 0 },
    );

  it('is not sent to the client by default; the rejection event has it', async () => {
    const { url, rejections } = await failing(undefined, throwing());
    const answer = await send(url, { body: '{}' });
    expect(answer.status).toBe(500);
    expect(answer.text).not.toContain('hunter2');
    expect(answer.text).not.toContain('/srv/app');
    const { errorMessage } = answer.json as { errorMessage: string };
    expect(errorMessage).toBe(
      `ORIGIN_PIPELINE_FAILED - The pipeline failed while processing the batch: details withheld (request ${rejections[0]!.requestId}).`,
    );
    expect(rejections[0]!.message).toContain(SECRET);
  });

  it('is sent word for word with httpResponse.sendErrorDetails', async () => {
    const { url } = await failing(true, throwing());
    const answer = await send(url, { body: '{}' });
    expect(answer.status).toBe(500);
    expect((answer.json as { errorMessage: string }).errorMessage).toBe(
      `ORIGIN_PIPELINE_FAILED - The pipeline failed while processing the batch: ${SECRET}.`,
    );
  });

  it('is withheld too when a host runner pool rejects, or throws instead of rejecting', async () => {
    const rejecting: RunnerPool = { size: 1, run: () => Promise.reject(new Error(SECRET)) };
    const throwingPool: RunnerPool = {
      size: 1,
      run: () => {
        throw new Error(SECRET);
      },
    };
    for (const pool of [rejecting, throwingPool]) {
      const { url } = await failing(false, pool);
      const answer = await send(url, { body: '{}' });
      expect(answer.status).toBe(500);
      expect(answer.text).toContain('ORIGIN_PIPELINE_FAILED');
      expect(answer.text).not.toContain('hunter2');
    }
  });
});

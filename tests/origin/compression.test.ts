import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync, zipSync } from 'fflate';
import { DataRecord, SendResponse, field, type Pipeline } from 'rest-service-origin';
import { writeEngineRecords } from '../../src/formats/engine-record/engine-record-codec';
import { injectOrigin, type ServedOrigin } from './origin-helpers';

const FIXTURES = join(__dirname, '..', 'fixtures', 'formats', 'compression');

/** Answers with each record's value and the archive attributes of its header. */
const withEntryNames: Pipeline = (batch) => {
  for (const record of batch.records) {
    record.value = {
      value: record.value,
      file: record.header.getAttribute('fileNameInsideArchive') ?? null,
      path: record.header.getAttribute('filePathInsideArchive') ?? null,
    };
  }
  new SendResponse().write(batch);
  SendResponse.forErrors().write(batch);
};

describe('origin with a compression format', () => {
  let running: ServedOrigin | undefined;
  afterEach(async () => {
    await running?.stop();
    running = undefined;
  });

  it('parses the selected entries of a tar.gz body and names them in the record headers', async () => {
    running = injectOrigin(
      { dataFormat: { format: 'json', compression: { format: 'compressedArchive', filePattern: '*.json' } } },
      withEntryNames,
    );
    const answer = await running.send({ body: readFileSync(join(FIXTURES, 'mixed.tar.gz')) });
    expect(answer.status).toBe(200);
    const data = (answer.json as { data: { value: unknown; file: string; path: string }[] }).data;
    expect(data.slice(0, 3)).toEqual([
      { value: { id: 1, name: 'Ada' }, file: 'customers.json', path: '' },
      { value: { id: 2, name: 'Grace' }, file: 'customers.json', path: '' },
      { value: { source: 'fixture' }, file: 'info.json', path: 'meta' },
    ]);
    expect(data).toHaveLength(4);
  });

  it('reads gzip-compressed Engine Records with their types and header attributes', async () => {
    const seen: unknown[] = [];
    running = injectOrigin(
      { dataFormat: { format: 'engineRecord', compression: { format: 'compressedFile', filePattern: '*' } } },
      (batch) => {
        for (const record of batch.records) {
          seen.push([record.field('/price'), record.get('/id'), record.header.getAttribute('origin')]);
        }
        new SendResponse().write(batch);
      },
    );
    const written = new DataRecord(
      { id: 12n, price: field('DECIMAL', '1.50', { scale: '2' }) },
      { attributes: { origin: 'upstream' } },
    );
    const answer = await running.send({ body: Buffer.from(gzipSync(writeEngineRecords([written]))) });
    expect(answer.status).toBe(200);
    expect(seen).toEqual([[{ type: 'DECIMAL', value: '1.50', attributes: { scale: '2' } }, 12n, 'upstream']]);
  });

  it('refuses a zip bomb with 413 once its decompressed size passes maxRequestSizeMb', async () => {
    running = injectOrigin({
      http: { maxRequestSizeMb: 1 },
      dataFormat: { format: 'json', compression: { format: 'archive', filePattern: '*' } },
    });
    const bomb = Buffer.from(zipSync({ 'zeros.json': new Uint8Array(30_000_000) }, { level: 9 }));
    const answer = await running.send({ body: bomb });
    expect(answer.status).toBe(413);
    expect((answer.json as { errorMessage: string }).errorMessage).toMatch(/^ORIGIN_ARCHIVE_TOO_LARGE - /);
  });

  it('answers 400 when the body is not the configured kind of file', async () => {
    running = injectOrigin({
      dataFormat: { format: 'json', compression: { format: 'compressedFile', filePattern: '*' } },
    });
    const answer = await running.send({ body: '{"plain":true}' });
    expect(answer.status).toBe(400);
    expect((answer.json as { errorMessage: string }).errorMessage).toMatch(
      /^ORIGIN_ARCHIVE_NOT_RECOGNIZED - /,
    );
  });
});

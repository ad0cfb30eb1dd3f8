import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SendResponse, type Pipeline } from 'rest-service-origin';
import { injectOrigin, type ServedOrigin } from './origin-helpers';

/** Files made by the real tools (tests/fixtures/formats/compression/generate-tools.sh). */
const TOOLS = join(__dirname, '..', 'fixtures', 'formats', 'compression', 'tools');
const tool = (name: string): Buffer => readFileSync(join(TOOLS, name));

/** The records of customers.json: what each tool's own decompression gives back (the generator checks it). */
const CUSTOMERS = readFileSync(join(TOOLS, 'customers.json'), 'utf8')
  .split('\n')
  .filter((line) => line !== '')
  .map((line) => JSON.parse(line) as unknown);

const FILE_EXTENSIONS = ['gz', 'bz2', 'xz', 'zst', 'sz'];
const TAR_EXTENSIONS = ['gz', 'bz2', 'xz', 'zst'];

/** Answers each record's value with the archive attributes of its header, and the error records. */
const withEntryNames: Pipeline = (batch) => {
  for (const record of batch.records) {
    const path = record.header.getAttribute('filePathInsideArchive');
    record.value = {
      value: record.value,
      entry: path === undefined ? null : `${path}/${record.header.getAttribute('fileNameInsideArchive')}`,
    };
  }
  new SendResponse().write(batch);
  SendResponse.forErrors({ statusCode: 400 }).write(batch);
};

function errorMessage(answer: { json: unknown }): string {
  return (answer.json as { errorMessage: string }).errorMessage;
}

/** Issue 15 item 6: every codec of the Compression Format, with files made by gzip, bzip2, xz, zstd, tar and zip. */
describe('origin with each compression codec', () => {
  let running: ServedOrigin | undefined;
  afterEach(async () => {
    await running?.stop();
    running = undefined;
  });

  const compressedFile = (maxRequestSizeMb = 10): Parameters<typeof injectOrigin>[0] => ({
    http: { maxRequestSizeMb },
    dataFormat: {
      format: 'json',
      json: { jsonContent: 'multipleObjects' },
      compression: { format: 'compressedFile', filePattern: '*' },
    },
  });

  it.each(FILE_EXTENSIONS)('reads a compressed file made by the .%s tool', async (ext) => {
    running = injectOrigin(compressedFile(), withEntryNames);
    const answer = await running.send({ body: tool(`customers.json.${ext}`) });
    expect(answer.status).toBe(200);
    expect((answer.json as { data: unknown[] }).data).toEqual(
      CUSTOMERS.map((value) => ({ value, entry: null })),
    );
  });

  it.each(FILE_EXTENSIONS)('reads the concatenated members of a .%s file as one file', async (ext) => {
    running = injectOrigin(compressedFile(), withEntryNames);
    const answer = await running.send({ body: tool(`customers-concatenated.json.${ext}`) });
    expect(answer.status).toBe(200);
    const values = (answer.json as { data: { value: unknown }[] }).data.map((d) => d.value);
    expect(values).toEqual([...CUSTOMERS, ...CUSTOMERS]);
  });

  it.each(FILE_EXTENSIONS)('answers 413 to a .%s bomb once past maxRequestSizeMb', async (ext) => {
    running = injectOrigin({
      http: { maxRequestSizeMb: 1 },
      dataFormat: {
        format: 'binary',
        binary: { maxDataSizeBytes: 100_000_000 },
        compression: { format: 'compressedFile', filePattern: '*' },
      },
    });
    const body = tool(`bomb.${ext}`);
    expect(body.length).toBeLessThan(1_000_000);
    const answer = await running.send({ body });
    expect(answer.status).toBe(413);
    expect(errorMessage(answer)).toMatch(/^ORIGIN_ARCHIVE_TOO_LARGE - /);
    // The origin goes on serving.
    const after = await running.send({ body: tool(`customers.json.${ext}`) });
    expect(after.status).toBe(200);
  });

  it.each(FILE_EXTENSIONS)('answers 400 to a .%s file cut short', async (ext) => {
    running = injectOrigin(compressedFile(), withEntryNames);
    const whole = tool(`customers-concatenated.json.${ext}`);
    const answer = await running.send({ body: whole.subarray(0, whole.length - 5) });
    expect(answer.status).toBe(400);
    expect(errorMessage(answer)).toMatch(/^ORIGIN_ARCHIVE_MALFORMED - /);
  });

  it.each([...TAR_EXTENSIONS.map((ext) => `mixed.tar.${ext}`), 'mixed-tools.zip'])(
    'reads the selected entries of %s as a compressed archive',
    async (name) => {
      running = injectOrigin(
        {
          dataFormat: {
            format: 'json',
            json: { jsonContent: 'multipleObjects' },
            compression: { format: 'compressedArchive', filePattern: '*.json' },
          },
        },
        withEntryNames,
      );
      const answer = await running.send({ body: tool(name) });
      expect(answer.status).toBe(200);
      expect((answer.json as { data: unknown[] }).data).toEqual([
        ...CUSTOMERS.map((value) => ({ value, entry: '/customers.json' })),
        { value: { source: 'fixture' }, entry: 'meta/info.json' },
      ]);
    },
  );

  it.each(TAR_EXTENSIONS)('answers 400 to a tar.%s cut short', async (ext) => {
    running = injectOrigin({
      dataFormat: { format: 'json', compression: { format: 'compressedArchive', filePattern: '*.json' } },
    });
    const whole = tool(`mixed.tar.${ext}`);
    const answer = await running.send({ body: whole.subarray(0, Math.floor(whole.length / 2)) });
    expect(answer.status).toBe(400);
    expect(errorMessage(answer)).toMatch(/^ORIGIN_ARCHIVE_MALFORMED - /);
  });

  it('answers 400 to a compressed file that holds no tar in compressed-archive mode', async () => {
    running = injectOrigin({
      dataFormat: { format: 'json', compression: { format: 'compressedArchive', filePattern: '*' } },
    });
    const answer = await running.send({ body: tool('customers.json.xz') });
    expect(answer.status).toBe(400);
    expect(errorMessage(answer)).toMatch(
      /^ORIGIN_ARCHIVE_NOT_RECOGNIZED - .*a tar archive inside the xz file/,
    );
  });
});

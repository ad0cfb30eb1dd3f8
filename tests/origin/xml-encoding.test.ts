import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { injectOrigin, type ServedOrigin } from './origin-helpers';

// Re-encoded by the real xmllint, with xmllint's own reading as UTF-8 next to each: see generate.sh there.
const DIR = join(__dirname, '..', 'fixtures', 'formats', 'xml', 'encodings');
const ENCODINGS = ['UTF-16', 'UTF-16BE', 'UTF-16LE', 'ISO-8859-1', 'windows-1252', 'UTF-8'];

describe('origin reading XML in the encoding its byte order mark and declaration name', () => {
  let running: ServedOrigin | undefined;
  beforeAll(async () => {
    running = injectOrigin({
      dataFormat: { format: 'xml', xml: { delimiterElement: 'order', outputFieldAttributes: true } },
    });
  });
  afterAll(async () => {
    await running?.stop();
  });

  async function records(file: string): Promise<unknown> {
    const answer = await running!.send({ body: readFileSync(join(DIR, file)) });
    expect(answer.status).toBe(200);
    const envelope = answer.json as { data: unknown[]; error: unknown[] };
    expect(envelope.error).toEqual([]);
    return envelope.data;
  }

  it('reads what xmllint read from the source document', async () => {
    const text = JSON.stringify(await records('UTF-8.utf8.xml'));
    for (const word of ['Zoë Ärger', 'café – €5', 'Ωμέγα', 'naïve']) expect(text).toContain(word);
  });

  it.each(ENCODINGS)(
    'reads %s, charset left at its default, to the records of xmllint’s reading',
    async (name) => {
      expect(await records(`${name}.xml`)).toEqual(await records(`${name}.utf8.xml`));
    },
  );
});

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { injectOrigin, type ServedOrigin } from './origin-helpers';

// Written by a real MariaDB from one table; see tests/fixtures/formats/delimited/mariadb/generate.sh.
const DIR = join(__dirname, '..', 'fixtures', 'formats', 'delimited', 'mariadb');
const rows = JSON.parse(readFileSync(join(DIR, 'rows.json'), 'utf8')) as (string | null)[][];

describe('origin receiving files written by MariaDB, mysql dialect', () => {
  let running: ServedOrigin | undefined;
  afterEach(async () => {
    await running?.stop();
    running = undefined;
  });

  it('holds values with CR LF, a lone CR and a CR before the line end', () => {
    const values = rows.flat();
    for (const needle of ['\r\n', 'lone\rcr', 'ends with cr\r', '\r', '\n', '\t', '\\', '\0']) {
      expect(values).toEqual(expect.arrayContaining([expect.stringContaining(needle)]));
    }
    expect(values).toContain(null);
  });

  it('answers SELECT … INTO OUTFILE (default options) with the table rows, \\N being NULL', async () => {
    running = injectOrigin({
      dataFormat: { format: 'delimited', delimited: { delimiterFormatType: 'mysql', parseNulls: true } },
    });
    const answer = await running.send({ body: readFileSync(join(DIR, 'outfile.tsv')) });
    expect(answer.status).toBe(200);
    const envelope = answer.json as { data: Record<string, string | null>[]; error: unknown[] };
    expect(envelope.error).toEqual([]);
    expect(envelope.data.map((r) => [r['0'], r['1'], r['2']])).toEqual(rows);
  });

  it('answers mariadb --batch output with the table rows, the header naming the columns', async () => {
    running = injectOrigin({
      dataFormat: {
        format: 'delimited',
        delimited: {
          delimiterFormatType: 'mysql',
          headerLine: 'withHeader',
          parseNulls: true,
          nullConstant: 'NULL',
        },
      },
    });
    const answer = await running.send({ body: readFileSync(join(DIR, 'batch.tsv')) });
    expect(answer.status).toBe(200);
    const envelope = answer.json as { data: Record<string, string | null>[]; error: unknown[] };
    expect(envelope.error).toEqual([]);
    expect(envelope.data.map((r) => [r['id'], r['name'], r['note']])).toEqual(rows);
  });
});

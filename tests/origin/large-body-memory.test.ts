import { Agent, request } from 'undici';
import type { Batch } from 'rest-service-origin';
import { collectGarbage } from './collect-garbage';
import { startOrigin, type TestOrigin } from './origin-helpers';

// What a large body leaves behind once it is answered (issue 16, item 4): nothing the origin keeps. Checked with
// weak references after a full collection, while the client's keep-alive connection (and its socket, parser and
// last request objects) is still open.

function jsonLines(bytes: number): Buffer {
  const lines: string[] = [];
  let length = 0;
  for (let i = 0; length < bytes; i++) {
    const line = `{"id":${i},"name":"customer ${i}"}\n`;
    lines.push(line);
    length += line.length;
  }
  return Buffer.from(lines.join(''), 'latin1');
}

describe('after a large body is answered', () => {
  let origin: TestOrigin;
  let seen: WeakRef<object>[] = [];

  beforeAll(async () => {
    origin = await startOrigin(
      {
        dataFormat: { format: 'json', json: { jsonContent: 'multipleObjects' } },
        http: { maxHeapUsagePercent: 100 },
      },
      (batch: Batch) => {
        // The batch, its records array, a record and a value: none may outlive the answer.
        seen = [batch, batch.records, batch.records[0]!, batch.records[0]!.value as object].map(
          (object) => new WeakRef(object),
        );
      },
    );
  });
  afterAll(() => origin.stop());

  it.each([
    ['pushed chunk by chunk (over 1 MB)', 8_000_000],
    ['gathered and parsed whole (under 1 MB)', 200_000],
  ])('%s: its batch and records are garbage while the connection stays open', async (_, size) => {
    const agent = new Agent({ keepAliveTimeout: 60_000 });
    try {
      const answer = await request(origin.url, { method: 'POST', body: jsonLines(size), dispatcher: agent });
      expect(answer.statusCode).toBe(200);
      await answer.body.text();
      expect(seen).toHaveLength(4);
      // Let the answer's last callbacks run, then collect.
      await new Promise((resolve) => setTimeout(resolve, 50));
      collectGarbage();
      expect(seen.map((ref) => ref.deref() === undefined)).toEqual([true, true, true, true]);
    } finally {
      await agent.close();
    }
  });
});

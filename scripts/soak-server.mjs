// The origins `npm run soak` loads, from the BUILT package (dist/), in a process of their own so that its RSS and
// handles are the origin's alone. Started by scripts/soak.ts with an IPC channel and --expose-gc: it sends
// `{ ports }` once every origin listens, answers `stats` with its memory and handle counts (after a full GC, so
// that samples compare what is live, not what is waiting to be collected), and stops every origin on `stop`.
import { InProcessRunnerPool, Origin, SendResponse } from '../dist/index.js';

/** One origin per kind of traffic; the load driver knows them by name. */
const ORIGINS = {
  json: { dataFormat: { format: 'json' }, http: { applicationIds: ['soak'], maxRequestSizeMb: 1 } },
  delimited: { dataFormat: { format: 'delimited', delimited: { headerLine: 'withHeader' } } },
  xml: { dataFormat: { format: 'xml', xml: { delimiterElement: 'record' } } },
  avro: { dataFormat: { format: 'avro' } },
  archive: {
    dataFormat: {
      format: 'delimited',
      delimited: { headerLine: 'withHeader' },
      compression: { format: 'archive', filePattern: '*.csv' },
    },
  },
};

const sendRecords = new SendResponse();
const sendErrorRecords = SendResponse.forErrors({ statusCode: 400 });
/** Records answered 200, error records (parse failures) 400. */
const pipeline = (batch) => {
  sendRecords.write(batch);
  sendErrorRecords.write(batch);
};

const running = [];
const ports = {};
for (const [name, config] of Object.entries(ORIGINS)) {
  const pool = new InProcessRunnerPool(10, pipeline, { runnerIdleTimeMs: 0 });
  const origin = new Origin(
    { ...config, http: { host: '127.0.0.1', port: 0, ...config.http } },
    { runners: pool },
  );
  ports[name] = Number(new URL(await origin.start()).port);
  running.push({ origin, pool });
}

process.on('message', async (message) => {
  if (message === 'stats') {
    globalThis.gc?.();
    const memory = process.memoryUsage();
    process.send({
      rss: memory.rss,
      heapUsed: memory.heapUsed,
      external: memory.external,
      handles: process.getActiveResourcesInfo().length,
      sockets: process.getActiveResourcesInfo().filter((kind) => kind === 'TCPSocketWrap').length,
    });
  } else if (message === 'stop') {
    for (const { origin, pool } of running) {
      await origin.destroy();
      await pool.close();
    }
    process.disconnect();
  }
});
process.send({ ports });

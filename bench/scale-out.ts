// `npm run bench -- --scale-out`: two origin processes behind a real nginx (round robin, the config of
// docs/deployment.md, in a temp directory), a bounded load of numbered records from 127.0.0.2, and a drain and
// removal of one instance in the middle of it (SIGTERM, nginx reload without it, its exit). Prints the spread,
// the client address the pipelines saw, nginx's retries, the drain time, and the numbered records lost and
// duplicated (both must be 0). See tests/support/scale-out.ts; the test of the same run is
// tests/deployment/nginx-scale-out.test.ts.
//
// Environment: BENCH_SCALE_REQUESTS (5000), BENCH_CONNECTIONS (16).
import { describeScaleOut, runScaleOut } from '../tests/support/scale-out';

const requests = Number(process.env.BENCH_SCALE_REQUESTS ?? 5000);
const concurrency = Number(process.env.BENCH_CONNECTIONS ?? 16);
const result = await runScaleOut({
  requests,
  concurrency,
  drainAfter: Math.floor(requests / 2),
  clientAddress: '127.0.0.2',
});
console.log(`\nscale-out: 2 origins behind nginx, ${concurrency} connections, instance a drained half-way\n`);
console.log(describeScaleOut(result));
const clean = result.lost === 0 && result.duplicated === 0 && result.transportErrors === 0;
console.log(clean ? '\nno record lost or duplicated' : '\nRECORDS LOST OR DUPLICATED');
if (!clean) process.exitCode = 1;

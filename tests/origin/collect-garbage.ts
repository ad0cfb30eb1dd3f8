import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

setFlagsFromString('--expose-gc');
/** V8's full collection, made callable without starting Node with --expose-gc (jest does not). */
const gc = runInNewContext('gc') as () => void;

/** Runs a full collection so that memory figures count live objects only. */
export function collectGarbage(): void {
  gc();
}

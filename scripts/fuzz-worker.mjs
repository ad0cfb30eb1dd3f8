// The fuzz worker's entry: workers do not inherit the main thread's module hooks, so tsx is registered here
// before the TypeScript worker is loaded.
import { register } from 'tsx/esm/api';

register();
await import('./fuzz-worker.ts');

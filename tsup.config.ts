import { defineConfig } from 'tsup';

export default defineConfig([
  {
    // The library: ESM and CJS with their own declaration files.
    entry: { index: 'src/index.ts' },
    format: ['esm', 'cjs'],
    dts: true,
    sourcemap: true,
    target: 'node20',
  },
  {
    // The `rest-origin` command: one ESM file with its shebang.
    entry: { cli: 'src/cli/main.ts' },
    format: ['esm'],
    sourcemap: true,
    target: 'node20',
  },
]);

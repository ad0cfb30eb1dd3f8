import { defineConfig } from 'tsup';

export default defineConfig([
  {
    // The library: ESM and CJS with their own declaration files, for the entry points `.`, `./formats` and `./testing`.
    entry: { index: 'src/index.ts', formats: 'src/formats/index.ts', testing: 'src/testing/index.ts' },
    format: ['esm', 'cjs'],
    // Both entries share one copy of the code they have in common (chunk files), in CJS too (tsup splits only ESM
    // by default): two copies would mean two `defaultRegistry` objects and two of every class.
    splitting: true,
    // The optional native addon is loaded at run time when SPNEGO is on; it is never bundled.
    external: ['kerberos'],
    dts: true,
    sourcemap: true,
    target: 'node20',
  },
  {
    // The `rest-origin` command: one ESM file with its shebang.
    entry: { cli: 'src/cli/main.ts' },
    format: ['esm'],
    external: ['kerberos'],
    sourcemap: true,
    target: 'node20',
  },
]);

/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/tests'],
  testMatch: ['**/*.test.ts'],
  transform: {
    '^.+\\.tsx?$': [
      'ts-jest',
      {
        // Type checking is `npm run typecheck`; the transform only transpiles, which keeps the suite fast.
        isolatedModules: true,
        tsconfig: { module: 'commonjs', moduleResolution: 'node', esModuleInterop: true },
      },
    ],
  },
  testTimeout: 30000,
};

/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/tests'],
  testMatch: ['**/*.test.ts'],
  transform: {
    '^.+\\.tsx?$': [
      'ts-jest',
      {
        // tsconfig's isolatedModules makes ts-jest only transpile; type checking is `npm run typecheck`.
        tsconfig: { module: 'commonjs', moduleResolution: 'node', esModuleInterop: true },
      },
    ],
  },
  // Examples and tests import the package by name, as users do; it resolves to the source.
  moduleNameMapper: {
    '^rest-service-origin$': '<rootDir>/src/index.ts',
    '^rest-service-origin/testing$': '<rootDir>/src/testing/index.ts',
  },
  testTimeout: 30000,
};

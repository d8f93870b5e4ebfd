// Three projects: fast unit/conformance tests, e2e over real HTTP, and the server-adapter
// conformance suites (which skip, saying why, unless their URLs are set).
const moduleNameMapper = {
  '^@strata/([a-z-]+)$': '<rootDir>/libs/$1/src',
  '^@strata/([a-z-]+)/(.*)$': '<rootDir>/libs/$1/src/$2',
};
const transform = { '^.+\\.ts$': ['@swc/jest'] };
const base = { moduleNameMapper, transform, testEnvironment: 'node', moduleFileExtensions: ['ts', 'js', 'json'] };
module.exports = {
  // a worker that has grown past this is replaced between test files: the e2e files leave
  // caches and native handles behind, and workers at 5 GB ran later files 3x slower
  workerIdleMemoryLimit: '1536MB',
  projects: [
    { ...base, displayName: 'unit', testMatch: ['<rootDir>/libs/**/*.spec.ts', '<rootDir>/apps/**/*.spec.ts'] },
    // e2e tests start services and CLI processes: 30 s each (test/support/e2e-timeout.ts; a
    // project cannot set testTimeout itself)
    { ...base, displayName: 'e2e', testMatch: ['<rootDir>/test/**/*.e2e.ts'], setupFilesAfterEnv: ['<rootDir>/test/support/e2e-timeout.ts'] },
    { ...base, displayName: 'servers', testMatch: ['<rootDir>/libs/**/*.servers.ts', '<rootDir>/apps/**/*.servers.ts'] },
  ],
};

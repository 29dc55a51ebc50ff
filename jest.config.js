/**
 * Two projects: unit specs beside the code (src/**\/*.spec.ts) and end-to-end suites over HTTP
 * (test/**\/*.e2e-spec.ts). TEST_DATABASE=postgres runs the end-to-end suites on PostgreSQL.
 */
const transform = {
  '^.+\\.ts$': [
    'ts-jest',
    {
      astTransformers: { before: ['<rootDir>/test/swagger-plugin-transformer.js'] },
    },
  ],
  // content-disposition 3 (under @fastify/static, which serves Swagger UI) ships only ES modules:
  // Node loads it with require(esm), but Jest 29's own module loader cannot (on Node 24 too:
  // checked by removing this, which fails every suite that serves Swagger UI), so it is compiled
  // to CommonJS here.
  '^.+/node_modules/content-disposition/.+\\.js$': [
    'ts-jest',
    { isolatedModules: true, tsconfig: { allowJs: true, module: 'commonjs' } },
  ],
};

const common = {
  moduleFileExtensions: ['js', 'json', 'ts'],
  testEnvironment: 'node',
  transform,
  transformIgnorePatterns: ['/node_modules/(?!content-disposition/)'],
  setupFiles: ['<rootDir>/test/setup-env.ts'],
};

module.exports = {
  testTimeout: 60000,
  projects: [
    {
      ...common,
      displayName: 'unit',
      rootDir: __dirname,
      testMatch: ['<rootDir>/src/**/*.spec.ts'],
    },
    {
      ...common,
      displayName: 'e2e',
      rootDir: __dirname,
      testMatch: ['<rootDir>/test/**/*.e2e-spec.ts'],
      // Every JSON response an e2e suite receives is checked against /docs-json (test/helpers/openapi-check.ts).
      setupFilesAfterEnv: ['<rootDir>/test/helpers/document-problems.ts'],
    },
  ],
};

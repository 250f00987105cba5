// Mutation testing (`npm run test:mutation`, not part of npm test: about an hour on 2 cores). Stryker changes the
// scheduler, the engine and residency one small edit at a time (a flipped comparison, a removed call, a constant)
// and runs the tests that cover each edit (vitest.mutation.config.mjs); a mutant that no test kills is behaviour no
// test pins down. Reports: the console, and .cache/stryker/ (HTML and JSON).
export default {
  testRunner: 'vitest',
  plugins: ['@stryker-mutator/vitest-runner'],
  vitest: { configFile: 'vitest.mutation.config.mjs' },
  mutate: [
    'packages/core/src/scheduler/**/*.ts',
    'packages/core/src/engine*.ts',
    'packages/core/src/residency.ts',
    '!**/*.test.ts',
  ],
  coverageAnalysis: 'perTest',
  concurrency: 2,
  // A mutant "times out" when its tests run this long past the unmutated run's time. 60 s, not 10: module-level
  // (static) mutants rerun every test, and on a loaded many-core host 10 s of slack let mutants that change nothing
  // time out, which Stryker counts as killed (docs/mutation.md).
  timeoutMS: 60_000,
  reporters: ['clear-text', 'progress', 'html', 'json'],
  htmlReporter: { fileName: '.cache/stryker/mutation.html' },
  jsonReporter: { fileName: '.cache/stryker/mutation.json' },
  tempDirName: '.cache/stryker/tmp',
  ignorePatterns: [
    '.cache',
    'bench-results',
    'test-results',
    '.gpu-bundle',
    '.gpukit',
    '.gpu-bench',
    '**/dist',
    '**/.tsbuild',
    'packages/rocm/build',
    'apps/demo',
  ],
  cleanTempDir: true,
};

import { defaultServerConditions } from 'vite';
import { configDefaults, defineConfig } from 'vitest/config';

/** Every test file: next to the code, and in test/. */
const TESTS = ['packages/*/src/**/*.test.ts', 'apps/*/src/**/*.test.ts', 'test/**/*.test.ts'];
/** Test files that measure the whole process (its peak RSS, or V8's heap after a forced GC): each gets a fresh one. */
const PROCESS_WIDE = [
  'test/reliability/properties-limits.test.ts',
  'test/reliability/limits.test.ts',
  'packages/rocm/src/pinned-download.test.ts',
];

// One config for the workspace: tests run on sources (no build), next to the code and in test/. The
// '@tandem/source' export condition points each workspace package at its src/*.ts instead of its built dist/.
export default defineConfig({
  resolve: { conditions: ['@tandem/source', ...defaultServerConditions] },
  ssr: { resolve: { conditions: ['@tandem/source', ...defaultServerConditions] } },
  test: {
    testTimeout: 60_000,
    pool: 'forks',
    // TANDEM_TEST_UNAVAILABLE=reference makes the reference backend fail to start (the others go through requireBackend).
    setupFiles: ['test/support/unavailable-reference.ts'],
    // Engines made by createEngine() in tests start without a saved profile and save none: a profile left by one run
    // would change the next run's first decisions. The profile tests pass their own stores.
    env: { TANDEM_PROFILE: 'off' },
    // Test files share one worker process and its loaded modules, one file after another: a fresh process per file
    // cost ~0.7 s each, about 130 s of a CI run. What a file leaves behind (globals, env, module state) is its to undo.
    projects: [
      {
        extends: true,
        test: {
          name: 'shared-process',
          isolate: false,
          include: TESTS,
          exclude: [...configDefaults.exclude, ...PROCESS_WIDE],
        },
      },
      { extends: true, test: { name: 'own-process', isolate: true, include: PROCESS_WIDE } },
    ],
  },
});

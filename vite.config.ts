import { defaultServerConditions } from 'vite';
import { defineConfig } from 'vitest/config';

// One config for the workspace: tests run on sources (no build), next to the code and in test/. The
// '@tandem/source' export condition points each workspace package at its src/*.ts instead of its built dist/.
export default defineConfig({
  resolve: { conditions: ['@tandem/source', ...defaultServerConditions] },
  ssr: { resolve: { conditions: ['@tandem/source', ...defaultServerConditions] } },
  test: {
    include: ['packages/*/src/**/*.test.ts', 'apps/*/src/**/*.test.ts', 'test/**/*.test.ts'],
    testTimeout: 60_000,
    pool: 'forks',
    // TANDEM_TEST_UNAVAILABLE=reference makes the reference backend fail to start (the others go through requireBackend).
    setupFiles: ['test/support/unavailable-reference.ts'],
    // Engines made by createEngine() in tests start without a saved profile and save none: a profile left by one run
    // would change the next run's first decisions. The profile tests pass their own stores.
    env: { TANDEM_PROFILE: 'off' },
  },
});

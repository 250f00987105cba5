import { defineConfig } from 'vitest/config';

// One config for the workspace: tests run on sources (no build), next to the code and in test/.
export default defineConfig({
  test: {
    include: ['packages/*/src/**/*.test.ts', 'apps/*/src/**/*.test.ts', 'test/**/*.test.ts'],
    testTimeout: 60_000,
    pool: 'forks',
  },
});

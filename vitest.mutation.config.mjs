// The tests Stryker runs against each mutant (stryker.config.mjs): the workspace config, narrowed to the tests that
// exercise the scheduler, the engine and residency without a GPU (Stryker's vitest runner uses worker threads).
// '@tandem/core' resolves to the core sources next to this file: in Stryker's sandbox copy those are the mutated
// ones (node_modules/@tandem/core links to the original tree).
import { fileURLToPath } from 'node:url';
import base from './vite.config.ts';

export default {
  ...base,
  resolve: {
    ...base.resolve,
    alias: [
      { find: /^@tandem\/core$/, replacement: fileURLToPath(new URL('./packages/core/src/index.ts', import.meta.url)) },
    ],
  },
  test: {
    ...base.test,
    // The first, unmutated run must pass; on a loaded machine some scheduler tests take minutes.
    testTimeout: 600_000,
    // One list of files, not the workspace's two projects (whose include lists would replace this one).
    projects: undefined,
    include: [
      'packages/core/src/**/*.test.ts',
      'packages/testing/src/**/*.test.ts',
      'packages/graph/src/*.test.ts',
      'test/scheduler/**/*.test.ts',
      'test/engine/**/*.test.ts',
      'test/conformance/gpu/gate.test.ts',
      'test/conformance/self-check.test.ts',
    ],
  },
};

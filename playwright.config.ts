// Browser tests (test/e2e/*.spec.ts): headless Debian Chromium, one worker (CI machines have 2 cores).
// vitest never sees these files (it collects *.test.ts); run them with `npx playwright test`.
import { defineConfig } from '@playwright/test';
import { chromiumMissing } from './test/e2e/chromium.ts';
import { requireOrSkip } from './test/support/requirements.ts';

// Each spec skips itself without Chromium; say why once (under CI a missing Chromium fails the run instead).
requireOrSkip('Chromium (the browser tests)', chromiumMissing(), 'apt-get install -y chromium');

export default defineConfig({
  testDir: 'test/e2e',
  testMatch: '**/*.spec.ts',
  // Specs that only measure (their figures go to docs/decisions.md), run with TANDEM_E2E_FIGURES=1: npm test checks
  // behaviour, and the warm-start spec's three page loads add a minute to it.
  testIgnore: process.env['TANDEM_E2E_FIGURES'] === '1' ? [] : ['**/warm-start.spec.ts'],
  timeout: 90_000,
  workers: 1,
  fullyParallel: false,
  forbidOnly: process.env['CI'] !== undefined,
  retries: 0,
  reporter: [['list']],
  outputDir: '.cache/playwright-results',
  use: { browserName: 'chromium', headless: true, trace: 'off', screenshot: 'off', video: 'off' },
});

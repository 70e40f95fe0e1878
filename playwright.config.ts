import { defineConfig } from '@playwright/test';
import { chromiumLaunchOptions } from './e2e/support/chromium.js';

export default defineConfig({
  testDir: 'e2e',
  outputDir: 'e2e/output/results',
  globalSetup: './e2e/support/globalSetup.ts',
  fullyParallel: false,
  // Two cores. Each worker has its own seeded service (globalSetup), so a spec shares data only
  // with the specs that ran before it in the same worker, one at a time, as all did on one.
  workers: 2,
  // One retry in CI, reported as "flaky" in the list, so one flake does not hide everything else.
  // A flaky test is a defect to find: the radio one (a click undone for a frame) was the app's.
  retries: process.env.CI ? 1 : 0,
  timeout: 60_000,
  expect: { timeout: 10_000 },
  reporter: [['list']],
  use: {
    viewport: { width: 1400, height: 880 },
    trace: 'retain-on-failure',
    launchOptions: chromiumLaunchOptions,
  },
});

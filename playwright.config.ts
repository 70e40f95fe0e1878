import { fileURLToPath } from 'node:url';
import { defineConfig } from '@playwright/test';
import { chromiumLaunchOptions } from './e2e/support/chromium.js';
import { SERVICES, dealSpecs } from './e2e/support/services.js';

// The spec files, dealt to the seeded services (globalSetup starts one each; services.ts says
// how): each service's project runs one file at a time, so a spec always follows the same specs on
// the same data: which worker happened to be free plays no part.
const dealt = dealSpecs(fileURLToPath(new URL('./e2e', import.meta.url))).map((files) => files.map((f) => `**/${f}`));

export default defineConfig({
  testDir: 'e2e',
  outputDir: 'e2e/output/results',
  globalSetup: './e2e/support/globalSetup.ts',
  fullyParallel: false,
  // Two cores: one worker per service at a time (each project's own limit).
  workers: SERVICES,
  projects: Array.from({ length: SERVICES }, (_, n) => ({
    name: `service ${n}`,
    testMatch: dealt[n]!,
    workers: 1,
    metadata: { service: n },
  })),
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

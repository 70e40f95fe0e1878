import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from '@playwright/test';
import { chromiumLaunchOptions } from './e2e/support/chromium.js';
import { SERVICES } from './e2e/support/services.js';

// The spec files, dealt to the seeded services (globalSetup starts one each): the largest first,
// each to the service with the fewest bytes of specs so far, which balances their run times
// within about 10 %. The deal depends only on the files, and each service's project runs one
// file at a time, so a spec always follows the same specs on the same data: which worker happened
// to be free plays no part.
const E2E = fileURLToPath(new URL('./e2e', import.meta.url));
const bySize = readdirSync(E2E)
  .filter((f) => f.endsWith('.spec.ts'))
  .map((f) => ({ f, bytes: statSync(path.join(E2E, f)).size }))
  .sort((a, b) => b.bytes - a.bytes || a.f.localeCompare(b.f));
const load = Array.from({ length: SERVICES }, () => 0);
const dealt = Array.from({ length: SERVICES }, () => [] as string[]);
for (const { f, bytes } of bySize) {
  const n = load.indexOf(Math.min(...load));
  load[n]! += bytes;
  dealt[n]!.push(`**/${f}`);
}

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

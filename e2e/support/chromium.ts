import { existsSync } from 'node:fs';

// Chromium: the system one where it exists (Debian's /usr/bin/chromium here: Playwright's own
// download is not reachable), else the browser `npx playwright install chromium` fetched.
// One definition for the browser tests and the UI bench, so both measure the same browser.
const SYSTEM_CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => existsSync(p));

export const chromiumLaunchOptions = {
  executablePath: process.env.ODR_CHROMIUM ?? SYSTEM_CHROMIUM,
  args: [
    '--no-sandbox',
    '--disable-gpu',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--no-first-run',
  ],
};

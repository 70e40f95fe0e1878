import { expect, test } from '@playwright/test';
import { baseUrl, screenshot } from './support/app.js';

// The interactive API reference (/api-docs, Scalar) renders the service's own OpenAPI document
// with nothing fetched from the network: every request that leaves loopback is refused and
// counted, and there must be none.

const SIZES = [
  [1024, 700],
  [1400, 900],
  [1920, 1080],
] as const;

for (const scheme of ['light', 'dark'] as const) {
  test(`API reference page works offline (${scheme})`, async ({ page }) => {
    const outside: string[] = [];
    await page.route('**/*', (route) => {
      const host = new URL(route.request().url()).hostname;
      if (host === '127.0.0.1' || host === 'localhost') return route.continue();
      outside.push(route.request().url());
      return route.abort();
    });
    await page.emulateMedia({ colorScheme: scheme });
    await page.goto(`${baseUrl()}/api-docs`);
    await expect(page.getByRole('heading', { name: 'odr-desktop: ODR API v4 and local routes' }).first()).toBeVisible({ timeout: 30_000 });
    const sidebar = page.getByRole('complementary', { name: /Sidebar for odr-desktop/ });
    await sidebar.getByRole('button', { name: 'Open Group - Search' }).click();
    await sidebar.getByRole('link', { name: /Search one dataset by field values/ }).click();
    await expect(page.getByRole('heading', { name: 'Search one dataset by field values' }).first()).toBeVisible();
    for (const [w, h] of SIZES) {
      await page.setViewportSize({ width: w, height: h });
      await page.waitForTimeout(300);
      await screenshot(page, `api-docs-${w}x${h}-${scheme}`);
    }
    // Scalar's online helpers (AI agent, MCP) are switched off.
    await expect(page.getByRole('button', { name: 'Ask AI' })).toHaveCount(0);
    await expect(page.getByText('Generate MCP')).toHaveCount(0);
    expect(outside).toEqual([]);
  });
}

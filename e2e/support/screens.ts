import { mkdirSync } from 'node:fs';
import path from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import { expect, type Page } from '@playwright/test';
import { SCREENS } from './app.js';

export const SIZES = [
  { width: 1024, height: 700 },
  { width: 1400, height: 900 },
  { width: 1920, height: 1080 },
] as const;
export const THEMES = ['light', 'dark'] as const;

/** The page's accessibility problems that block someone (axe impact serious or critical). */
export async function blockingViolations(page: Page, only?: string[]) {
  const builder = new AxeBuilder({ page });
  if (only) builder.withRules(only);
  const r = await builder.analyze();
  return r.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => ({ rule: v.id, impact: v.impact, help: v.help, nodes: v.nodes.slice(0, 4).map((n) => n.target.join(' ')) }));
}

/**
 * A screen at every window size in both themes: a screenshot each into e2e/output/screens/, and
 * axe run once per theme (contrast differs by theme, not by size) with no serious or critical
 * violation allowed. `ready` waits for the screen's end state after a resize.
 */
export async function everyShot(page: Page, name: string, ready: () => Promise<void> = async () => {}) {
  mkdirSync(SCREENS, { recursive: true });
  const before = page.viewportSize();
  for (const theme of THEMES) {
    await page.emulateMedia({ colorScheme: theme });
    for (const size of SIZES) {
      await page.setViewportSize(size);
      await ready();
      const t0 = Date.now();
      await page.screenshot({ path: path.join(SCREENS, `${name}-${size.width}x${size.height}-${theme}.png`) });
      const t1 = Date.now();
      // All rules in light; in dark only what a theme changes (contrast): axe is slow on a full grid.
      if (size.width === 1400)
        expect(await blockingViolations(page, theme === 'dark' ? ['color-contrast'] : undefined), `${name} (${theme})`).toEqual([]);
      if (process.env.ODR_E2E_TIMING) console.log(name, theme, size.width, 'shot', t1 - t0, 'axe', Date.now() - t1);
    }
  }
  await page.emulateMedia({ colorScheme: 'light' });
  if (before) await page.setViewportSize(before);
}

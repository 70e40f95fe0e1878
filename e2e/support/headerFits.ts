import { expect, type Page } from '@playwright/test';

/**
 * The window's header holds on one row: the app's name on one line, every button and link of it
 * whole inside the bar (the sync sentence and the signed-in name may shorten with an ellipsis).
 */
export async function expectHeaderFits(page: Page) {
  const fit = await page.locator('header.topbar').evaluate((bar) => {
    const brand = bar.querySelector('.brand')!;
    const range = document.createRange();
    range.selectNodeContents(brand);
    const lines = new Set([...range.getClientRects()].map((r) => Math.round(r.top))).size;
    const box = bar.getBoundingClientRect();
    const cut = [...bar.querySelectorAll<HTMLElement>('a, button:not(.sync-line)')]
      .filter((e) => {
        const b = e.getBoundingClientRect();
        return b.right > box.right + 0.5 || b.left < box.left - 0.5 || e.scrollWidth > e.clientWidth + 1;
      })
      .map((e) => e.textContent);
    return { brandLines: lines, cut };
  });
  expect(fit).toEqual({ brandLines: 1, cut: [] });
}

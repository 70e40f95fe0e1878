import { expect, type Locator, type Page } from '@playwright/test';

/**
 * The app is one window high and never scrolls as a page: the document is exactly the window's
 * size, and even a script setting its scroll position (as focus moving to a far element would)
 * leaves it at 0. Answers nothing; fails naming `where`.
 */
export async function expectFrameStill(page: Page, where: string) {
  const seen = await page.evaluate(() => {
    const doc = document.scrollingElement!;
    doc.scrollTop = 1_000_000;
    doc.scrollLeft = 1_000_000;
    const r = {
      scrollTop: doc.scrollTop,
      scrollLeft: doc.scrollLeft,
      scrollY: window.scrollY,
      height: doc.scrollHeight,
      width: doc.scrollWidth,
    };
    doc.scrollTop = 0;
    doc.scrollLeft = 0;
    return { ...r, window: { height: window.innerHeight, width: window.innerWidth } };
  });
  expect(seen, `${where}: the page is one window and does not scroll`).toEqual({
    scrollTop: 0,
    scrollLeft: 0,
    scrollY: 0,
    height: seen.window.height,
    width: seen.window.width,
    window: seen.window,
  });
}

/** How far `el` has scrolled, and how far it can (a pixel short counts as the end: heights round). */
const scrollOf = (el: Locator) => el.evaluate((e) => ({ top: e.scrollTop, max: e.scrollHeight - e.clientHeight - 1 }));

/**
 * Rolls the wheel over `el` (from a window short of its end) until it has scrolled to its end (bounded), then rolls on past it,
 * where a wheel the element cannot use any more goes on to the page. The pointer sits just below
 * the top edge, over the header, where no inner scroller (a text box, a table) takes the wheel.
 */
export async function wheelPastEnd(page: Page, el: Locator) {
  // Most of the way by script: a list of thousands would take hundreds of wheel turns.
  await el.evaluate((e) => (e.scrollTop = Math.max(0, e.scrollHeight - 2 * e.clientHeight)));
  const box = (await el.boundingBox())!;
  await page.mouse.move(box.x + box.width / 2, box.y + 12);
  for (let i = 0; i < 40 && (await scrollOf(el)).top < (await scrollOf(el)).max; i++) {
    await page.mouse.wheel(0, 2000);
    // The wheel returns before the scroll: wait for it to move or reach the end.
    const before = (await scrollOf(el)).top;
    await expect
      .poll(async () => {
        const s = await scrollOf(el);
        return s.top > before || s.top >= s.max;
      })
      .toBe(true);
  }
  expect((await scrollOf(el)).top, 'scrolled to its end').toBeGreaterThanOrEqual((await scrollOf(el)).max);
  for (let i = 0; i < 3; i++) await page.mouse.wheel(0, 2000);
  // Two frames: a scroll the wheel starts shows in the next one.
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
}

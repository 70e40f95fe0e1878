import { expect, test } from '@playwright/test';
import { NO_FIXTURES, haveFixtures, openDataset, openRecord, screenshot } from './support/app.js';

// A new user's walk: at 1024 px a long source URL ran out of the "not on this computer" box. Every
// line of text in each box must end inside it.

test.skip(!haveFixtures(), NO_FIXTURES);

test('1024×700: the missing-file notice keeps its long file address inside its box', async ({ page }) => {
  await page.setViewportSize({ width: 1024, height: 700 });
  await openDataset(page, 'CheMin');
  const editor = await openRecord(page, 'Rocknest (5th scoop)');
  const problems = editor.getByTestId('file-problem');
  await expect(problems.first()).toContainText('not on this computer');
  await expect(problems.first()).toContainText('http');
  for (const problem of await problems.all()) {
    await problem.scrollIntoViewIfNeeded();
    const spill = await problem.evaluate((box) => {
      const edge = box.getBoundingClientRect().right;
      const walker = document.createTreeWalker(box, NodeFilter.SHOW_TEXT);
      let far = 0;
      for (let n = walker.nextNode(); n; n = walker.nextNode()) {
        const r = document.createRange();
        r.selectNodeContents(n);
        for (const rect of r.getClientRects()) far = Math.max(far, rect.right);
      }
      return far - edge;
    });
    expect(spill, "text past the box's right edge (px)").toBeLessThanOrEqual(0);
  }
  await problems.first().scrollIntoViewIfNeeded();
  await screenshot(page, 'file-problem-1024x700');
});

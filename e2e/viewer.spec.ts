import { writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import sharp from 'sharp';
import { NO_FIXTURES, field, haveFixtures, openDataset, openRecord } from './support/app.js';
import { SYNTH_NAME, findAndOpen } from './support/curate.js';
import { blockingViolations, everyShot } from './support/screens.js';

/** A record's cell in the table column headed `column`. */
async function tableCell(page: Page, record: string, column: string) {
  const grid = page.getByRole('grid');
  const at = await grid.getByRole('columnheader').evaluateAll((hs, c) => hs.findIndex((h) => h.textContent?.startsWith(c)), column);
  expect(at, `a "${column}" column`).toBeGreaterThan(0);
  return grid.locator(`[data-record][aria-label="${record}"] > :nth-child(${at + 1})`);
}

// Issue #15 item 7: images open in a viewer (full size, zoom, pan, previous/next, Escape gives the
// focus back), file sizes shown in bytes, and a file not on this computer says why.

async function png(name: string, width: number, height: number, background: string) {
  const file = path.join(os.tmpdir(), `${Date.now()}-${name}`);
  writeFileSync(
    file,
    await sharp({ create: { width, height, channels: 3, background } })
      .png()
      .toBuffer(),
  );
  return file;
}

test('image viewer: full size, zoom, pan, previous/next, Escape returns the focus', async ({ page }) => {
  await openDataset(page, 'Synthetic Samples');
  const editor = await findAndOpen(page, SYNTH_NAME(26));
  const a = await png('viewer-a.png', 2400, 1800, '#3b7dd8');
  const b = await png('viewer-b.png', 800, 600, '#d83b7d');
  const images = field(editor, 'Image field');
  await images.getByLabel('Upload to Image field').setInputFiles([a, b]);
  const openA = images.getByRole('button', { name: `View ${path.basename(a)}` });
  const openB = images.getByRole('button', { name: `View ${path.basename(b)}` });
  await expect(openA).toBeVisible();
  await expect(openB).toBeVisible();
  // The table counts the two images (not their thumbnails), as it counts files.
  await expect(await tableCell(page, SYNTH_NAME(26), 'Image field')).toHaveText('2 images');

  // Keyboard: the thumbnail is a button.
  await openA.focus();
  await page.keyboard.press('Enter');
  const viewer = page.getByRole('dialog', { name: `Image ${path.basename(a)}` });
  await expect(viewer).toBeVisible();
  const img = viewer.getByRole('img', { name: path.basename(a) });
  // The original, not the thumbnail.
  await expect.poll(() => img.evaluate((i: HTMLImageElement) => i.complete && i.naturalWidth)).toBe(2400);
  await expect(viewer).toContainText('2400×1800');
  const zoom = viewer.getByTestId('viewer-zoom');
  const fit = Number((await zoom.innerText()).replace('%', ''));
  expect(fit).toBeLessThan(100);
  await page.keyboard.press('+');
  await expect(zoom).not.toHaveText(`${fit}%`);
  await viewer.getByRole('button', { name: '100%' }).click();
  await expect(zoom).toHaveText('100%');
  await expect.poll(() => img.evaluate((i) => i.getBoundingClientRect().width)).toBe(2400);
  // Pan: drag the image, and arrow keys once the image area has the focus.
  const stage = viewer.getByRole('group', { name: /Image \(drag/ });
  const box = (await stage.boundingBox())!;
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  await page.mouse.down();
  await page.mouse.move(box.x + box.width / 2 - 200, box.y + box.height / 2 - 100, { steps: 4 });
  await page.mouse.up();
  await expect.poll(() => stage.evaluate((s) => s.scrollLeft)).toBeGreaterThan(100);
  expect(await blockingViolations(page)).toEqual([]);

  // Previous / next across the record's images.
  await viewer.getByRole('button', { name: 'Next image' }).click();
  await expect(page.getByRole('dialog', { name: `Image ${path.basename(b)}` })).toBeVisible();
  await expect(page.getByRole('dialog')).toContainText('800×600');
  await page.keyboard.press('ArrowLeft');
  await expect(viewer).toBeVisible();

  await page.keyboard.press('Escape');
  await expect(page.getByRole('dialog')).toHaveCount(0);
  await expect(openA).toBeFocused();
});

test('a 5-byte file shows "5 bytes"', async ({ page }) => {
  await openDataset(page, 'Synthetic Samples');
  const editor = await findAndOpen(page, SYNTH_NAME(27));
  const file = path.join(os.tmpdir(), `${Date.now()}-five.txt`);
  writeFileSync(file, 'hello');
  const files = field(editor, 'File field');
  await files.getByLabel('Upload to File field').setInputFiles(file);
  const item = files.getByRole('listitem').filter({ hasText: path.basename(file) });
  await expect(item.getByTestId('file-size')).toHaveText('5 bytes');
});

test.describe('CheMin (real ODR export)', () => {
  test.skip(!haveFixtures(), NO_FIXTURES);

  test('an image not on this computer says why, in the record and in the viewer', async ({ page }) => {
    await openDataset(page, 'CheMin');
    await page.getByRole('searchbox', { name: 'Search records' }).fill('Rocknest 5th scoop');
    const editor = await openRecord(page, 'Rocknest (5th scoop)');
    const images = field(editor, 'Images');
    await expect(images.getByText(/Not on this computer: the import carried only its description/).first()).toBeVisible();
    // Its images are not here to preview, and the table still says how many there are.
    const cell = await tableCell(page, 'Rocknest (5th scoop)', 'Images');
    await expect(cell).toHaveText(/^\d+ images$/);
    await everyShot(page, 'i-image-column');
    // File names stay readable beside the long "not on this computer" note (which wraps instead):
    // each shows whole, or at least 12 characters' worth, at every window size.
    for (const size of [
      { width: 1024, height: 700 },
      { width: 1400, height: 900 },
    ]) {
      await page.setViewportSize(size);
      const names = await images.locator('.file-name').evaluateAll((els) =>
        els.map((e) => ({
          text: e.textContent ?? '',
          shown: e.clientWidth,
          needs: e.scrollWidth,
          ch: parseFloat(getComputedStyle(e).fontSize) / 2,
        })),
      );
      expect(names.length).toBeGreaterThan(0);
      for (const n of names) expect(n.shown, `${n.text} at ${size.width}px`).toBeGreaterThanOrEqual(Math.min(n.needs, 12 * n.ch));
    }
    await images
      .getByRole('button', { name: /^View / })
      .first()
      .click();
    const viewer = page.getByRole('dialog', { name: /^Image / });
    await expect(viewer.getByRole('status')).toContainText('is not on this computer');
    await page.keyboard.press('Escape');
    await expect(viewer).toHaveCount(0);
  });
});

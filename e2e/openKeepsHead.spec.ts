import { expect, test, type Page } from '@playwright/test';
import { openDataset, screenshot } from './support/app.js';
import { SYNTH_NAME, findAndOpen } from './support/curate.js';

// Opening a record puts the focus in its first Short Text field; Chromium's own focus scroll put
// that field in the middle of the pane and took the pane's header (which record is open, ‹ ›,
// Close) out of view. Both must be seen when they fit: at 1024×700 and at 1920×1080, by
// double-click and by Enter. Read-only: no record is changed.

const SIZES = [
  { width: 1024, height: 700 },
  { width: 1920, height: 1080 },
];

async function bothSeen(page: Page, name: string) {
  const pane = page.getByRole('complementary', { name: `Record ${name}` });
  const focused = pane.locator(':focus');
  await expect(focused).toHaveCount(1);
  await expect(focused).toHaveAttribute('type', /^(text|search|)$/);
  await expect(pane.getByRole('heading', { level: 2, name })).toBeInViewport({ ratio: 1 });
  await expect(pane.getByRole('button', { name: 'Close record' })).toBeInViewport({ ratio: 1 });
  await expect(focused).toBeInViewport({ ratio: 1 });
  return pane;
}

for (const size of SIZES) {
  test(`opening a record at ${size.width}×${size.height}: the header and the focused field are both in view`, async ({ page }) => {
    await page.setViewportSize(size);
    await openDataset(page, 'Synthetic Samples');
    const byClick = SYNTH_NAME(3);
    await findAndOpen(page, byClick);
    await bothSeen(page, byClick);
    await screenshot(page, `open-keeps-head-${size.width}x${size.height}`);

    // From the keyboard: Escape back to the list, another row, Enter.
    const byKey = SYNTH_NAME(5);
    await page.keyboard.press('Escape');
    const search = page.getByRole('searchbox', { name: 'Search records' });
    await search.fill(byKey);
    await expect(page.getByRole('grid').getByRole('row')).toHaveCount(2);
    const row = page.getByRole('grid').getByRole('row', { name: byKey, exact: true });
    await row.click();
    await page.keyboard.press('Enter');
    await bothSeen(page, byKey);
  });
}

// The header stays on top when the fields scroll (sticky), so a field the focus moves to can sit
// inside the pane and still under the header: the browser scrolls only what is outside the pane.
// Shift+Tab up from the pane's last field: every field focused on the way must show below it,
// and its label with it (the label sits above the control: clearing the control alone left the
// label half under the header).
for (const size of SIZES) {
  test(`Shift+Tab up through the record pane at ${size.width}×${size.height}: no focused field or its label is under the sticky header`, async ({
    page,
  }) => {
    await page.setViewportSize(size);
    await openDataset(page, 'Synthetic Samples');
    const name = SYNTH_NAME(3);
    await findAndOpen(page, name);
    const pane = await bothSeen(page, name);
    await pane.locator('input:not([type=hidden]), textarea, select').last().focus();
    // The pane scrolls: the climb starts below the fold (or the test would prove nothing).
    expect(await pane.evaluate((el) => el.scrollTop)).toBeGreaterThan(0);
    /** How far the focused control's top, and its field's label's top, are under the header's bottom. */
    const covered = () =>
      page.evaluate(() => {
        const el = document.activeElement as HTMLElement;
        const head = el.closest('aside.editor')?.querySelector(':scope > .editor-head');
        if (!head || head.contains(el)) return null;
        const bottom = head.getBoundingClientRect().bottom;
        const label = el.closest('.field')?.querySelector('.field-name');
        return {
          control: bottom - el.getBoundingClientRect().top,
          label: label ? bottom - label.getBoundingClientRect().top : -Infinity,
          field: label?.textContent ?? '',
        };
      });
    let steps = 0;
    let shot = false;
    // Bounded: the pane has fewer than 80 stops before its header.
    for (let hidden = await covered(); hidden !== null && steps < 80; hidden = await covered(), steps++) {
      expect(hidden.control, `stop ${steps} up (${hidden.field}): control ${hidden.control}px under the header`).toBeLessThanOrEqual(0);
      expect(hidden.label, `stop ${steps} up (${hidden.field}): label ${hidden.label}px under the header`).toBeLessThanOrEqual(0);
      // One stop where the pane scrolled to its label, in both themes, to look at.
      if (!shot && steps > 3 && hidden.label > -20 && (await pane.evaluate((el) => el.scrollTop)) > 0) {
        shot = true;
        for (const theme of ['light', 'dark'] as const) {
          await page.emulateMedia({ colorScheme: theme });
          await screenshot(page, `shift-tab-label-${size.width}x${size.height}-${theme}`);
        }
        await page.emulateMedia({ colorScheme: 'light' });
      }
      await page.keyboard.press('Shift+Tab');
    }
    expect(steps).toBeGreaterThan(3);
    expect(shot).toBe(true);
    expect(await covered()).toBeNull();

    // In the header, the focus moves without scrolling the fields: the header is always in view.
    await pane.evaluate((el) => (el.scrollTop = 300));
    await page.keyboard.press('Shift+Tab');
    await expect(pane.locator('.editor-head :focus')).toHaveCount(1);
    expect(await pane.evaluate((el) => el.scrollTop)).toBe(300);
  });
}

// A focus the pointer gives is left where it is: clicking a control whose label is under the
// header must not scroll the pane (what is under the pointer must not move), unlike Tab above.
test('clicking a control whose label is under the sticky header does not scroll the pane', async ({ page }) => {
  await page.setViewportSize(SIZES[0]!);
  await openDataset(page, 'Synthetic Samples');
  const name = SYNTH_NAME(3);
  await findAndOpen(page, name);
  const pane = await bothSeen(page, name);
  // A text field past the first few, scrolled so that its label is half under the header and its
  // control just below it.
  const at = await pane.evaluate((el) => {
    const head = el.querySelector(':scope > .editor-head')!;
    // Found as the pane finds a control's label: its field's own head.
    const labelOf = (c: Element) => c.closest('.field')?.querySelector(':scope > .field-head');
    const controls = [...el.querySelectorAll<HTMLInputElement>('input[type=text]')].filter(
      (c) => labelOf(c) && c !== document.activeElement,
    );
    const control = controls[Math.min(4, controls.length - 1)]!;
    const label = labelOf(control)!;
    const gap = control.getBoundingClientRect().top - label.getBoundingClientRect().top;
    el.scrollTop += label.getBoundingClientRect().top - head.getBoundingClientRect().bottom + gap / 2;
    const box = control.getBoundingClientRect();
    const bottom = head.getBoundingClientRect().bottom;
    control.dataset.clickedHere = '';
    return {
      x: box.left + box.width / 2,
      y: box.top + box.height / 2,
      labelUnder: bottom - label.getBoundingClientRect().top,
      controlBelow: box.top - bottom,
      scrollTop: el.scrollTop,
    };
  });
  expect(at.labelUnder).toBeGreaterThan(0);
  expect(at.controlBelow).toBeGreaterThan(0);
  expect(at.scrollTop).toBeGreaterThan(0);
  await page.mouse.click(at.x, at.y);
  await expect(pane.locator('[data-clicked-here]')).toBeFocused();
  expect(await pane.evaluate((el) => el.scrollTop)).toBe(at.scrollTop);
});

import { expect, test, type Locator } from '@playwright/test';
import { openDataset, screenshot } from './support/app.js';
import { SYNTH_NAME, findAndOpen } from './support/curate.js';

// The open record's sticky header is compact as in a desktop app: the name with Close (×) at the
// right end of its row, the meta line under it, then ‹ n of N ›, History and Delete record on
// one row, even in the ~415 px pane of a 1024×700 window. Four rows (Close wrapped onto its own)
// took a fifth of that pane's height. Read-only: no record is changed.

const SIZES = [
  { width: 1024, height: 700 },
  { width: 1920, height: 1080 },
];

/** Whether the boxes share one row: each one's vertical middle falls inside every other's span. */
async function oneRow(items: Locator[]) {
  const boxes = await Promise.all(items.map(async (l) => (await l.boundingBox())!));
  return boxes.every((a) => boxes.every((b) => a.y + a.height / 2 > b.y && a.y + a.height / 2 < b.y + b.height));
}

for (const size of SIZES) {
  test(`the record header at ${size.width}×${size.height}: Close on the name's row, the actions on one row`, async ({ page }) => {
    await page.setViewportSize(size);
    await openDataset(page, 'Synthetic Samples');
    const name = SYNTH_NAME(3);
    await findAndOpen(page, name);
    const pane = page.getByRole('complementary', { name: `Record ${name}` });
    const head = pane.locator('header');
    const title = pane.getByRole('heading', { level: 2, name });
    const close = head.getByRole('button', { name: 'Close record' });
    await expect(close).toBeVisible();
    const [paneBox, headBox] = [(await pane.boundingBox())!, (await head.boundingBox())!];
    console.log(
      `${size.width}×${size.height}: pane ${Math.round(paneBox.width)}×${Math.round(paneBox.height)} px, header ${Math.round(headBox.height)} px`,
    );

    for (const theme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: theme });
      await screenshot(page, `record-head-${size.width}x${size.height}-${theme}`);
    }
    await page.emulateMedia({ colorScheme: 'light' });

    // Close is the title row's last control, at the header's right end.
    expect(await oneRow([title, close])).toBe(true);
    const closeBox = (await close.boundingBox())!;
    expect(headBox.x + headBox.width - (closeBox.x + closeBox.width)).toBeLessThan(24);
    const actions = [
      head.getByRole('button', { name: 'Previous record' }),
      head.getByText(/^\d[\d,]* of \d[\d,]*\+?$/),
      head.getByRole('button', { name: 'Next record' }),
      head.getByRole('button', { name: 'History', exact: true }),
      head.getByRole('button', { name: 'Delete record' }),
    ];
    expect(await oneRow(actions)).toBe(true);
    // Nothing clipped: every header button shows its whole label.
    const cut = await head.evaluate((h) =>
      [...h.querySelectorAll('button')].filter((b) => b.scrollWidth > b.clientWidth + 1).map((b) => b.textContent),
    );
    expect(cut).toEqual([]);
    // Name, meta line (one line here) and one row of actions: 128 px when Close shared the
    // actions' row, four rows (~150 px) when it wrapped onto its own; 100 px now.
    expect(headBox.height).toBeLessThanOrEqual(110);
  });
}

test('in a wide record pane the actions go beside the meta line: two rows', async ({ page }) => {
  await page.setViewportSize({ width: 1920, height: 1080 });
  // The pane's width as a drag of its splitter leaves it (DatasetScreen's PANE_KEY).
  await page.addInitScript(() => localStorage.setItem('odr.paneWidth', '900'));
  await openDataset(page, 'Synthetic Samples');
  const name = SYNTH_NAME(3);
  await findAndOpen(page, name);
  const pane = page.getByRole('complementary', { name: `Record ${name}` });
  const head = pane.locator('header');
  const meta = head.getByText(/^#\d+ · by .+ · updated/);
  await expect(meta).toBeVisible();
  const [paneBox, headBox] = [(await pane.boundingBox())!, (await head.boundingBox())!];
  console.log(`1920×1080, wide pane: pane ${Math.round(paneBox.width)} px wide, header ${Math.round(headBox.height)} px`);
  expect(paneBox.width).toBeGreaterThan(800);
  expect(
    await oneRow([meta, head.getByRole('button', { name: 'History', exact: true }), head.getByRole('button', { name: 'Delete record' })]),
  ).toBe(true);
  expect(await oneRow([pane.getByRole('heading', { level: 2, name }), head.getByRole('button', { name: 'Close record' })])).toBe(true);
  await screenshot(page, 'record-head-1920x1080-wide-pane-light');
});

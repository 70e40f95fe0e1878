import { expect, test } from '@playwright/test';
import { openDataset, readRecord } from './support/app.js';
import { SYNTH_NAME, SYNTH_RECORD, findAndOpen } from './support/curate.js';
import { everyShot } from './support/screens.js';

// Removing a child record in the record pane is a step of the undo history like a record
// delete: undo puts it back under its parent from the service's record trash, redo removes it
// again; after a reload the Trash panel lists it with its parent.

const I = 30;
type Tree = { records?: { record_uuid: string; record_name: string }[] };
const tree = async () => (await readRecord(SYNTH_RECORD(I))).body as unknown as Tree;
const childUuids = async () => ((await tree()).records ?? []).map((c) => c.record_uuid).sort();

test('undo of a child record Remove brings it back whole; redo removes it again', async ({ page }) => {
  const before = await readRecord(SYNTH_RECORD(I));
  const kids = await childUuids();
  expect(kids.length).toBeGreaterThan(0);
  const name = (before.body as unknown as Tree).records!.find((c) => c.record_name === 'split 1')!;
  // The parent's update date moves with a remove and a restore; everything else comes back.
  const same = (r: unknown) => JSON.stringify({ ...(r as object), _record_metadata: null });

  await openDataset(page, 'Synthetic Samples');
  const editor = await findAndOpen(page, SYNTH_NAME(I));
  const section = editor.getByRole('region', { name: 'Subsamples records' });
  const removeButton = section.getByRole('button', { name: 'Remove Subsamples record split 1' });
  await removeButton.click();
  const dlg = page.getByRole('dialog', { name: /^Remove Subsamples record “split 1”\?$/ });
  await expect(dlg).toContainText('Undo (Ctrl+Z) brings it back');
  await dlg.getByRole('button', { name: 'Remove' }).click();
  await expect.poll(childUuids).toEqual(kids.filter((u) => u !== name.record_uuid));
  await expect(removeButton).toHaveCount(0);

  const undoRedo = page.getByRole('group', { name: 'Undo and redo' });
  await expect(undoRedo.getByRole('button', { name: 'Undo' })).toHaveAttribute('title', /the delete of Subsamples record “split 1”/);
  await undoRedo.getByRole('button', { name: 'Undo' }).click();
  await expect.poll(childUuids).toEqual(kids);
  expect(same((await readRecord(SYNTH_RECORD(I))).body)).toBe(same(before.body));
  await expect(removeButton).toBeVisible();

  await undoRedo.getByRole('button', { name: 'Redo' }).click();
  await expect.poll(childUuids).toEqual(kids.filter((u) => u !== name.record_uuid));
  await expect(removeButton).toHaveCount(0);

  // After a reload (no undo history) the Trash panel names it with its parent and restores it.
  await page.reload();
  await page.getByRole('button', { name: 'Trash' }).click();
  const trash = page.getByRole('complementary', { name: 'Trash' });
  const entry = trash.getByRole('list', { name: 'Deleted records' }).getByRole('listitem').filter({ hasText: 'split 1' });
  await expect(entry).toContainText(`Subsamples record in “${SYNTH_NAME(I)}”`);
  await everyShot(page, 'record-trash-child', async () => {
    await expect(entry).toBeVisible();
  });
  await entry.getByRole('button', { name: 'Restore split 1' }).click();
  await expect(entry).toHaveCount(0);
  await expect.poll(childUuids).toEqual(kids);
  expect(same((await readRecord(SYNTH_RECORD(I))).body)).toBe(same(before.body));
});

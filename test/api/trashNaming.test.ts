import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordName } from '../../shared/recordName.js';
import { RecordTrashList } from '../../shared/schemas/local.js';
import { OdrRecord } from '../../shared/schemas/record.js';
import { Template } from '../../shared/schemas/template.js';
import { SYNTH } from '../../bench/synthetic.js';
import { startSyntheticService, type TestService } from '../support/service.js';

// The Trash names a deleted record as the list and the record pane named it before the delete
// (shared/recordName.ts: name field, else the first text field with a value, else "#id"): the
// same record must not be "S-000005" in one place and "5" in the other.

let t: TestService;
const NAME_FIELD = SYNTH.field('Short Text');

const trash = async () => {
  const res = await fetch(t.api.replace(/\/api\/v4$/, '/local/records/trash'), { headers: { Authorization: `Bearer ${t.admin.token}` } });
  expect(res.status).toBe(200);
  return RecordTrashList.parse(await res.json()).records;
};
/** The name the table and the pane give a record now, from the same answers the renderer reads. */
const listName = async (uuid: string, templateUuid: string) =>
  recordName(OdrRecord.parse(await t.admin.record(uuid)), Template.parse(await t.admin.template(templateUuid)));

beforeAll(async () => {
  t = await startSyntheticService(12);
});
afterAll(() => t.close());

describe('Trash names', () => {
  it('a record without a name field value: its first text field, as the list calls it', async () => {
    const uuid = SYNTH.record(5);
    await t.admin.setValue(uuid, NAME_FIELD, '');
    const rec = OdrRecord.parse(await t.admin.record(uuid));
    expect(String(rec.record_name)).toBe(String(rec.internal_id)); // the service's own name is the bare id
    const shown = await listName(uuid, SYNTH.dataset);
    expect(shown).not.toMatch(/^#?\d+$/);
    await t.admin.deleteRecords([uuid]);
    expect((await trash()).find((e) => e.record_uuid === uuid)?.name).toBe(shown);
  });

  it('a record with no text value at all: "#id", as the list calls it', async () => {
    const made = await t.admin.createRecord(SYNTH.dataset);
    const shown = await listName(made.record_uuid, SYNTH.dataset);
    expect(shown).toMatch(/^#\d+$/);
    await t.admin.deleteRecords([made.record_uuid]);
    expect((await trash()).find((e) => e.record_uuid === made.record_uuid)?.name).toBe(shown);
  });

  it('a child record: its parent named as the list names the parent', async () => {
    const parent = SYNTH.record(10); // every tenth synthetic record has children
    await t.admin.setValue(parent, NAME_FIELD, '');
    const before = OdrRecord.parse(await t.admin.record(parent));
    expect(String(before.record_name)).toBe(String(before.internal_id));
    const kids = (OdrRecord.parse(await t.admin.record(parent)).records ?? []) as OdrRecord[];
    expect(kids.length).toBeGreaterThan(0);
    const child = kids[0]!;
    // As the pane's child section names it: from the parent's tree, with the child template.
    const top = Template.parse(await t.admin.template(SYNTH.dataset));
    const childTpl = top.related_databases.find((c) => c.template_uuid === SYNTH.child)!;
    const childShown = recordName(child, childTpl);
    const parentShown = await listName(parent, SYNTH.dataset);
    expect(parentShown).not.toMatch(/^#?\d+$/);
    await t.admin.deleteRecords([child.record_uuid]);
    const entry = (await trash()).find((e) => e.record_uuid === child.record_uuid);
    expect(entry?.parent_name).toBe(parentShown);
    expect(entry?.name).toBe(childShown);
  });
});

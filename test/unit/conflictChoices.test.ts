import { describe, expect, it } from 'vitest';
import { PUBLIC_DATE_FIELD, RECORD_DELETED_FIELD } from '../../shared/schemas/sync.js';
import { conflictChoices } from '../../renderer/src/sync/conflictChoices.js';

// A conflict card offers what makes sense for what the conflict is about: a child record the
// server deleted is kept or deleted here (nothing to merge); a field's value can also be merged.
describe('the choices of a conflict card', () => {
  it('a child record deleted on the server: keep it or delete it here, no Merge', () => {
    const c = conflictChoices({ field_uuid: RECORD_DELETED_FIELD, item_uuid: '' });
    expect(c.merge).toBe(false);
    expect([c.mine.label, c.theirs.label]).toEqual(['Keep it', 'Delete it here']);
    expect(c.mine.title).toMatch(/make it on the server again/);
    expect(c.theirs.title).toMatch(/Trash/);
    expect(c.done('mine')).toMatch(/makes it on the server again/);
    expect(c.done('theirs')).toMatch(/deleted here too/);
    // Never the value wording: there is no value to send or keep.
    expect(`${c.done('mine')} ${c.done('theirs')}`).not.toMatch(/value/);
    // Only the choice that deletes asks first, naming the record and the Trash's 30 days.
    expect(c.ask?.mine).toBeUndefined();
    const q = c.ask?.theirs?.('split 1');
    expect(q?.title).toBe('Delete split 1 here?');
    expect(q?.body).toMatch(/Trash keeps it for 30 days/);
    expect(q?.danger).toBe(true);
  });

  it("a field's value: keep mine, keep theirs, or merge", () => {
    const c = conflictChoices({ field_uuid: 'f000000000000000000000000008', item_uuid: '' });
    expect([c.mine.label, c.theirs.label, c.merge]).toEqual(['Keep mine', 'Keep theirs', true]);
    expect(c.done('merged')).toBe('the merged value is saved and will be sent');
    expect(c.ask).toBeUndefined();
  });

  it('a file (deleted on one side) and a public date have no merged value', () => {
    expect(conflictChoices({ field_uuid: 'f000000000000000000000000010', item_uuid: 'file-1' }).merge).toBe(false);
    expect(conflictChoices({ field_uuid: PUBLIC_DATE_FIELD, item_uuid: '' }).merge).toBe(false);
  });
});

import Database from 'better-sqlite3';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SYNTH } from '../../bench/synthetic.js';
import type { OdrRecord } from '../../shared/schemas/record.js';
import type { Template } from '../../shared/schemas/template.js';
import type { TestService } from '../support/service.js';
import { attachedPair, type RemoteProc } from './support.js';

// A template changed on the server reaches the local copy on the next pull (issue 12 item 3),
// and a pulled record keeps its local row (pulls never reorder lists).

const TEXT = SYNTH.field('Medium Text');
const INT = SYNTH.field('Integer');
const GONE = SYNTH.field('Long Text');
const MS = SYNTH.field('Multiple Select');
const TAGS = SYNTH.field('Tags');
const NEW_FIELD = 'n00000000000000000000000000a';
const NEW_CHILD_FIELD = 'n00000000000000000000000000b';
const NEW_OPTION = 'n00000000000000000000000000c';
const NEW_TAG = 'n00000000000000000000000000d';

let remote: RemoteProc;
let local: TestService;
let remoteId: number;
const run = async () => {
  const s = await local.service.sync.run(remoteId, local.service.domain.users.firstSuperUser()!, [SYNTH.dataset]);
  expect(s.error).toBeUndefined();
  return s;
};
const entry = (r: OdrRecord, f: string) => r.fields.find((x) => x.field_uuid === f);
const allFields = (t: Template): Template['fields'] => [...t.fields, ...t.related_databases.flatMap(allFields)];
const tagUuids = (tags: { template_tag_uuid: string; tags?: unknown[] }[] = []): string[] =>
  tags.flatMap((t) => [t.template_tag_uuid, ...tagUuids((t.tags ?? []) as typeof tags)]);

attachedPair(12, (p) => ({ remote, local, remoteId } = p));

describe('templates changed on the server', () => {
  it('reach the local copy on the next pull; values of removed parts stay, hidden, and are never pushed', async () => {
    const rec = SYNTH.record(1);
    const before = await local.admin.record(rec);
    const gone = entry(before, GONE)?.value;
    expect(gone, 'record 1 has a value in the field the server will remove').toBeTruthy();
    const removedOption = entry(before, MS)?.values?.[0]?.template_radio_option_uuid;
    const removedTag = entry(before, TAGS)?.tags?.[0]?.template_tag_uuid;
    expect(removedOption && removedTag, 'record 1 has an option and a tag selected').toBeTruthy();
    const childFieldBefore = (await local.admin.template(SYNTH.dataset)).related_databases[0]!.fields[0]!;

    // The server's template changes (its admin UI would do this; here, in its database).
    const db = new Database(path.join(remote.dataDir, 'odr.sqlite'));
    db.pragma('busy_timeout = 5000');
    const at = '2030-01-01 00:00:00';
    const dt = (uuid: string) => db.prepare('SELECT id FROM datatypes WHERE uuid = ?').pluck().get(uuid) as number;
    const fid = (uuid: string) => db.prepare('SELECT id FROM datafields WHERE uuid = ?').pluck().get(uuid) as number;
    const addField = db.prepare(`INSERT INTO datafields (uuid, datatype_id, template_field_uuid, name, fieldtype, display_order,
                                   create_date, create_auth, public_date, updated_at) VALUES (?, ?, ?, ?, 'Short Text', 99, ?, 'x', ?, ?)`);
    db.transaction(() => {
      db.prepare("UPDATE datafields SET name = 'Count (renamed)' WHERE uuid = ?").run(INT);
      addField.run(NEW_FIELD, dt(SYNTH.dataset), NEW_FIELD, 'Added on the server', at, at, at);
      addField.run(NEW_CHILD_FIELD, dt(SYNTH.child), NEW_CHILD_FIELD, 'Added to the child', at, at, at);
      db.prepare("UPDATE datafields SET name = 'Child field renamed' WHERE uuid = ?").run(childFieldBefore.field_uuid);
      db.prepare('DELETE FROM datafields WHERE uuid = ?').run(GONE);
      db.prepare(
        `INSERT INTO radio_options (uuid, datafield_id, name, display_order, created, updated_at) VALUES (?, ?, 'New option', 9, ?, ?)`,
      ).run(NEW_OPTION, fid(MS), at, at);
      db.prepare('DELETE FROM radio_options WHERE uuid = ? AND datafield_id = ?').run(removedOption, fid(MS));
      db.prepare(`INSERT INTO tags (uuid, datafield_id, name, display_order, created, updated_at) VALUES (?, ?, 'New tag', 9, ?, ?)`).run(
        NEW_TAG,
        fid(TAGS),
        at,
        at,
      );
      db.prepare('DELETE FROM tags WHERE uuid = ? AND datafield_id = ?').run(removedTag, fid(TAGS));
      db.prepare("UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'schema_rev'").run();
    })();
    db.close();
    const serverTemplate = await remote.client.template(SYNTH.dataset);
    expect(allFields(serverTemplate).map((f) => f.field_uuid)).not.toContain(GONE);

    await local.admin.setValue(rec, TEXT, 'edited here after the template change');
    const s = await run();
    expect(s.pushed).toBe(1);

    // The local template now is the server's.
    const t = await local.admin.template(SYNTH.dataset);
    const byUuid = new Map(allFields(t).map((f) => [f.field_uuid, f]));
    expect(byUuid.get(INT)?.name).toBe('Count (renamed)');
    expect(byUuid.get(NEW_FIELD)?.name).toBe('Added on the server');
    expect(byUuid.has(GONE)).toBe(false);
    expect(byUuid.get(NEW_CHILD_FIELD)?.name).toBe('Added to the child');
    expect(byUuid.get(childFieldBefore.field_uuid)?.name).toBe('Child field renamed');
    const options = byUuid.get(MS)!.radio_options!.map((o) => o.template_radio_option_uuid);
    expect(options).toContain(NEW_OPTION);
    expect(options).not.toContain(removedOption);
    const tags = tagUuids(byUuid.get(TAGS)!.tags);
    expect(tags).toContain(NEW_TAG);
    expect(tags).not.toContain(removedTag);
    expect(
      allFields(t)
        .map((f) => f.field_uuid)
        .sort(),
    ).toEqual(
      allFields(serverTemplate)
        .map((f) => f.field_uuid)
        .sort(),
    );

    // The record reads without the removed parts; the values under them are still stored.
    const after = await local.admin.record(rec);
    expect(entry(after, GONE)).toBeUndefined();
    expect(entry(after, MS)?.values?.map((v) => v.template_radio_option_uuid) ?? []).not.toContain(removedOption);
    expect(entry(after, TAGS)?.tags?.map((x) => x.template_tag_uuid) ?? []).not.toContain(removedTag);
    const ldb = local.service.ctx.db;
    const rid = local.service.domain.store.byUuid(rec)!.rid;
    expect(
      ldb
        .prepare('SELECT v.value FROM field_values v JOIN datafields f ON f.id = v.datafield_id WHERE v.record_rid = ? AND f.uuid = ?')
        .pluck()
        .get(rid, GONE),
    ).toBe(gone);
    expect(
      ldb
        .prepare(
          'SELECT COUNT(*) FROM option_selections s JOIN radio_options o ON o.id = s.option_id WHERE s.record_rid = ? AND o.uuid = ?',
        )
        .pluck()
        .get(rid, removedOption),
    ).toBe(1);
    expect(
      ldb
        .prepare('SELECT COUNT(*) FROM tag_selections s JOIN tags t ON t.id = s.tag_id WHERE s.record_rid = ? AND t.uuid = ?')
        .pluck()
        .get(rid, removedTag),
    ).toBe(1);

    // A save naming a removed option or tag by its uuid is a 404, never a new one of that name.
    for (const [field, entry] of [
      [MS, { values: [{ template_radio_option_uuid: removedOption }] }],
      [TAGS, { tags: [{ template_tag_uuid: removedTag }] }],
    ] as const) {
      const res = await fetch(`${local.api}/dataset/record`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${local.admin.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ record_uuid: rec, fields: [{ field_uuid: field, ...entry }] }),
      });
      expect(res.status, await res.clone().text()).toBe(404);
      expect(((await res.json()) as { error: { message: string } }).error.message).toMatch(/removed from the template/);
    }

    // A later write to the option field leaves the hidden selection alone and pushes only itself.
    await local.admin.setOption(rec, MS, NEW_OPTION, true);
    expect((await run()).pushed).toBe(1);
    expect(entry(await remote.client.record(rec), MS)?.values?.map((v) => v.template_radio_option_uuid)).toContain(NEW_OPTION);
    expect(
      ldb
        .prepare(`SELECT COUNT(*) FROM sync_outbox WHERE field_uuid = ? OR item_uuid IN (?, ?)`)
        .pluck()
        .get(GONE, removedOption, removedTag),
      'nothing about the removed parts ever reached the outbox',
    ).toBe(0);
    expect(entry(await remote.client.record(rec), TEXT)?.value).toBe('edited here after the template change');
    expect((await run()).pushed).toBe(0);
  });

  it('a field the server lists again shows its kept values again', async () => {
    const db = new Database(path.join(remote.dataDir, 'odr.sqlite'));
    db.pragma('busy_timeout = 5000');
    const at = '2030-01-02 00:00:00';
    const top = db.prepare('SELECT id FROM datatypes WHERE uuid = ?').pluck().get(SYNTH.dataset) as number;
    db.transaction(() => {
      db.prepare(
        `INSERT INTO datafields (uuid, datatype_id, template_field_uuid, name, fieldtype, create_date, create_auth, public_date, updated_at)
                  VALUES (?, ?, ?, 'Long Text field', 'Long Text', ?, 'x', ?, ?)`,
      ).run(GONE, top, GONE, at, at, at);
      db.prepare("UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'schema_rev'").run();
    })();
    db.close();
    await run();
    const t = await local.admin.template(SYNTH.dataset);
    expect(t.fields.map((f) => f.field_uuid)).toContain(GONE);
    expect(entry(await local.admin.record(SYNTH.record(1)), GONE)?.value).toBeTruthy();
  });
});

describe('records pulled from the server', () => {
  it('keep their local row, so a pull never moves them in the list', async () => {
    const rec = local.service.ctx.db
      .prepare(
        'SELECT p.uuid FROM records p WHERE p.parent_rid IS NULL AND EXISTS (SELECT 1 FROM records c WHERE c.parent_rid = p.rid) AND p.uuid != ?',
      )
      .pluck()
      .get(SYNTH.record(1)) as string;
    const rowBefore = local.service.domain.store.byUuid(rec)!;
    const childrenBefore = local.service.ctx.db
      .prepare('SELECT rid, uuid FROM records WHERE parent_rid = ? ORDER BY rid')
      .all(rowBefore.rid);
    const orderBefore = (await local.admin.list(SYNTH.dataset)).records.map((r) => r.record_uuid);
    await remote.client.setValue(rec, TEXT, 'changed on the server');
    expect((await run()).pulled).toBeGreaterThanOrEqual(1);
    const rowAfter = local.service.domain.store.byUuid(rec)!;
    expect(rowAfter.rid).toBe(rowBefore.rid);
    expect(rowAfter.internal_id).toBe(rowBefore.internal_id);
    expect(entry(await local.admin.record(rec), TEXT)?.value).toBe('changed on the server');
    expect(local.service.ctx.db.prepare('SELECT rid, uuid FROM records WHERE parent_rid = ? ORDER BY rid').all(rowAfter.rid)).toEqual(
      childrenBefore,
    );
    expect((await local.admin.list(SYNTH.dataset)).records.map((r) => r.record_uuid)).toEqual(orderBefore);
  });
});

import { checkValue, type StoredValue } from '../../../../shared/fieldTypes.js';
import type { Domain } from '../domain.js';
import { badRequest, notFound } from '../errors.js';
import type { RecordRow } from '../../store/rows.js';
import type { FieldInfo, TagInfo } from '../schemaCache.js';
import type { User } from '../users.js';

// Field-level writes shared by the value/option endpoints and the record save. Each returns
// whether anything changed, writes the change log, and leaves `_update_date` to its caller.
// Callers check the edit right on the record first (access.ts), before any value is compared.

export interface WriteCtx {
  d: Domain;
  user: User;
  at: string;
}

const sameStored = (a: StoredValue | undefined, b: StoredValue) => a === b;

export function writeScalar(w: WriteCtx, rec: RecordRow, f: FieldInfo, input: unknown, createDate?: string): boolean {
  const check = checkValue(f.type, input);
  if (!check.ok) throw badRequest(`${check.message} (field ${f.uuid} "${f.name}")`);
  const current = w.d.store.getValue(rec.rid, f.id);
  if (current && sameStored(current.value, check.stored)) return false;
  // `created` dates a new field instance (its update date too); an existing one keeps its own.
  const stamp = current ? w.at : (createDate ?? w.at);
  w.d.store.upsertValue(rec.rid, f.id, check.stored, stamp, w.user.display, stamp);
  w.d.logRecordChange(w.at, w.user, rec, {
    op: 'value.set',
    fieldUuid: f.uuid,
    old: current ? current.value : null,
    new: check.stored,
  });
  return true;
}

export function optionByUuid(f: FieldInfo, uuid: string) {
  const o = f.optionsByUuid.get(uuid);
  if (!o) throw notFound(`Radio option "${uuid}" of field ${f.uuid}`);
  return o;
}

export function tagByUuid(f: FieldInfo, uuid: string): TagInfo {
  const t = f.tagsByUuid.get(uuid);
  if (!t) throw notFound(`Tag "${uuid}" of field ${f.uuid}`);
  return t;
}

/** One option on or off (the PUT endpoint). Single-choice fields drop their other selection. */
export function writeOption(w: WriteCtx, rec: RecordRow, f: FieldInfo, optionUuid: string, on: boolean): boolean {
  const o = optionByUuid(f, optionUuid);
  const current = w.d.store.selectedOptions(rec.rid, f.id);
  const has = current.includes(o.id);
  if (has === on && (!on || !f.type.single || current.length === 1)) return false;
  if (on) {
    if (f.type.single) {
      for (const other of current) if (other !== o.id) unselect(w, rec, f, other);
    }
    if (!has) {
      w.d.store.selectOption(rec.rid, f.id, o.id, w.at);
      w.d.logRecordChange(w.at, w.user, rec, { op: 'option.select', fieldUuid: f.uuid, itemUuid: o.uuid, old: 0, new: 1 });
    }
  } else {
    unselect(w, rec, f, o.id);
  }
  w.d.store.touchInstance(rec.rid, f.id, w.at, w.user.display);
  return true;
}

function unselect(w: WriteCtx, rec: RecordRow, f: FieldInfo, optionId: number) {
  w.d.store.unselectOption(rec.rid, optionId);
  const o = w.d.schema().options.get(optionId)!;
  w.d.logRecordChange(w.at, w.user, rec, { op: 'option.unselect', fieldUuid: f.uuid, itemUuid: o.uuid, old: 1, new: 0 });
}

/** The save endpoint's `values`: the complete set of selected options. */
export function writeOptionSet(w: WriteCtx, rec: RecordRow, f: FieldInfo, uuids: string[]): boolean {
  const desired = new Set(uuids.map((u) => optionByUuid(f, u).id));
  if (f.type.single && desired.size > 1) {
    throw badRequest(`Field ${f.uuid} "${f.name}" (${f.fieldtype}) takes at most one selected option, ${desired.size} given`);
  }
  const current = new Set(w.d.store.selectedOptions(rec.rid, f.id));
  const add = [...desired].filter((id) => !current.has(id));
  const remove = [...current].filter((id) => !desired.has(id));
  if (!add.length && !remove.length) return false;
  for (const id of remove) unselect(w, rec, f, id);
  for (const id of add) {
    w.d.store.selectOption(rec.rid, f.id, id, w.at);
    w.d.logRecordChange(w.at, w.user, rec, {
      op: 'option.select',
      fieldUuid: f.uuid,
      itemUuid: w.d.schema().options.get(id)!.uuid,
      old: 0,
      new: 1,
    });
  }
  w.d.store.touchInstance(rec.rid, f.id, w.at, w.user.display);
  return true;
}

/** One tag on or off (the PUT endpoint): exactly that tag, no cascade (docs/odr-server.md §4.3). */
export function writeTag(w: WriteCtx, rec: RecordRow, f: FieldInfo, tagUuid: string, on: boolean): boolean {
  const t = tagByUuid(f, tagUuid);
  const has = w.d.store.selectedTags(rec.rid, f.id).includes(t.id);
  if (has === on) return false;
  if (on) w.d.store.selectTag(rec.rid, f.id, t.id, w.at);
  else w.d.store.unselectTag(rec.rid, t.id);
  w.d.store.touchInstance(rec.rid, f.id, w.at, w.user.display);
  w.d.logRecordChange(w.at, w.user, rec, {
    op: on ? 'tag.select' : 'tag.unselect',
    fieldUuid: f.uuid,
    itemUuid: t.uuid,
    old: on ? 0 : 1,
    new: on ? 1 : 0,
  });
  return true;
}

/**
 * The save endpoint's `tags`: the complete set; newly selecting a tag also selects its
 * ancestors. A tag already selected alone (PUT selects without cascade) stays alone, so a
 * record saved back as it was read changes nothing.
 */
export function writeTagSet(w: WriteCtx, rec: RecordRow, f: FieldInfo, uuids: string[]): boolean {
  const schema = w.d.schema();
  const current = new Set(w.d.store.selectedTags(rec.rid, f.id));
  const desired = new Set<number>();
  for (const u of uuids) {
    const tag = tagByUuid(f, u);
    desired.add(tag.id);
    if (current.has(tag.id)) continue;
    for (
      let t = tag.parentId === null ? undefined : schema.tags.get(tag.parentId);
      t;
      t = t.parentId === null ? undefined : schema.tags.get(t.parentId)
    ) {
      desired.add(t.id);
    }
  }
  const add = [...desired].filter((id) => !current.has(id));
  const remove = [...current].filter((id) => !desired.has(id));
  if (!add.length && !remove.length) return false;
  for (const id of remove) {
    w.d.store.unselectTag(rec.rid, id);
    w.d.logRecordChange(w.at, w.user, rec, { op: 'tag.unselect', fieldUuid: f.uuid, itemUuid: schema.tags.get(id)!.uuid, old: 1, new: 0 });
  }
  for (const id of add) {
    w.d.store.selectTag(rec.rid, f.id, id, w.at);
    w.d.logRecordChange(w.at, w.user, rec, { op: 'tag.select', fieldUuid: f.uuid, itemUuid: schema.tags.get(id)!.uuid, old: 0, new: 1 });
  }
  w.d.store.touchInstance(rec.rid, f.id, w.at, w.user.display);
  return true;
}

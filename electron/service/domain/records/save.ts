import { PRIVATE_DATE } from '../../../../shared/dates.js';
import type { SaveField, SaveFile, SaveRecord } from '../../../../shared/schemas/requests.js';
import type { Domain } from '../domain.js';
import { assertEdit } from '../access.js';
import { badRequest, notFound, OdrError } from '../errors.js';
import { newUuid } from '../ids.js';
import type { FileRow, RecordRow } from '../../store/rows.js';
import type { DatatypeInfo, FieldInfo } from '../schemaCache.js';
import { tx } from '../tx.js';
import type { User } from '../users.js';
import { writeOptionSet, writeScalar, writeTagSet, type WriteCtx } from './fieldWrites.js';
import { uuidsCreating } from './newOptions.js';
import { parseDateOrThrow, publicDateFor, selectDefaults, writeCtx } from './ops.js';
import { fileStore } from '../../store/files.js';
import { withArticle } from '../../../../shared/article.js';

// POST /dataset/record — a delta save (seed contract): only what the payload names is touched.
// Fields and child records left out stay as they are (unlike the real server, which deletes
// omitted children). The whole tree is one transaction: any error changes nothing.

const isOff = (x: unknown) => x === 0 || x === '0' || x === false;

function resolveField(dt: DatatypeInfo, p: SaveField): FieldInfo {
  const byOwn = p.field_uuid ? dt.fieldsByUuid.get(p.field_uuid) : undefined;
  if (byOwn) return byOwn;
  if (p.template_field_uuid) {
    const byTemplate = dt.fields.find((f) => f.templateFieldUuid === p.template_field_uuid);
    if (byTemplate) return byTemplate;
  }
  const named = p.field_uuid || p.template_field_uuid;
  if (!named) throw badRequest('Datafield entries must have either a template_field_uuid or a field_uuid set');
  throw new OdrError(404, `Unable to find the datafield with field_uuid "${named}" for the database "${dt.uuid}"`);
}

function structureError(f: FieldInfo, key: string): OdrError {
  return badRequest(`Field ${f.uuid} "${f.name}" is ${withArticle(f.fieldtype)} field and takes no "${key}"`);
}

function writeField(
  d: Domain,
  w: WriteCtx,
  rec: RecordRow,
  dt: DatatypeInfo,
  f: FieldInfo,
  p: SaveField,
  created: string | undefined,
): boolean {
  const kind = f.type.storage;
  if (p.files && p.files.length) {
    if (kind !== 'files') throw structureError(f, 'files');
    let changed = false;
    for (const file of p.files) changed = writeFileMeta(d, w, rec, f, file) || changed;
    return changed;
  }
  if (p.tags) {
    if (kind !== 'tags') throw structureError(f, 'tags');
    const named = p.tags.filter((t) => !isOff(t.selected)).map((t) => ({ uuid: t.template_tag_uuid, parent: t.parent_tag_uuid }));
    const { field, uuids } = uuidsCreating(w, dt, f, 'tags', named, created);
    return writeTagSet(w, rec, field, uuids);
  }
  if (p.values) {
    if (kind !== 'options') throw structureError(f, 'values');
    const named = p.values.filter((o) => !isOff(o.selected)).map((o) => ({ uuid: o.template_radio_option_uuid }));
    const { field, uuids } = uuidsCreating(w, dt, f, 'options', named, created);
    return writeOptionSet(w, rec, field, uuids);
  }
  const input = kind === 'boolean' ? (p.selected ?? p.value) : p.value;
  if (input === undefined || input === null) {
    if (p.selected !== undefined && p.selected !== null && kind !== 'boolean') throw structureError(f, 'selected');
    return false;
  }
  if (!f.type.takesValue) throw structureError(f, 'value');
  return writeScalar(w, rec, f, input, created);
}

const FILE_META_KEYS = ['created', 'public_date', 'quality', 'display_order', 'caption'] as const;

/**
 * A file entry of a save. Clients POST back whole records they read, images' thumbnails
 * included: an entry naming none of the keys a save may change is ignored (as on the real
 * server), and one that names them with the values already stored changes nothing — a
 * thumbnail carries its original's metadata, so only a real change to a thumbnail is refused.
 */
function writeFileMeta(d: Domain, w: WriteCtx, rec: RecordRow, f: FieldInfo, p: SaveFile): boolean {
  if (!FILE_META_KEYS.some((k) => p[k] !== undefined)) return false;
  const file = d.store.fileByUuid(p.file_uuid);
  if (!file || file.record_rid !== rec.rid || file.datafield_id !== f.id)
    throw notFound(`File "${p.file_uuid}" of field ${f.uuid} on record ${rec.uuid}`);
  const original = file.parent_rid === null ? file : fileStore(d.ctx.db).byRid(file.parent_rid);
  if (!original) throw notFound(`File "${p.file_uuid}" of field ${f.uuid} on record ${rec.uuid}`);
  const set: Partial<Pick<FileRow, 'create_date' | 'public_date' | 'quality' | 'display_order' | 'caption'>> = {};
  if (p.created !== undefined) set.create_date = parseDateOrThrow(d, p.created, 'created');
  if (p.public_date !== undefined) set.public_date = parseDateOrThrow(d, p.public_date, 'public_date');
  if (p.quality !== undefined) set.quality = intOrThrow(p.quality, 'quality');
  if (p.display_order !== undefined) set.display_order = intOrThrow(p.display_order, 'display_order');
  if (p.caption !== undefined) set.caption = p.caption;
  const changes = Object.entries(set).filter(([k, v]) => original[k as keyof FileRow] !== v);
  if (!changes.length) return false;
  if (file.parent_rid !== null) throw badRequest(`${p.file_uuid} is a derived image; change its original ${original.uuid} instead`);
  if (set.display_order !== undefined && set.display_order !== file.display_order && !file.is_image) {
    throw badRequest(`display_order applies to images only; ${p.file_uuid} is a file`);
  }
  fileStore(d.ctx.db).setMeta(file.rid, Object.fromEntries(changes));
  w.d.store.touchInstance(rec.rid, f.id, w.at, w.user.display);
  d.logRecordChange(w.at, w.user, rec, {
    op: 'file.meta',
    fieldUuid: f.uuid,
    itemUuid: file.uuid,
    old: Object.fromEntries(changes.map(([k]) => [k, file[k as keyof FileRow]])),
    new: Object.fromEntries(changes),
  });
  return true;
}

function intOrThrow(x: number | string, key: string): number {
  const n = typeof x === 'number' ? x : /^-?\d+$/.test(x) ? Number(x) : NaN;
  if (!Number.isSafeInteger(n)) throw badRequest(`${key} must be an integer, "${x}" given`);
  return n;
}

function saveNode(d: Domain, user: User, rec: RecordRow, p: SaveRecord, isNew: boolean): boolean {
  // Every record the payload names needs the edit right, checked before any value is compared.
  if (!isNew) assertEdit(d, user, rec);
  const dt = d.datatypeOf(rec);
  const w = writeCtx(d, user);
  let changed = isNew;
  if (p.public_date !== undefined && !isNew) {
    const date = publicDateFor(d, rec, p.public_date);
    if (date !== rec.public_date) {
      d.store.setPublicDate(rec.rid, date);
      d.logRecordChange(w.at, user, rec, { op: 'record.public', old: rec.public_date, new: date });
      changed = true;
    }
  }
  for (const fp of p.fields ?? []) {
    const f = resolveField(dt, fp);
    const created = fp.created === undefined ? undefined : parseDateOrThrow(d, fp.created, 'created');
    changed = writeField(d, w, rec, dt, f, fp, created) || changed;
  }
  const seen = new Set<string>();
  for (const cp of p.records ?? []) {
    if (cp.record_uuid === '') {
      changed = createChild(d, user, w, rec, dt, cp) || changed;
      continue;
    }
    if (seen.has(cp.record_uuid)) throw badRequest(`The descendant Record "${cp.record_uuid}" is defined more than once`);
    seen.add(cp.record_uuid);
    const child = d.store.byUuid(cp.record_uuid);
    if (!child) throw new OdrError(404, `This Datarecord: ${cp.record_uuid} can't be found.`);
    if (child.parent_rid !== rec.rid) throw badRequest(`Record ${cp.record_uuid} is not a child of record ${rec.uuid}`);
    if (cp.database_uuid && cp.database_uuid !== d.datatypeOf(child).uuid) {
      throw badRequest(`Record ${cp.record_uuid} belongs to datatype ${d.datatypeOf(child).uuid}, not ${cp.database_uuid}`);
    }
    changed = saveNode(d, user, child, cp, false) || changed;
  }
  // A new record dated by `created` keeps that as its update date; its ancestors move to now.
  if (changed) {
    if (isNew && p.created !== undefined) {
      if (rec.parent_rid !== null) d.store.touch(rec.parent_rid, w.at);
    } else {
      d.store.touch(rec.rid, w.at);
    }
  }
  return changed;
}

function createChild(d: Domain, user: User, w: WriteCtx, parent: RecordRow, parentDt: DatatypeInfo, p: SaveRecord): boolean {
  if (!p.database_uuid) throw badRequest('A new child record needs its database_uuid');
  const childDt = d.schema().datatypesByUuid.get(p.database_uuid);
  if (!childDt || childDt.parentId !== parentDt.id) {
    throw new OdrError(404, `Datatype ${p.database_uuid} is not a child of ${parentDt.uuid}`);
  }
  const created = p.created === undefined ? w.at : parseDateOrThrow(d, p.created, 'created');
  const publicDate =
    p.public_date === undefined ? (childDt.newRecordsPublic ? w.at : PRIVATE_DATE) : parseDateOrThrow(d, p.public_date, 'public_date');
  const child = d.store.insert({
    uuid: newUuid(),
    datatypeId: childDt.id,
    parent,
    createdBy: user.id,
    createDate: created,
    updateDate: created,
    createAuth: user.display,
    publicDate,
  });
  selectDefaults(d, child, childDt, w.at);
  d.logRecordChange(w.at, user, child, {
    op: 'record.create',
    new: { database_uuid: childDt.uuid, parent_uuid: parent.uuid, public_date: publicDate, created },
  });
  saveNode(d, user, child, p, true);
  return true;
}

/** Saves a record tree; returns the saved record (as stored now). */
export function saveRecord(d: Domain, user: User, p: SaveRecord): RecordRow {
  if (!p.record_uuid) throw badRequest('Top-level Records must have a record_uuid set');
  const result = tx(d.ctx, () => {
    const rec = assertEdit(d, user, d.record(p.record_uuid));
    if (p.database_uuid && p.database_uuid !== d.datatypeOf(rec).uuid) {
      throw badRequest(`Record ${rec.uuid} belongs to dataset ${d.datatypeOf(rec).uuid}, not ${p.database_uuid}`);
    }
    return { rec, changed: saveNode(d, user, rec, p, false) };
  });
  if (result.changed) d.announce([result.rec]);
  return d.store.byRid(result.rec.rid)!;
}

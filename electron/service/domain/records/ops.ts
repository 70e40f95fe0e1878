import { PRIVATE_DATE, isPublicAt, isRelativeDateInput, parseDateInput } from '../../../../shared/dates.js';
import type { Domain } from '../domain.js';
import { SYSTEM_USER } from '../domain.js';
import { badRequest, forbidden, notFound, OdrError } from '../errors.js';
import { newUuid } from '../ids.js';
import { assertEdit, editableRecord } from '../access.js';
import { canAddRecords } from '../permissions.js';
import type { RecordRow } from '../../store/rows.js';
import type { DatatypeInfo, FieldInfo } from '../schemaCache.js';
import { checkValue } from '../../../../shared/fieldTypes.js';
import { heldValue } from './heldValue.js';
import { tx } from '../tx.js';
import type { User } from '../users.js';
import { writeOption, writeScalar, writeTag, type WriteCtx } from './fieldWrites.js';
import { keepDeleted } from './trash.js';
import { WHO } from '../rights.js';

export const MAX_DELETE = 100;

export function parseDateOrThrow(d: Domain, input: string, key: string): string {
  const parsed = parseDateInput(input, d.ctx.clock());
  if (parsed === null) throw badRequest(`${key} "${input}" is not a date (use YYYY-MM-DD, YYYY-MM-DD HH:MM:SS or ISO 8601)`);
  return parsed;
}

export function writeCtx(d: Domain, user: User): WriteCtx {
  return { d, user, at: d.now() };
}

/** Pre-selects the options a datatype marks as default, as the real server does on create. */
export function selectDefaults(d: Domain, rec: RecordRow, dt: DatatypeInfo, at: string): void {
  for (const f of dt.fields) {
    for (const o of f.options) if (o.isDefault) d.store.selectOption(rec.rid, f.id, o.id, at);
  }
}

export interface CreateInput {
  publicDate?: string;
  created?: string;
}

/** POST /dataset/{uuid}/record: an empty top-level record, private unless told otherwise. */
export function createRecord(d: Domain, user: User, datasetUuid: string, input: CreateInput): RecordRow {
  const dt = d.datatype(datasetUuid);
  if (dt.parentId !== null) {
    throw badRequest(`${datasetUuid} is a child datatype: its records are created inside a parent record (save with record_uuid "")`);
  }
  if (!canAddRecords(user, dt, d.now())) throw forbidden(`You may not add records to dataset ${datasetUuid}: only ${WHO.addsRecords} can.`);
  const now = d.now();
  const created = input.created ? parseDateOrThrow(d, input.created, 'created') : now;
  const publicDate = input.publicDate ? parseDateOrThrow(d, input.publicDate, 'public_date') : dt.newRecordsPublic ? now : PRIVATE_DATE;
  const rec = tx(d.ctx, () => {
    const r = d.store.insert({
      uuid: newUuid(),
      datatypeId: dt.id,
      parent: null,
      createdBy: user.id,
      createDate: created,
      updateDate: created,
      createAuth: user.display,
      publicDate,
    });
    selectDefaults(d, r, dt, now);
    d.logRecordChange(now, user, r, { op: 'record.create', new: { database_uuid: dt.uuid, public_date: publicDate, created } });
    return r;
  });
  d.announce([rec]);
  return rec;
}

function fieldOf(d: Domain, rec: RecordRow, fieldUuid: string): FieldInfo {
  const f = d.schema().fieldsByUuid.get(fieldUuid);
  if (!f) throw notFound(`Datafield "${fieldUuid}"`);
  if (f.datatypeId !== rec.datatype_id) {
    throw badRequest(`Field ${fieldUuid} does not belong to the dataset of record ${rec.uuid}`);
  }
  return f;
}

/** How the value and option routes name a field in their errors: record, field uuid and name. */
const fieldPlace = (rec: RecordRow, f: FieldInfo) => `Record ${rec.uuid}, field ${f.uuid} "${f.name}" (${f.fieldtype})`;

const quoted = (v: string | null) => (v === null ? 'nothing (empty)' : JSON.stringify(v));

/**
 * The field must hold `expected` now (as stored: the same check as a write normalises it), or
 * the write is refused with 409 naming both values: an undo must not overwrite a newer value.
 */
function assertHolds(w: WriteCtx, rec: RecordRow, f: FieldInfo, expected: unknown): void {
  let want: string | null = null;
  if (expected !== null && expected !== '') {
    const check = checkValue(f.type, expected);
    if (!check.ok) throw badRequest(`${fieldPlace(rec, f)}: expected_value: ${check.message}`);
    want = heldValue(f.type.storage, check.stored);
  }
  const now = heldValue(f.type.storage, w.d.store.getValue(rec.rid, f.id)?.value);
  if (now !== want) {
    throw new OdrError(409, `${fieldPlace(rec, f)} holds ${quoted(now)} now, not the expected ${quoted(want)}: nothing was changed`, {
      reason: 'changed_since',
      holds: now,
    });
  }
}

/** The field's selection must be exactly `expected` (option or tag uuids), or 409 naming both. */
function assertSelection(w: WriteCtx, rec: RecordRow, f: FieldInfo, expected: string[]): void {
  const tags = f.type.storage === 'tags';
  const uuidOf = new Map([...(tags ? f.tagsByUuid : f.optionsByUuid).values()].map((o) => [o.id, o.uuid] as const));
  const ids = tags ? w.d.store.selectedTags(rec.rid, f.id) : w.d.store.selectedOptions(rec.rid, f.id);
  // Options or tags the template no longer lists are never shown, so nobody can expect them.
  const now = ids.flatMap((id) => uuidOf.get(id) ?? []).sort();
  const want = [...new Set(expected)].sort();
  if (now.join() !== want.join()) {
    const list = (l: string[]) => (l.length ? l.join(', ') : 'none');
    throw new OdrError(409, `${fieldPlace(rec, f)} has ${list(now)} selected now, not the expected ${list(want)}: nothing was changed`, {
      reason: 'changed_since',
      holds: now,
    });
  }
}

/**
 * POST /record/{r}/{f}/value. `null` changes nothing; `""` clears. With `expected` (not
 * undefined) the write happens only if the field holds that now, checked in the write's transaction.
 */
export function setValue(d: Domain, user: User, recordUuid: string, fieldUuid: string, value: unknown, expected?: unknown): RecordRow {
  const rec = editableRecord(d, user, recordUuid, `Datarecord "${recordUuid}"`);
  const f = fieldOf(d, rec, fieldUuid);
  if (!f.type.takesValue) throw badRequest(`${fieldPlace(rec, f)}: this field type does not support a "value" update`);
  if (value === null) return rec;
  const changed = tx(d.ctx, () => {
    const w = writeCtx(d, user);
    if (expected !== undefined) assertHolds(w, rec, f, expected);
    const did = writeScalar(w, rec, f, value);
    if (did) d.store.touch(rec.rid, w.at);
    return did;
  });
  if (changed) d.announce([rec]);
  return rec;
}

/**
 * PUT /record/{r}/{f}/{option}/{selected|unselected}: radio options and tags. Idempotent. With
 * `expected` (uuids) the write happens only if the field's selection is exactly that now.
 */
export function setOption(
  d: Domain,
  user: User,
  recordUuid: string,
  fieldUuid: string,
  optionUuid: string,
  on: boolean,
  expected?: string[],
): RecordRow {
  const rec = editableRecord(d, user, recordUuid, `Datarecord "${recordUuid}"`);
  const f = fieldOf(d, rec, fieldUuid);
  if (!f.type.takesOptions) throw badRequest(`${fieldPlace(rec, f)}: this field type does not support tag/radio selection`);
  const changed = tx(d.ctx, () => {
    const w = writeCtx(d, user);
    if (expected !== undefined) assertSelection(w, rec, f, expected);
    const did = f.type.storage === 'tags' ? writeTag(w, rec, f, optionUuid, on) : writeOption(w, rec, f, optionUuid, on);
    if (did) d.store.touch(rec.rid, w.at);
    return did;
  });
  if (changed) d.announce([rec]);
  return rec;
}

/**
 * The public date a request asks for. "Now" (no date, "" or "now") on a record that is already
 * public keeps the date it became public: making it public again must not rewrite its history.
 */
export function publicDateFor(d: Domain, rec: RecordRow, input: string | undefined): string {
  return publicDateFrom(d, rec.public_date, input);
}

/** publicDateFor for anything with a public date (a record, a dataset). */
export function publicDateFrom(d: Domain, current: string, input: string | undefined): string {
  const now = d.now();
  const meansNow = input === undefined || input.trim() === '' || /^\s*now\s*$/i.test(input);
  if (meansNow) return isPublicAt(current, now) ? current : now;
  return parseDateOrThrow(d, input, 'public_date');
}

/**
 * POST /dataset/record/public. No date means now; a future date schedules publication. With
 * `expected` (odr-desktop) the date is set only if the record's public date is that now, checked
 * in the write's transaction (409 naming both otherwise): a sync's push must not overwrite a
 * date changed there since its base.
 */
export function setPublicDate(
  d: Domain,
  user: User,
  datasetUuid: string,
  recordUuid: string,
  publicDate: string | undefined,
  expected?: string,
): RecordRow {
  const dt = d.datatype(datasetUuid);
  const rec = editableRecord(d, user, recordUuid, 'Record');
  const recDt = d.datatypeOf(rec);
  if (recDt.id !== dt.id && recDt.top.id !== dt.id) {
    throw badRequest(`Record ${recordUuid} is not in dataset ${datasetUuid}`);
  }
  // A guard names the date the record has; "now" or "+1 day" would be read against this request's
  // clock and all but never match (a 409 for nothing): refused as what it is.
  if (expected !== undefined && isRelativeDateInput(expected)) {
    throw badRequest(`expected_public_date "${expected}" is relative: name the date the record has (YYYY-MM-DD HH:MM:SS or ISO 8601)`);
  }
  const want = expected === undefined ? undefined : parseDateOrThrow(d, expected, 'expected_public_date');
  tx(d.ctx, () => {
    const w = writeCtx(d, user);
    // Read in the transaction: the guard and "already that date" see what the write would replace.
    const now = d.store.byRid(rec.rid)!.public_date;
    if (want !== undefined && now !== want) {
      throw new OdrError(409, `Record ${recordUuid} has the public date ${now} now, not the expected ${want}: nothing was changed`, {
        reason: 'changed_since',
        holds: now,
      });
    }
    const date = publicDateFrom(d, now, publicDate);
    if (now === date) return;
    d.store.setPublicDate(rec.rid, date);
    d.store.touch(rec.rid, w.at);
    d.logRecordChange(w.at, user, rec, { op: 'record.public', old: now, new: date });
  });
  d.announce([rec]);
  return d.store.byRid(rec.rid)!;
}

export interface DeleteOutcome {
  deleted: string[];
  /** Content hashes that may have lost their last reference. */
  orphanCandidates: string[];
}

/**
 * DELETE /record[/uuid]: every uuid is resolved and checked before anything is deleted; then
 * all go in one transaction (with their descendants). The change log keeps a snapshot; each
 * record also goes to the record trash, from which POST /local/records/{uuid}/restore takes it back.
 */
export function deleteRecords(d: Domain, user: User, uuids: string[]): DeleteOutcome {
  if (uuids.length === 0) throw badRequest('No record UUIDs provided');
  if (uuids.length > MAX_DELETE) throw badRequest(`A maximum of ${MAX_DELETE} records may be deleted per request`);
  const announced: { datasetUuid: string; recordUuid: string }[] = [];
  const outcome = tx(d.ctx, () => {
    const recs = uuids.map((u) => {
      const rec = d.store.byUuid(u);
      if (!rec) throw new OdrError(404, `This Datarecord: ${u} can't be found.`);
      return assertEdit(d, user, rec);
    });
    const at = d.now();
    const hashes = new Set<string>();
    for (const rec of recs) {
      if (!d.store.byRid(rec.rid)) continue; // went with an ancestor earlier in the list
      for (const h of d.store.fileHashesUnder(rec.rid)) hashes.add(h);
      const snapshot = d.render(rec, { viewer: SYSTEM_USER, now: at, apiBase: '' });
      d.logRecordChange(at, user, rec, { op: 'record.delete', old: snapshot, new: null });
      // Restorable on its own (undo of the delete, records/trash.ts); a child under its parent.
      keepDeleted(d, user, rec, snapshot, at);
      const top = d.store.topOf(rec);
      announced.push({ datasetUuid: d.datatypeOf(top).uuid, recordUuid: top.uuid });
      if (rec.parent_rid !== null) d.store.touch(rec.parent_rid, at);
      d.store.delete(rec.rid, at);
    }
    return { deleted: recs.map((r) => r.uuid), orphanCandidates: [...hashes] };
  });
  for (const a of announced) d.ctx.events.emit('records', { datasetUuid: a.datasetUuid, recordUuids: [a.recordUuid] });
  return outcome;
}

import { PRIVATE_DATE } from '../../../../shared/dates.js';
import type { BatchBefore, BatchRequest, BatchResult, BatchSkipped } from '../../../../shared/schemas/batch.js';
import type { Domain } from '../domain.js';
import { badRequest } from '../errors.js';
import { editableRecord } from '../access.js';
import type { RecordRow } from '../../store/rows.js';
import type { FieldInfo } from '../schemaCache.js';
import { tx } from '../tx.js';
import type { User } from '../users.js';
import { writeOption, writeOptionSet, writeScalar, writeTag, type WriteCtx } from './fieldWrites.js';
import { publicDateFor, writeCtx } from './ops.js';
import { sameHeld } from './heldValue.js';

/** What `rec` holds in what the change touches, so the batch can be undone. */
function snapshot(d: Domain, rec: RecordRow, f: FieldInfo | undefined): BatchBefore {
  // The stored row: `rec` is read before the batch wrote its public date.
  if (!f) return { record: rec.uuid, public_date: d.store.byRid(rec.rid)?.public_date ?? rec.public_date };
  const schema = d.schema();
  if (f.type.storage === 'tags')
    return { record: rec.uuid, selected: d.store.selectedTags(rec.rid, f.id).map((id) => schema.tags.get(id)!.uuid) };
  if (f.type.takesOptions)
    return { record: rec.uuid, selected: d.store.selectedOptions(rec.rid, f.id).map((id) => schema.options.get(id)!.uuid) };
  return { record: rec.uuid, value: d.store.getValue(rec.rid, f.id)?.value ?? null };
}

type State = Omit<BatchBefore, 'record' | 'after'>;

/**
 * Whether `rec` still holds what a batch left (`after`): values compare as the single-edit undo
 * compares them (heldValue), selections as sets.
 */
function sameState(f: FieldInfo | undefined, now: State, after: State): boolean {
  const set = (l: string[] | undefined) => [...(l ?? [])].sort().join();
  const values = f ? sameHeld(f.type.storage, now.value, after.value) : (now.value ?? null) === (after.value ?? null);
  return now.public_date === after.public_date && values && set(now.selected) === set(after.selected);
}

const stateText = (s: State) =>
  s.public_date !== undefined
    ? `public date ${s.public_date}`
    : s.selected !== undefined
      ? `selection ${s.selected.join(', ') || 'none'}`
      : `value ${JSON.stringify(s.value ?? null)}`;

function writePublic(w: WriteCtx, rec: RecordRow, date: string): boolean {
  if (rec.public_date === date) return false;
  w.d.store.setPublicDate(rec.rid, date);
  w.d.logRecordChange(w.at, w.user, rec, { op: 'record.public', old: rec.public_date, new: date });
  return true;
}

/** Exactly these tags, nothing cascaded: an undo puts back what was there. */
function writeExactTags(w: WriteCtx, rec: RecordRow, f: FieldInfo, uuids: string[]): boolean {
  const schema = w.d.schema();
  const want = new Set(uuids);
  const have = new Set(w.d.store.selectedTags(rec.rid, f.id).map((id) => schema.tags.get(id)!.uuid));
  let did = false;
  for (const u of have) if (!want.has(u)) did = writeTag(w, rec, f, u, false) || did;
  for (const u of want) if (!have.has(u)) did = writeTag(w, rec, f, u, true) || did;
  return did;
}

/**
 * One change across many top-level records of a dataset, all or nothing in one transaction: the
 * edit right is checked on every record before anything is written, and the answer lists what
 * each changed record held before (a `restore` change puts exactly that back).
 */
export function runBatch(d: Domain, user: User, datasetUuid: string, req: BatchRequest): BatchResult {
  const dt = d.datatype(datasetUuid);
  if (dt.parentId !== null) throw badRequest('Only permitted on top-level datatypes');
  const change = req.change;
  const items = change.kind === 'restore' ? change.items : req.records.map((record) => ({ record }) as BatchBefore);
  if (!items.length) throw badRequest('records: choose at least one record');
  const fieldUuid = change.kind === 'public' ? undefined : change.field;
  const f = fieldUuid === undefined ? undefined : dt.fieldsByUuid.get(fieldUuid);
  if (fieldUuid !== undefined && !f) throw badRequest(`field ${fieldUuid} is not a field of dataset ${datasetUuid}`);
  if (change.kind === 'value' && !f!.type.takesValue) throw badRequest(`Field type "${f!.fieldtype}" does not take a value`);
  if (change.kind === 'option' && !f!.type.takesOptions) throw badRequest(`Field type "${f!.fieldtype}" has no options or tags`);
  if (change.kind === 'restore' && !f && change.items.some((i) => i.public_date === undefined)) {
    throw badRequest('restore: without a field every item needs its public_date');
  }

  const seen = new Set<string>();
  const skipped: BatchSkipped[] = [];
  // A restore (an undo) puts back the records still there; one deleted since is skipped and named.
  const recs = items.map((item) => {
    if (seen.has(item.record)) throw badRequest(`record ${item.record} is listed twice`);
    seen.add(item.record);
    if (change.kind === 'restore' && !d.store.byUuid(item.record)) {
      skipped.push({ record: item.record, reason: 'deleted', message: `Record ${item.record} was deleted since` });
      return null;
    }
    const rec = editableRecord(d, user, item.record);
    if (rec.datatype_id !== dt.id || rec.parent_rid !== null)
      throw badRequest(`Record ${item.record} is not a top-level record of dataset ${datasetUuid}`);
    return rec;
  });

  const before: BatchBefore[] = [];
  const touched: RecordRow[] = [];
  tx(d.ctx, () => {
    const w = writeCtx(d, user);
    recs.forEach((rec, i) => {
      if (!rec) return;
      const item = items[i]!;
      const was = snapshot(d, rec, f);
      if (change.kind === 'restore' && item.after) {
        const { record: _r, ...now } = was;
        if (!sameState(f, now, item.after)) {
          const message = `Record ${rec.uuid} holds ${stateText(now)} now, not the ${stateText(item.after)} the batch left`;
          skipped.push({ record: rec.uuid, reason: 'changed', message });
          return;
        }
      }
      let did: boolean;
      switch (change.kind) {
        case 'value':
          did = writeScalar(w, rec, f!, change.value);
          break;
        case 'option':
          did =
            f!.type.storage === 'tags' ? writeTag(w, rec, f!, change.option, change.on) : writeOption(w, rec, f!, change.option, change.on);
          break;
        case 'public':
          did = writePublic(w, rec, change.public ? publicDateFor(d, rec, undefined) : PRIVATE_DATE);
          break;
        case 'restore':
          if (!f) did = writePublic(w, rec, item.public_date!);
          else if (f.type.storage === 'tags') did = writeExactTags(w, rec, f, item.selected ?? []);
          else if (f.type.takesOptions) did = writeOptionSet(w, rec, f, item.selected ?? []);
          else did = writeScalar(w, rec, f, item.value ?? '');
          break;
      }
      if (did) {
        const { record: _r, ...after } = snapshot(d, rec, f);
        before.push({ ...was, after });
        touched.push(rec);
      }
    });
    d.store.touchMany(
      touched.map((r) => r.rid),
      w.at,
    );
  });
  if (touched.length) d.announce(touched);
  return { changed: touched.length, before, ...(change.kind === 'restore' ? { skipped } : {}) };
}

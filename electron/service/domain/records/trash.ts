import { getMimeType } from 'hono/utils/mime';
import { recordName, type NamedRecord, type NamingTemplate } from '../../../../shared/recordName.js';
import type { RecordTrashList } from '../../../../shared/schemas/local.js';
import type { Domain } from '../domain.js';
import { OdrError } from '../errors.js';
import type { BlobStore } from '../files/blobStore.js';
import { RecordImporter } from '../import/importRecords.js';
import { canEditRecord } from '../permissions.js';
import type { DatatypeInfo } from '../schemaCache.js';
import type { RecordRow } from '../../store/rows.js';
import { recordTrashStore, type RecordTrashRow } from '../../store/recordTrash.js';
import { tx } from '../tx.js';
import type { User } from '../users.js';
import { WHO } from '../rights.js';

// A deleted record, top-level or child, stays restorable for RECORD_TRASH_DAYS: undoing a delete
// is an ordinary step of the undo history, and a person may take it back long after a toast is
// gone. The trash holds the record tree in ODR export form (the importer reads it back with the
// same uuids), its records' and files' creators, and a hold on its files' bytes. A child comes
// back under its parent, which must be there (a deleted parent is restored first, without the
// children deleted before it: each is an entry of its own).

export const RECORD_TRASH_DAYS = 30;
const DAY_MS = 86_400_000;

/** Keeps a record about to be deleted; call in the delete's transaction, before the delete. */
export function keepDeleted(d: Domain, user: User, rec: RecordRow, snapshot: unknown, at: string): void {
  const store = recordTrashStore(d.ctx.db);
  const parent = rec.parent_rid === null ? undefined : d.store.byRid(rec.parent_rid);
  store.put({
    record_uuid: rec.uuid,
    rid: rec.rid,
    dataset_uuid: d.datatypeOf(rec).uuid,
    deleted_at: at,
    expires_at: new Date(d.ctx.clock().getTime() + RECORD_TRASH_DAYS * DAY_MS).toISOString(),
    deleted_by: user.id,
    snapshot: JSON.stringify(snapshot),
    creators: JSON.stringify(store.creators(rec.rid)),
    files: JSON.stringify(store.files(rec.rid)),
    hidden: store.hidden(rec.rid),
    parent_uuid: parent?.uuid ?? null,
    parent_name: parent
      ? recordName(
          { record_name: store.nameOf(parent.rid), internal_id: parent.internal_id, fields: store.valuesOf(parent.rid) },
          namingOf(d.datatypeOf(parent)),
        )
      : null,
    top_created_by: parent ? d.store.topOf(rec).created_by : null,
    ancestors: parent ? JSON.stringify(store.lineage(parent.rid)) : null,
  });
}

/**
 * The delete rule (canEditRecord): editors, and the creator (of a child: or of its top-level
 * record, as at the delete) unless a read-only role holds them back; with its dataset deleted,
 * its creator or a super-user. One rule for the list and the restore.
 */
function mayRestore(
  d: Domain,
  user: User,
  row: { record_uuid: string; dataset_uuid: string; creators: string; parent_uuid: string | null; top_created_by: number | null },
): boolean {
  const dt = d.schema().datatypesByUuid.get(row.dataset_uuid);
  const creators = JSON.parse(row.creators) as Record<string, number | null>;
  const facts = { created_by: creators[row.record_uuid] ?? null, public_date: '' };
  const top = row.parent_uuid === null ? facts : { created_by: row.top_created_by, public_date: '' };
  return dt ? canEditRecord(user, dt, facts, top) : user.isSuper || facts.created_by === user.id;
}

/**
 * GET /local/records/trash: the deleted records `user` may restore, newest first. One query reads
 * every unexpired entry (the trash holds 30 days of deletes); the restore rule then filters, so
 * the list shows exactly what POST …/restore would accept and nothing of anyone else's.
 */
export function listRecordTrash(d: Domain, user: User, limit: number, offset: number): RecordTrashList {
  const visible = recordTrashStore(d.ctx.db)
    .list(d.ctx.clock().toISOString())
    .filter((row) => mayRestore(d, user, row));
  return {
    total: visible.length,
    records: visible
      .slice(offset, offset + limit)
      .map(({ creators: _c, top_created_by: _t, record_name, internal_id, fields, ...entry }) => ({
        ...entry,
        name: nameOfEntry(d, entry.dataset_uuid, record_name, internal_id ?? entry.record_uuid, fields),
      })),
  };
}

/** A template's fields as shared/recordName.ts reads them. */
const namingOf = (dt: DatatypeInfo | undefined): NamingTemplate => ({
  fields: dt ? dt.fields.map((f) => ({ field_uuid: f.uuid, fieldtype: f.fieldtype })) : [],
});

/**
 * An entry's name as the list and the pane call the record (shared/recordName.ts), read from its
 * snapshot. With its dataset deleted too there is no template to find a text field in: the
 * record's name field's value, else its id.
 */
function nameOfEntry(d: Domain, datasetUuid: string, named: string | null, internalId: string, fields: string): string {
  const parsed = JSON.parse(fields) as unknown;
  const own = Array.isArray(parsed) ? (parsed as NamedRecord['fields']) : [];
  return recordName({ record_name: named, internal_id: internalId, fields: own }, namingOf(d.schema().datatypesByUuid.get(datasetUuid)));
}

/**
 * POST /local/records/{uuid}/restore: puts a deleted record back with its uuid, values, child
 * records, files (bytes included) and creators; a child under its parent. Allowed to whoever
 * could have deleted it: an editor of the dataset or the record's (or its top record's) creator.
 * Logged as `record.restore` (before the import's own entry), which tells sync whether the
 * server still has the record.
 */
export function restoreRecord(d: Domain, user: User, uuid: string): RecordRow {
  const store = recordTrashStore(d.ctx.db);
  const row = store.get(uuid);
  const dt = row ? d.schema().datatypesByUuid.get(row.dataset_uuid) : undefined;
  const allowed = row ? mayRestore(d, user, row) : false;
  // Checked before anything else is said about the entry: one 404 for what is not there and for
  // what the caller may not restore, so the trash reveals no uuid to who could not delete it.
  if (!row || row.expires_at <= d.ctx.clock().toISOString() || !allowed) {
    throw new OdrError(
      404,
      `Record ${uuid} is not in the trash for you: it was never deleted here, is restored already, was deleted more than ${RECORD_TRASH_DAYS} days ago, or only ${WHO.editsRecord} may restore it.`,
    );
  }
  if (d.store.byUuid(uuid)) throw new OdrError(409, `Record ${uuid} exists; there is nothing to restore.`);
  if (!dt) throw new OdrError(409, `The dataset of record ${uuid} (${row.dataset_uuid}) is deleted: restore the dataset first.`);
  const parent = row.parent_uuid === null ? null : parentFor(d, row, dt);
  const top = parent ? d.store.topOf(parent) : null;
  tx(d.ctx, () => {
    // Logged before the import's own entry, naming what the template no longer holds (dropped).
    const logged = (dropped: string[]) =>
      d.log.append(d.now(), {
        op: 'record.restore',
        userId: user.id,
        datasetUuid: top ? d.datatypeOf(top).uuid : dt.uuid,
        recordUuid: uuid,
        topRecordUuid: top ? top.uuid : uuid,
        new: dropped.length ? { dropped } : undefined,
      });
    const importer = new RecordImporter(d, user, false, { ridOf: (u) => (u === uuid ? row.rid : undefined), logged });
    if (parent) {
      importer.importChild(JSON.parse(row.snapshot), importer.typesByUuid(), parent);
      d.store.touch(parent.rid, d.now()); // as the delete did: the parent changed
    } else {
      importer.importTop(JSON.parse(row.snapshot), importer.typesByUuid());
      // The record keeps its own dates; its dataset changed now (its "last change").
      d.store.stampDatasetChange(dt.id, d.now());
    }
    store.restoreOwnership(row.creators, row.files, getMimeType);
    store.restoreHidden(row.hidden);
    store.remove(uuid);
  });
  const rec = d.store.byUuid(uuid)!;
  d.announce([rec]);
  return rec;
}

/**
 * A child's parent, which must be there and still hold its dataset (else 409: nothing is written).
 * A missing parent may be in the trash as an entry of its own, or inside an ancestor's (deleted
 * with it): the 409 names the nearest one whose restore brings it back, if any.
 */
function parentFor(d: Domain, row: RecordTrashRow, dt: DatatypeInfo): RecordRow {
  const uuid = row.record_uuid;
  const parentUuid = row.parent_uuid!;
  const parent = d.store.byUuid(parentUuid);
  if (!parent) {
    const first = restorableAncestor(d, row);
    throw new OdrError(
      409,
      first === parentUuid
        ? `The parent record ${parentUuid} of record ${uuid} is deleted: restore the parent record first.`
        : first
          ? `The parent record ${parentUuid} of record ${uuid} was deleted with record ${first}: restore record ${first} first (it brings the parent record back).`
          : `The parent record ${parentUuid} of record ${uuid} is deleted and no longer in the trash: it cannot come back.`,
    );
  }
  if (dt.parentId !== parent.datatype_id) {
    throw new OdrError(409, `Dataset ${dt.uuid} of record ${uuid} is no longer a child dataset of record ${parentUuid}'s dataset.`);
  }
  return parent;
}

/**
 * The nearest missing ancestor of a trashed child whose unexpired entry brings its parent back,
 * or undefined. Walking up from the parent: one with an entry of its own is the answer (or, if
 * that entry expired, the end: the ones above do not hold it); one without went with an
 * ancestor's delete, so look further up; a record still here ends the walk (nothing above holds it).
 */
function restorableAncestor(d: Domain, row: RecordTrashRow): string | undefined {
  const store = recordTrashStore(d.ctx.db);
  const now = d.ctx.clock().toISOString();
  const up = row.ancestors ? (JSON.parse(row.ancestors) as string[]) : [row.parent_uuid!];
  for (const a of up) {
    if (d.store.byUuid(a)) return undefined;
    const entry = store.get(a);
    if (entry) return entry.expires_at > now ? a : undefined;
  }
  return undefined;
}

/** Forgets trashed records whose time is up and lets go of the bytes only they held. */
export function purgeExpiredRecords(d: Domain, blobs: BlobStore): number {
  const store = recordTrashStore(d.ctx.db);
  const gone = store.expired(d.ctx.clock().toISOString());
  if (!gone.length) return 0;
  const hashes = tx(d.ctx, () =>
    gone.flatMap((u) => {
      const held = store.blobsOf(u);
      store.remove(u);
      return held;
    }),
  );
  blobs.removeUnreferenced(hashes);
  return gone.length;
}

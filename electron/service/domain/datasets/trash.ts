import { closeSync, copyFileSync, existsSync, fsyncSync, linkSync, openSync, readdirSync, readFileSync, rmSync, writeSync } from 'node:fs';
import path from 'node:path';
import { getMimeType } from 'hono/utils/mime';
import type { TrashEntry } from '../../../../shared/schemas/local.js';
import type { DatasetRole } from '../../../../shared/schemas/users.js';
import { newUuid } from '../ids.js';
import type { Domain } from '../domain.js';
import { SYSTEM_USER } from '../domain.js';
import { OdrError, badRequest, forbidden, notFound } from '../errors.js';
import type { BlobStore } from '../files/blobStore.js';
import { copyFileNotedSync, mkdirDurableSync, syncDirSync, syncFileSync, writeFileDurableSync } from '../files/durableFs.js';
import { importFile, type OptionIds } from '../import/importFile.js';
import { isAdmin } from '../permissions.js';
import { syncOutbox } from '../../store/syncOutbox.js';
import { trashStore } from '../../store/trash.js';
import type { KeptFile } from '../../store/recordTrash.js';
import { viewsRepository } from '../../store/views.js';
import { readTemplate } from '../templates.js';
import type { DatatypeInfo } from '../schemaCache.js';
import { tx } from '../tx.js';
import type { User } from '../users.js';
import { adminsOnly } from '../rights.js';

// DELETE /dataset/{uuid} on a desktop: a person deletes by mistake, so the dataset goes to a
// trash for 30 days. The trash holds the dataset in ODR export form (template + records, which
// the importer reads back), who created each record and file, and hard links to the file
// bytes, so the content store can drop them meanwhile without losing anything.

export const TRASH_DAYS = 30;
const DAY_MS = 86_400_000;

interface TrashMeta extends TrashEntry {
  deleted_by_id: number;
  owner_id: number | null;
  /** record uuid → created_by. */
  creators: Record<string, number | null>;
  /** file uuid → [created_by, content_hash, source_href, mime] (entries written before 2026-11-24: the first two). */
  files: Record<string, KeptFile>;
  /** Each radio option's id, by field uuid then option uuid (absent in entries written before 2026-11-25). */
  option_ids?: OptionIds;
  /** Who held which role on it (absent in entries written before roles existed). */
  roles?: [number, DatasetRole][];
}

const trashRoot = (d: Domain) => path.join(d.ctx.dataDir, 'trash');

function readMeta(dir: string): TrashMeta | null {
  try {
    return JSON.parse(readFileSync(path.join(dir, 'meta.json'), 'utf8')) as TrashMeta;
  } catch {
    return null; // a half-written entry (crash during delete): ignored
  }
}

/** Moves a top-level dataset (records, files, child datatypes) to the trash. */
export function trashDataset(d: Domain, blobs: BlobStore, user: User, uuid: string): TrashEntry {
  let dt = d.datatype(uuid, 'DataType');
  // As on the real server: the metadata dataset's uuid deletes the dataset it describes.
  if (dt.metadataForUuid) dt = d.schema().datatypesByUuid.get(dt.metadataForUuid) ?? dt;
  if (dt.parentId !== null) throw badRequest('Only permitted on top-level datatypes');
  if (!isAdmin(user, dt)) throw adminsOnly('delete it');
  // Sync never sends a dataset delete to the lab's server, and the next pull would bring it back.
  if (syncOutbox(d.ctx.db).syncedDatasets().has(dt.uuid)) {
    throw new OdrError(
      409,
      `Dataset "${dt.name}" is synced with a remote server: deleting it here would not delete it there, and its unsent changes would be lost. Delete it on the server instead.`,
    );
  }
  const schema = d.schema();
  const dtIds = schema.subtreeIds(dt);
  const now = d.now();
  const id = newUuid();
  const dir = path.join(trashRoot(d), id);
  mkdirDurableSync(path.join(dir, 'blobs'));

  // Everything below runs without yielding, so no write can slip between snapshot and delete.
  // Every file is on disk before the delete commits (meta.json, written last, makes the entry).
  writeFileDurableSync(path.join(dir, 'template.json'), JSON.stringify(readTemplate(d, SYSTEM_USER, dt.uuid)));
  const rows = trashStore(d.ctx.db);
  const tops = rows.tops(dt.id);
  const fd = openSync(path.join(dir, 'records.json'), 'w');
  try {
    writeSync(fd, `{"count":${tops.length},"records":[`);
    const opts = { viewer: SYSTEM_USER, now, apiBase: 'http://localhost/api/v4' };
    for (let i = 0; i < tops.length; i += 500) {
      const chunk = d.reader
        .renderTops(tops.slice(i, i + 500), opts)
        .map((r) => JSON.stringify(r))
        .join(',');
      writeSync(fd, (i ? ',' : '') + chunk);
    }
    writeSync(fd, ']}');
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  const creators = Object.fromEntries(rows.creators(dtIds).map((r) => [r.uuid, r.created_by]));
  const fileRows = rows.files(dtIds);
  for (const h of new Set(fileRows.flatMap((f) => (f.content_hash ? [f.content_hash] : [])))) {
    const target = path.join(dir, 'blobs', h);
    if (!existsSync(blobs.pathOf(h))) continue;
    try {
      linkSync(blobs.pathOf(h), target);
    } catch {
      copyFileSync(blobs.pathOf(h), target);
      syncFileSync(target);
    }
  }
  syncDirSync(path.join(dir, 'blobs'));
  syncDirSync(dir);
  const meta: TrashMeta = {
    id,
    dataset_uuid: dt.uuid,
    name: dt.name,
    records: tops.length,
    deleted_at: now,
    deleted_by: user.email,
    expires_at: new Date(d.ctx.clock().getTime() + TRASH_DAYS * DAY_MS).toISOString(),
    deleted_by_id: user.id,
    owner_id: dt.ownerId,
    roles: d.users.rolesOn(dt.id).map((r) => [r.user_id, r.role]),
    creators,
    files: Object.fromEntries(fileRows.map((f) => [f.uuid, [f.created_by, f.content_hash, f.source_href, f.mime]])),
    option_ids: optionIdsOf(dtIds.map((i) => schema.datatypes.get(i)!)),
  };
  writeFileDurableSync(path.join(dir, 'meta.json'), JSON.stringify(meta));

  tx(d.ctx, () => {
    rows.deleteDataset(dt.id);
    d.ctx.schema.changed();
    d.log.append(now, {
      op: 'dataset.delete',
      userId: user.id,
      datasetUuid: dt.uuid,
      old: { name: dt.name, records: tops.length, trash: id },
    });
  });
  blobs.removeUnreferenced(Object.values(meta.files).flatMap(([, h]) => (h ? [h] : [])));
  return publicEntry(meta);
}

/** The ids of the options the template export leaves out (it names options by uuid only). */
function optionIdsOf(datatypes: DatatypeInfo[]): OptionIds {
  const out: OptionIds = {};
  for (const dt of datatypes)
    for (const f of dt.fields) if (f.options.length) out[f.uuid] = Object.fromEntries(f.options.map((o) => [o.uuid, o.id]));
  return out;
}

const publicEntry = (m: TrashMeta): TrashEntry => ({
  id: m.id,
  dataset_uuid: m.dataset_uuid,
  name: m.name,
  records: m.records,
  deleted_at: m.deleted_at,
  deleted_by: m.deleted_by,
  expires_at: m.expires_at,
});

/** Entries the user may see (their own deletions; super-users see all); expired ones are purged. */
export function listTrash(d: Domain, user: User): TrashEntry[] {
  purgeExpired(d);
  const root = trashRoot(d);
  if (!existsSync(root)) return [];
  return readdirSync(root)
    .map((name) => readMeta(path.join(root, name)))
    .filter((m): m is TrashMeta => m !== null && (user.isSuper || m.deleted_by_id === user.id))
    .map(publicEntry)
    .sort((a, b) => b.deleted_at.localeCompare(a.deleted_at));
}

/**
 * Forgets entries older than TRASH_DAYS, and with them every user's saved searches and column
 * layouts of those datasets: they were kept (by uuid) only so a restore finds them again. A uuid
 * that is live again, or held by a younger entry, keeps them.
 */
export function purgeExpired(d: Domain): number {
  const root = trashRoot(d);
  if (!existsSync(root)) return 0;
  const now = d.ctx.clock().toISOString();
  let purged = 0;
  const gone = new Set<string>();
  const held = new Set<string>();
  for (const name of readdirSync(root)) {
    const m = readMeta(path.join(root, name));
    if (m && m.expires_at <= now) {
      rmSync(path.join(root, name), { recursive: true, force: true });
      gone.add(m.dataset_uuid);
      purged++;
    } else if (m) held.add(m.dataset_uuid);
  }
  const forget = [...gone].filter((u) => !held.has(u) && !d.schema().datatypesByUuid.has(u));
  if (forget.length) tx(d.ctx, () => viewsRepository(d.ctx.db).forgetDatasets(forget));
  return purged;
}

/** Puts a trashed dataset back with the same uuids, creators and file bytes. */
export async function restoreTrash(d: Domain, blobs: BlobStore, user: User, id: string): Promise<TrashEntry> {
  if (!/^[a-z0-9]+$/.test(id)) throw notFound('trash entry');
  const dir = path.join(trashRoot(d), id);
  const m = readMeta(dir);
  if (!m) throw notFound('trash entry');
  if (!user.isSuper && m.deleted_by_id !== user.id) throw forbidden('Only the user who deleted a dataset and super-users may restore it.');
  if (d.schema().datatypesByUuid.has(m.dataset_uuid))
    throw new OdrError(409, `A dataset with uuid ${m.dataset_uuid} exists again; delete it first`);
  // Held until the restored rows commit: a delete of a file with equal bytes meanwhile must
  // not remove the copies put back here (BlobStore.hold).
  const hashes = readdirSync(path.join(dir, 'blobs'));
  for (const h of hashes) blobs.hold(h);
  try {
    for (const h of hashes) {
      if (existsSync(blobs.pathOf(h))) continue;
      copyFileNotedSync(blobs.dirs, path.join(dir, 'blobs', h), blobs.pathOf(h), blobs.tmpPath(`restore-${h}`));
    }
    // Each directory the copies made or entered synced once, before the rows naming them commit.
    blobs.dirs.flushSync();
    await importFile(d, user, path.join(dir, 'template.json'), { optionIds: m.option_ids });
    await importFile(d, user, path.join(dir, 'records.json'));
    tx(d.ctx, () => {
      trashStore(d.ctx.db).restoreOwnership(m.dataset_uuid, m.owner_id, m.creators, m.files, getMimeType);
      d.ctx.schema.changed();
      const restored = d.schema().datatypesByUuid.get(m.dataset_uuid)!;
      for (const [userId, role] of m.roles ?? []) if (d.users.get(userId)) d.users.setRole(userId, restored.id, role, user.id);
      // Its records keep their own dates; the dataset's "last change" is this restore.
      d.store.stampDatasetChange(restored.id, d.now());
      d.log.append(d.now(), {
        op: 'dataset.restore',
        userId: user.id,
        datasetUuid: m.dataset_uuid,
        new: { name: m.name, records: m.records },
      });
    });
  } finally {
    // Bytes nothing references when the restore failed part-way go.
    blobs.letGo(hashes);
  }
  rmSync(dir, { recursive: true, force: true });
  return publicEntry(m);
}

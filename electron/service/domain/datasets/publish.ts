import { datasetStore } from '../../store/datasets.js';
import type { RecordRow } from '../../store/rows.js';
import type { Domain } from '../domain.js';
import { badRequest, notFound } from '../errors.js';
import { isAdmin } from '../permissions.js';
import { publicDateFrom, publicDateFor } from '../records/ops.js';
import type { DatatypeInfo } from '../schemaCache.js';
import { tx } from '../tx.js';
import type { User } from '../users.js';
import { adminsOnly } from '../rights.js';

// POST /dataset/publish as the real server does it (docs/odr-server.md §5.12): the dataset's
// public date, and that of its (metadata) record and every record under it; a metadata
// dataset also publishes the dataset it describes and that one's first record. Deviation: the
// real server checks no permission at all; here the dataset's admins publish it.

export interface PublishForm {
  dataset_uuid?: string;
  record_uuid?: string;
  public_date?: string;
  user_email?: string;
}

/** Publishes; answers the uuid of the record's dataset (the real server redirects to its records). */
export function publishDataset(d: Domain, caller: User, form: PublishForm): string {
  if (!form.dataset_uuid) throw badRequest('dataset_uuid is required.');
  const user = d.users.actAs(caller, form.user_email);
  const dt = d.datatype(form.dataset_uuid, 'DataType');
  if (dt.parentId !== null) throw badRequest('Only permitted on top-level datatypes');
  if (!isAdmin(user, dt)) throw adminsOnly('publish it');
  const store = datasetStore(d.ctx.db);
  const firstOf = (t: DatatypeInfo) => {
    const uuid = store.firstTopRecordUuid(t.id);
    return uuid === undefined ? undefined : d.store.byUuid(uuid);
  };
  let rec: RecordRow | undefined;
  if (form.record_uuid) {
    rec = d.store.byUuid(form.record_uuid);
    if (rec && d.datatypeOf(rec).top.id !== dt.id) throw badRequest(`Record ${form.record_uuid} is not in dataset ${dt.uuid}`);
  } else rec = firstOf(dt);
  if (!rec) throw notFound('Datarecord');

  const parts: { dt: DatatypeInfo; rec: RecordRow | undefined }[] = [{ dt, rec }];
  const described = dt.metadataForUuid ? d.schema().datatypesByUuid.get(dt.metadataForUuid) : undefined;
  if (described) {
    if (!isAdmin(user, described)) throw adminsOnly(`publish dataset ${described.uuid}, which it describes`);
    parts.push({ dt: described, rec: firstOf(described) });
  }
  // Every date is parsed before anything is written: a bad one is a 400 that changed nothing.
  publicDateFrom(d, dt.publicDate, form.public_date);

  const changed: RecordRow[] = [];
  tx(d.ctx, () => {
    const at = d.now();
    for (const part of parts) {
      const date = publicDateFrom(d, part.dt.publicDate, form.public_date);
      if (date !== part.dt.publicDate) {
        store.setPublicDate(part.dt.id, date, at);
        d.ctx.schema.changed();
        d.log.append(at, { op: 'dataset.public', userId: user.id, datasetUuid: part.dt.uuid, old: part.dt.publicDate, new: date });
      }
      if (!part.rec) continue;
      for (const rid of store.subtreeRids(part.rec.rid)) {
        const r = d.store.byRid(rid)!;
        const recDate = publicDateFor(d, r, form.public_date);
        if (recDate === r.public_date) continue;
        d.store.setPublicDate(r.rid, recDate);
        d.logRecordChange(at, user, r, { op: 'record.public', old: r.public_date, new: recDate });
        changed.push(r);
      }
    }
    d.store.touchMany(
      changed.map((r) => r.rid),
      at,
    );
  });
  if (changed.length) d.announce(changed);
  return d.datatypeOf(rec).uuid;
}

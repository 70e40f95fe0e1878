import { formatTimestamp } from '../../../shared/dates.js';
import { findRecord } from '../../../shared/recordTree.js';
import type { OdrRecord } from '../../../shared/schemas/record.js';
import type { SaveRecord } from '../../../shared/schemas/requests.js';
import type { OutboxOp } from '../store/syncState.js';
import { transaction } from '../store/tx.js';
import type { EngineContext } from './engineContext.js';
import { RemoteError } from './remoteClient.js';

/**
 * A record made here. The request carries a unique `created` stamp and our user, which is
 * the fingerprint: after an ambiguous answer (timeout, reset, 5xx) we look for a record with
 * that stamp before ever sending the create again. False: nothing was created there.
 */
export async function pushCreate(x: EngineContext, op: Extract<OutboxOp, { op: 'create' }>): Promise<boolean> {
  const row = x.state.idRow(op.record_uuid);
  if (row?.state === 'bound') {
    x.state.done(op);
    return false;
  }
  if (!row && op.payload?.imported) {
    // An imported record may be one the server has (an export of it): then it is that one.
    const there = await x.remote.record(op.record_uuid, x.types).catch((e: unknown) => {
      if (e instanceof RemoteError && e.kind === 'gone') return null;
      throw e;
    });
    if (there) {
      // The export may be older than the server's copy, so the base keeps its files but none
      // of its field data: every field that differs on both sides becomes a conflict instead
      // of the export's values going over newer server edits. One commit: a crash halfway
      // would leave a 'creating' row no stamp search can find, and a duplicate.
      transaction(
        x.db,
        () => {
          x.state.beginCreate(op.record_uuid, new Date().toISOString());
          x.state.bind(op.record_uuid, there.record_uuid);
          x.state.setBase(filesOnly(there));
          x.state.done(op);
        },
        'immediate',
      );
      return false;
    }
  }
  if (row?.state === 'creating' && row.attempted_at) {
    const found = await findCreated(x, op.dataset_uuid, row.attempted_at);
    if (found) {
      x.state.bind(op.record_uuid, found);
      await afterCreate(x, op);
      return true;
    }
  }
  const stamp = formatTimestamp(new Date(Date.now() + Math.floor(Math.random() * 1000) * 1000));
  x.state.beginCreate(op.record_uuid, stamp);
  const local = x.d.store.byUuid(op.record_uuid);
  const rec = await x.remote.call(
    (c) => c.createRecord(op.dataset_uuid, { created: stamp, ...(local ? { public_date: local.public_date } : {}) }),
    true,
  );
  x.state.bind(op.record_uuid, rec.record_uuid);
  await afterCreate(x, op);
  return true;
}

async function afterCreate(x: EngineContext, op: OutboxOp): Promise<void> {
  // The server selects default options on create just as we did: the base starts from its copy.
  x.state.setBase(await x.remote.record(x.state.remoteOf(op.record_uuid)!, x.types));
  x.state.done(op);
}

async function findCreated(x: EngineContext, dataset: string, stamp: string): Promise<string | null> {
  const since = Date.parse(`${stamp.replace(' ', 'T')}Z`) - 10 * 60_000;
  for (const id of await x.remote.modifiedIds(dataset, since)) {
    if (x.state.isMapped(id) || x.state.baseJson(id) !== undefined) continue;
    const r = await x.remote.record(id, x.types).catch(() => null);
    if (r && r._record_metadata._create_date === stamp && r._record_metadata._create_auth) return id;
  }
  return null;
}

/** A child record: saved as full state (every existing child listed) with the new one added. */
export async function pushCreateChild(x: EngineContext, op: Extract<OutboxOp, { op: 'create_child' }>): Promise<void> {
  const info = op.payload;
  const topR = x.state.remoteOf(op.top_record_uuid);
  const parentR = x.state.remoteOf(info.parent_uuid);
  if (!topR || !parentR) throw new RemoteError('transient', 'parent not on the server yet');
  const fresh = await x.remote.record(topR, x.types);
  const kidsOf = (rec: OdrRecord) =>
    (findRecord(rec, parentR)?.records ?? []).filter((c) => c.database_uuid === info.database_uuid).map((c) => c.record_uuid);
  if (x.state.idRow(op.record_uuid)?.state === 'creating' && info.before) {
    const added = kidsOf(fresh).filter((u) => !info.before!.includes(u) && !x.state.isMapped(u));
    if (added.length) {
      x.state.bind(op.record_uuid, added[0]!);
      x.state.done(op);
      return;
    }
  }
  const before = kidsOf(fresh);
  x.state.setChildInfo(op.id, { ...info, before });
  x.state.beginCreate(op.record_uuid, new Date().toISOString());
  await x.remote.call((c) => c.save(fullStateWithNewChild(fresh, parentR, info.database_uuid)), true);
  const after = await x.remote.record(topR, x.types);
  const added = kidsOf(after).filter((u) => !before.includes(u));
  if (!added.length) throw new RemoteError('permanent', 'the server accepted the child record but does not list it');
  x.state.bind(op.record_uuid, added[0]!);
  x.state.setBase(after);
  x.state.done(op);
}

/** The save body real servers need: every existing descendant listed (fact 1), plus the new child. */
export function fullStateWithNewChild(top: OdrRecord, parent: string, database: string): SaveRecord {
  const walk = (r: OdrRecord): SaveRecord => {
    const kids: SaveRecord[] = (r.records ?? []).map(walk);
    if (r.record_uuid === parent) kids.push({ record_uuid: '', database_uuid: database, fields: [] });
    return { record_uuid: r.record_uuid, database_uuid: r.database_uuid, records: kids };
  };
  return walk(top);
}

/** A server copy with its files and structure but no field data: a base that agrees with nothing. */
const filesOnly = (r: OdrRecord): OdrRecord => ({
  ...r,
  fields: r.fields.filter((f) => f.files),
  records: (r.records ?? []).map(filesOnly),
});

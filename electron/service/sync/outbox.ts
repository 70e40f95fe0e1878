import type { Ctx } from '../domain/context.js';
import type { OpName } from './state.js';

const CURSOR = 'sync_outbox_seq';

interface ChangeRow {
  seq: number;
  op: string;
  dataset_uuid: string | null;
  record_uuid: string | null;
  top_record_uuid: string | null;
  field_uuid: string | null;
  item_uuid: string | null;
  new: string | null;
}

/**
 * Turns the change log's local edits into intent-level operations (docs/sync.md §2), in the same
 * transaction that moves the cursor, so nothing is lost or taken twice across restarts.
 * Coalescing: the last value of a field wins; an option's last state wins; create then delete
 * leaves nothing; delete drops the record's other pending operations.
 */
export function collectOutbox(ctx: Ctx, datasets: Set<string>): number {
  const db = ctx.db;
  const cursor = Number(db.prepare('SELECT value FROM meta WHERE key = ?').pluck().get(CURSOR) ?? 0);
  const rows = db
    .prepare(
      `SELECT seq, op, dataset_uuid, record_uuid, top_record_uuid, field_uuid, item_uuid, new FROM change_log
                           WHERE seq > ? AND origin = 'local' ORDER BY seq LIMIT 20000`,
    )
    .all(cursor) as ChangeRow[];
  if (!rows.length) return 0;
  const at = new Date().toISOString();
  const upsert =
    db.prepare(`INSERT INTO sync_outbox (dataset_uuid, record_uuid, top_record_uuid, op, field_uuid, item_uuid, payload, created)
                             VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                             ON CONFLICT (record_uuid, op, field_uuid, item_uuid) WHERE state = 'pending'
                             DO UPDATE SET payload = excluded.payload, attempts = 0, last_error = NULL`);
  const pendingCreate = db
    .prepare(`SELECT id FROM sync_outbox WHERE record_uuid = ? AND op IN ('create', 'create_child') AND state = 'pending'`)
    .pluck();
  const dropRecord = db.prepare(`DELETE FROM sync_outbox WHERE (record_uuid = ? OR top_record_uuid = ?) AND state = 'pending'`);
  let added = 0;
  db.transaction(() => {
    for (const r of rows) {
      if (!r.dataset_uuid || !r.record_uuid || !datasets.has(r.dataset_uuid)) continue;
      const top = r.top_record_uuid ?? r.record_uuid;
      const add = (op: OpName, field = '', item = '', payload: unknown = null) => {
        upsert.run(r.dataset_uuid, r.record_uuid, top, op, field, item, payload === null ? null : JSON.stringify(payload), at);
        added++;
      };
      switch (r.op) {
        case 'record.create': {
          const info = r.new ? (JSON.parse(r.new) as { parent_uuid?: string; database_uuid?: string }) : {};
          if (info.parent_uuid) add('create_child', '', '', { parent_uuid: info.parent_uuid, database_uuid: info.database_uuid });
          else add('create');
          break;
        }
        case 'value.set':
          add('value', r.field_uuid ?? '', '', { value: r.new === null ? null : JSON.parse(r.new) });
          break;
        case 'option.select':
        case 'tag.select':
          add('option', r.field_uuid ?? '', r.item_uuid ?? '', { on: true });
          break;
        case 'option.unselect':
        case 'tag.unselect':
          add('option', r.field_uuid ?? '', r.item_uuid ?? '', { on: false });
          break;
        case 'record.public':
          add('public', '', '', { public_date: r.new ? JSON.parse(r.new) : null });
          break;
        case 'record.delete': {
          const created = pendingCreate.get(r.record_uuid);
          dropRecord.run(r.record_uuid, r.record_uuid);
          if (!created) add('delete');
          break;
        }
        default:
          break; // imports, file changes and metadata edits are not pushed (yet)
      }
    }
    db.prepare('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value').run(
      CURSOR,
      String(rows.at(-1)!.seq),
    );
  })();
  return added;
}

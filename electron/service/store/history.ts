import { HISTORY_OPS } from '../../../shared/schemas/history.js';
import type { Db } from './db.js';
import { perConnection } from './prepared.js';

/** One change-log row of a record tree, with who made it. */
export interface HistoryRow {
  seq: number;
  at: string;
  op: (typeof HISTORY_OPS)[number];
  record_uuid: string;
  field_uuid: string | null;
  item_uuid: string | null;
  /** JSON text as the change log stores it. */
  old: string | null;
  new: string | null;
  origin: string;
  email: string | null;
  first_name: string | null;
  last_name: string | null;
}

export interface HistoryPage {
  top: string;
  field?: string;
  /** Only rows older than this sequence number. */
  before: number;
  limit: number;
}

const OPS = HISTORY_OPS.map((o) => `'${o}'`).join(', ');
const COLUMNS = `c.seq, c.at, c.op, c.record_uuid, c.field_uuid, c.item_uuid, c.old, c.new, c.origin,
  u.email, u.first_name, u.last_name`;

/**
 * The change log read back as history: one indexed range read per request (change_log_by_top),
 * the user joined in, newest first. Record deletes and imports are left out: they carry whole
 * record snapshots, not a field's change.
 */
export const historyStore = perConnection((db: Db) => {
  const s = {
    tree: db.prepare<[string, number, number], HistoryRow>(
      `SELECT ${COLUMNS} FROM change_log c LEFT JOIN users u ON u.id = c.user_id
       WHERE c.top_record_uuid = ? AND c.seq < ? AND c.op IN (${OPS})
       ORDER BY c.seq DESC LIMIT ?`,
    ),
    treeField: db.prepare<[string, number, string, number], HistoryRow>(
      `SELECT ${COLUMNS} FROM change_log c LEFT JOIN users u ON u.id = c.user_id
       WHERE c.top_record_uuid = ? AND c.seq < ? AND c.field_uuid = ? AND c.op IN (${OPS})
       ORDER BY c.seq DESC LIMIT ?`,
    ),
  };
  return {
    /** Up to `limit` rows of the tree under `top` (its field `field` only, when given). */
    page: (p: HistoryPage): HistoryRow[] =>
      p.field === undefined ? s.tree.all(p.top, p.before, p.limit) : s.treeField.all(p.top, p.before, p.field, p.limit),
  };
});

import type { Statement } from 'better-sqlite3';
import { HISTORY_OPS } from '../../../shared/schemas/history.js';
import type { Db } from './db.js';

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
export class HistoryRepository {
  private readonly tree: Statement<[string, number, number], HistoryRow>;
  private readonly treeField: Statement<[string, number, string, number], HistoryRow>;

  constructor(db: Db) {
    this.tree = db.prepare(
      `SELECT ${COLUMNS} FROM change_log c LEFT JOIN users u ON u.id = c.user_id
       WHERE c.top_record_uuid = ? AND c.seq < ? AND c.op IN (${OPS})
       ORDER BY c.seq DESC LIMIT ?`,
    );
    this.treeField = db.prepare(
      `SELECT ${COLUMNS} FROM change_log c LEFT JOIN users u ON u.id = c.user_id
       WHERE c.top_record_uuid = ? AND c.seq < ? AND c.field_uuid = ? AND c.op IN (${OPS})
       ORDER BY c.seq DESC LIMIT ?`,
    );
  }

  /** Up to `limit` rows of the tree under `top` (its field `field` only, when given). */
  page(p: HistoryPage): HistoryRow[] {
    return p.field === undefined ? this.tree.all(p.top, p.before, p.limit) : this.treeField.all(p.top, p.before, p.field, p.limit);
  }
}

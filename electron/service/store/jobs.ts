import type { Db } from './db.js';
import { perConnection } from './prepared.js';

/** A row of `jobs`: tracked jobs (ODR's) and the service's own long operations. */
export interface JobRow {
  id: number;
  user_id: number;
  job_type: string;
  target_entity: string;
  total: number;
  current: number;
  additional_data: string;
  started: string;
  completed: string | null;
  viewed: string | null;
  failed: string | null;
  error: string | null;
  cancelled: string | null;
  updated: string;
}

export interface NewJobRow {
  userId: number;
  jobType: string;
  targetEntity: string;
  total: number;
  additionalData: string;
  at: string;
}

export interface JobRowUpdate {
  id: number;
  jobType: string;
  targetEntity: string;
  current: number;
  total: number;
  additionalData: string;
  /** Set when not null; a completed job keeps its time. */
  completed: string | null;
  viewed: string | null;
  at: string;
}

/**
 * A job row. Its target's name is not read here: the domain names a dataset only to a user who
 * may view it (the schema cache holds both the name and the permission facts).
 */
const JOB_ROW = 'SELECT jobs.* FROM jobs';

/** The `jobs` and `job_units` tables. */
export const jobStore = perConnection((db: Db) => {
  const s = {
    live: db.prepare<[number], JobRow>(`${JOB_ROW} WHERE jobs.id = ? AND jobs.cancelled IS NULL`),
    any: db.prepare<[number], JobRow>(`${JOB_ROW} WHERE jobs.id = ?`),
    insert: db.prepare<[number, string, string, number, string, string, string]>(
      'INSERT INTO jobs (user_id, job_type, target_entity, total, additional_data, started, updated) VALUES (?, ?, ?, ?, ?, ?, ?)',
    ),
    update: db.prepare<[string, string, number, number, string, string | null, string | null, string, number]>(
      `UPDATE jobs SET job_type = ?, target_entity = ?, current = ?, total = ?, additional_data = ?,
     completed = COALESCE(?, completed), viewed = ?, updated = ? WHERE id = ?`,
    ),
    insertUnit: db.prepare<[number, string, number, number]>(
      'INSERT INTO job_units (job_id, random_key, job_order, line_count) VALUES (?, ?, ?, ?)',
    ),
    touch: db.prepare<[string, number]>('UPDATE jobs SET updated = ? WHERE id = ?'),
    unitCount: db.prepare<[number], number>('SELECT COUNT(*) FROM job_units WHERE job_id = ?').pluck(),
    setCurrent: db.prepare<[number, string, number]>('UPDATE jobs SET current = ?, updated = ? WHERE id = ?'),
    complete: db.prepare<[number, number, string, string, number]>(
      'UPDATE jobs SET current = ?, completed = CASE WHEN ? = total THEN ? ELSE completed END, updated = ? WHERE id = ?',
    ),
    cancel: db.prepare<[string, string, number]>('UPDATE jobs SET cancelled = ?, updated = ? WHERE id = ?'),
    isCancelled: db.prepare<[number], number>('SELECT cancelled IS NOT NULL FROM jobs WHERE id = ?').pluck(),
    running: db.prepare<[number, string], JobRow>(
      `${JOB_ROW} WHERE jobs.user_id = ? AND jobs.completed IS NULL AND jobs.failed IS NULL AND jobs.cancelled IS NULL
     AND jobs.job_type IN (SELECT value FROM json_each(?)) ORDER BY jobs.id`,
    ),
    completed: db.prepare<[number, string, number], JobRow>(
      `${JOB_ROW} WHERE jobs.user_id = ? AND jobs.completed IS NOT NULL AND jobs.cancelled IS NULL
     AND jobs.job_type IN (SELECT value FROM json_each(?)) ORDER BY jobs.completed DESC, jobs.id DESC LIMIT ?`,
    ),
    recent: db.prepare<[number, number], JobRow>(
      `${JOB_ROW} WHERE jobs.user_id = ? AND jobs.cancelled IS NULL
     ORDER BY (jobs.completed IS NULL AND jobs.failed IS NULL) DESC, jobs.id DESC LIMIT ?`,
    ),
    progress: db.prepare<[number, number | null, string, number]>(
      'UPDATE jobs SET current = ?, total = COALESCE(?, total), updated = ? WHERE id = ? AND completed IS NULL',
    ),
    finish: db.prepare<[string, string, string | null, number]>(
      `UPDATE jobs SET current = total, completed = ?, updated = ?,
     additional_data = COALESCE(?, additional_data) WHERE id = ? AND cancelled IS NULL`,
    ),
    fail: db.prepare<[string, string, string, number]>(
      'UPDATE jobs SET failed = ?, error = ?, updated = ? WHERE id = ? AND completed IS NULL AND cancelled IS NULL',
    ),
  };
  return {
    /** A job not cancelled. */
    live: (id: number) => s.live.get(id),
    /** A job in any state (after a write, to answer with its new state). */
    get: (id: number) => s.any.get(id),
    insert: (j: NewJobRow) =>
      Number(s.insert.run(j.userId, j.jobType, j.targetEntity, j.total, j.additionalData, j.at, j.at).lastInsertRowid),
    update: (u: JobRowUpdate) =>
      s.update.run(u.jobType, u.targetEntity, u.current, u.total, u.additionalData, u.completed, u.viewed, u.at, u.id),
    addUnit: (jobId: number, randomKey: string, jobOrder: number, lineCount: number, at: string) => {
      const id = Number(s.insertUnit.run(jobId, randomKey, jobOrder, lineCount).lastInsertRowid);
      s.touch.run(at, jobId);
      return id;
    },
    unitCount: (id: number) => s.unitCount.get(id) ?? 0,
    setCurrent: (id: number, current: number, at: string) => s.setCurrent.run(current, at, id),
    /** current := `current`; completed when it reaches total. */
    complete: (id: number, current: number, at: string) => s.complete.run(current, current, at, at, id),
    cancel: (id: number, at: string) => s.cancel.run(at, at, id),
    isCancelled: (id: number) => s.isCancelled.get(id) === 1,
    running: (userId: number, types: string[]) => s.running.all(userId, JSON.stringify(types)),
    completed: (userId: number, types: string[], count: number) => s.completed.all(userId, JSON.stringify(types), count),
    recent: (userId: number, limit: number) => s.recent.all(userId, limit),
    progress: (id: number, current: number, total: number | null, at: string) => s.progress.run(current, total, at, id),
    finish: (id: number, additionalData: string | null, at: string) => s.finish.run(at, at, additionalData, id),
    fail: (id: number, error: string, at: string) => s.fail.run(at, error, at, id),
  };
});

import type { JobResponse, JobState, PhpDate, TrackedJob } from '../../../shared/schemas/job.js';
import { OdrError, notFound } from './errors.js';
import { nowStamp, type Ctx } from './context.js';
import { canViewDatatype } from './permissions.js';
import type { User } from './users.js';
import { jobStore, type JobRow } from '../store/jobs.js';

// Tracked jobs as the real server keeps them (docs/odr-server.md §5.18, §6), plus the service's own
// long operations (import, thumbnails, sync), which report progress through the same rows.
//
// States: running (completed null) → complete (completed set: GET /job/complete when the units
// reach total, PUT /job with a non-null `completed`, or a service job finishing);
// running → cancelled (GET /job/cancel: soft-deleted, gone from every lookup);
// running → failed (service jobs only: a local extension, the real server never sets it).
// Complete, cancelled and failed are final.

/** "2025-04-02 08:00:00.000000" from a Date (PHP DateTime in ODR's JSON). */
function micro(d: Date): string {
  return `${d.toISOString().slice(0, 19).replace('T', ' ')}.${String(d.getUTCMilliseconds() * 1000).padStart(6, '0')}`;
}
const php = (s: string | null): PhpDate | null => (s === null ? null : { date: s, timezone_type: 3, timezone: 'UTC' });

function stateOf(r: JobRow): JobState {
  if (r.cancelled) return 'cancelled';
  if (r.completed) return 'complete';
  if (r.failed) return 'failed';
  return 'running';
}

/** `targetName`: target_entity as this reader may see it (see Jobs.targetName). */
export function trackedJob(r: JobRow, targetName: string): TrackedJob {
  let data: unknown;
  try {
    data = JSON.parse(r.additional_data);
  } catch {
    data = r.additional_data;
  }
  return {
    id: r.id,
    job_type: r.job_type,
    total: r.total,
    current: r.current,
    completed: php(r.completed),
    started: php(r.started)!,
    viewed: php(r.viewed),
    additional_data: data,
    target_entity: r.target_entity,
    target_name: targetName,
    state: stateOf(r),
    error: r.error,
  };
}

export interface JobFields {
  job_type: string;
  target_entity: string;
  total: number;
  additional_data: unknown;
}

export interface JobUpdate extends JobFields {
  id: number;
  current: number;
  completed?: unknown;
  viewed?: unknown;
}

export class Jobs {
  private readonly rows: ReturnType<typeof jobStore>;

  /** `userById` resolves a job's owner, whose view names the target in the job's events. */
  constructor(
    private readonly ctx: Ctx,
    private readonly userById: (id: number) => User | undefined,
  ) {
    this.rows = jobStore(ctx.db);
  }

  /**
   * Service jobs on a dataset (thumbnails, downloads) carry its uuid; people read its name. Any
   * caller may set target_entity (POST/PUT /job), so the name is given only to a reader who may
   * view that dataset: anyone else gets the uuid back as it was sent.
   */
  private targetName(r: JobRow, reader: User | undefined): string {
    const dt = this.ctx.schema.get().datatypesByUuid.get(r.target_entity);
    return dt && reader && canViewDatatype(reader, dt, nowStamp(this.ctx)) ? dt.name : r.target_entity;
  }

  /** The job as `reader` may see it. */
  private as(reader: User | undefined, r: JobRow): TrackedJob {
    return trackedJob(r, this.targetName(r, reader));
  }

  private now(): string {
    return micro(this.ctx.clock());
  }

  private row(id: number): JobRow | undefined {
    return this.rows.live(id);
  }

  /** Jobs a user may read: their own (reference: status/complete/cancel/lists are own-only). */
  private own(user: User, id: number): JobRow {
    const r = this.row(id);
    if (!r || r.user_id !== user.id) throw notFound('Tracked job');
    return r;
  }

  /** Tells the job's owner (events go to its owner only); answers as `reader` may see it. */
  private changed(r: JobRow, reader?: User): TrackedJob {
    const owner = this.userById(r.user_id);
    const j = this.as(owner, r);
    this.ctx.events.emit('job', { id: r.id, userId: r.user_id, job: j });
    return reader === undefined || reader.id === r.user_id ? j : this.as(reader, r);
  }

  private reload(id: number): JobRow {
    const r = this.rows.get(id);
    if (!r) throw notFound('Tracked job');
    return r;
  }

  create(user: User, f: JobFields): TrackedJob {
    const at = this.now();
    const id = this.rows.insert({
      userId: user.id,
      jobType: f.job_type,
      targetEntity: f.target_entity,
      total: f.total,
      additionalData: JSON.stringify(f.additional_data ?? null),
      at,
    });
    return this.changed(this.reload(id), user);
  }

  /** PUT /job: any job id (no ownership check, as on the real server); final jobs stay final. */
  update(reader: User, u: JobUpdate): TrackedJob {
    const r = this.row(u.id);
    if (!r) throw notFound('Tracked job');
    if (r.completed || r.failed) throw new OdrError(409, `Job ${u.id} is already ${stateOf(r)}; it can no longer change`);
    const at = this.now();
    const completed = u.completed !== undefined && u.completed !== null ? at : null;
    // `viewed` non-null is a 500 on the real server; here it marks the job seen.
    const viewed = u.viewed !== undefined && u.viewed !== null ? at : r.viewed;
    this.rows.update({
      id: u.id,
      jobType: u.job_type,
      targetEntity: u.target_entity,
      current: u.current,
      total: u.total,
      additionalData: JSON.stringify(u.additional_data),
      completed,
      viewed,
      at,
    });
    return this.changed(this.reload(u.id), reader);
  }

  /** POST /worker/job: one finished unit of work for any job id. */
  workerUnit(unit: { tracked_job_id: number; random_key: string; job_order: number; line_count: number }) {
    const r = this.row(unit.tracked_job_id);
    if (!r) throw notFound('Tracked job');
    if (r.completed || r.failed) throw new OdrError(409, `Job ${r.id} is already ${stateOf(r)}; it takes no more work units`);
    const id = this.rows.addUnit(r.id, unit.random_key, unit.job_order, unit.line_count, this.now());
    this.changed(this.reload(r.id));
    return { id, job_order: unit.job_order, random_key: unit.random_key, line_count: unit.line_count };
  }

  private units(id: number): number {
    return this.rows.unitCount(id);
  }

  /** GET /job/status/{id}/{full}: full > 0 recounts `current` from the worker units (and saves it). */
  status(user: User, id: number, full: number): TrackedJob {
    const r = this.own(user, id);
    if (full > 0 && !r.completed && !r.failed) {
      const n = this.units(id);
      if (n > 0 && n !== r.current) {
        this.rows.setCurrent(id, n, this.now());
        return this.changed(this.reload(id), user);
      }
    }
    return this.as(user, r);
  }

  /** GET /job/complete/{id}: current := units padded up to total; complete when current == total. */
  complete(user: User, id: number): TrackedJob {
    const r = this.own(user, id);
    if (r.completed || r.failed) return this.as(user, r);
    const current = Math.max(this.units(id), r.current, r.total);
    this.rows.complete(id, current, this.now());
    return this.changed(this.reload(id), user);
  }

  /** GET /job/cancel/{id}: always `{deleted: true}`, as on the real server. */
  cancel(user: User, id: number): { deleted: true } {
    const r = this.row(id);
    if (r && r.user_id === user.id && !r.completed && !r.failed) {
      this.rows.cancel(id, this.now());
      this.changed(this.reload(id));
    }
    return { deleted: true };
  }

  isCancelled(id: number): boolean {
    return this.rows.isCancelled(id);
  }

  /** GET /jobs/{a|b}: the user's running jobs of those types. */
  running(user: User, types: string[]): TrackedJob[] {
    return this.rows.running(user.id, types).map((r) => this.as(user, r));
  }

  /** GET /jobs/completed/{type}/{count}: newest first. */
  completed(user: User, types: string[], count: number): TrackedJob[] {
    return this.rows.completed(user.id, types, count).map((r) => this.as(user, r));
  }

  /** Recent jobs of every type (the UI's jobs panel): running first, then the newest. */
  recent(user: User, limit: number): TrackedJob[] {
    return this.rows.recent(user.id, limit).map((r) => this.as(user, r));
  }

  get(user: User, id: number): TrackedJob {
    return this.as(user, this.own(user, id));
  }

  // The service's own long operations.

  /** Progress from a service job; throttled by the caller. Returns false once the job was cancelled. */
  progress(id: number, current: number, total?: number): boolean {
    const r = this.row(id);
    if (!r) return false;
    this.rows.progress(id, current, total ?? null, this.now());
    this.changed(this.reload(id));
    return true;
  }

  finish(id: number, additionalData?: unknown): TrackedJob {
    this.rows.finish(id, additionalData === undefined ? null : JSON.stringify(additionalData), this.now());
    return this.changed(this.reload(id));
  }

  fail(id: number, error: string): TrackedJob {
    this.rows.fail(id, error, this.now());
    return this.changed(this.reload(id));
  }
}

/** Job answers carry the TrackedJob keys and the seed's record-shaped keys (they do not collide). */
export function jobResponse(j: TrackedJob): JobResponse {
  const created = j.started.date.slice(0, 19);
  const updated = (j.completed ?? j.started).date.slice(0, 19);
  return {
    ...j,
    database_uuid: '',
    internal_id: j.id,
    record_name: j.id,
    record_uuid: '',
    template_uuid: '',
    metadata_for_uuid: '',
    _record_metadata: { _create_date: created, _updated_date: updated, _create_auth: '', _public_date: created },
    fields: [],
    records: [],
  };
}

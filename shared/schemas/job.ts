import { z } from 'zod';
import { Int } from './common.js';

/** PHP DateTime as ODR serialises it in job JSON. */
export const PhpDate = z.object({
  date: z.string().regex(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d{6}$/, 'must be YYYY-MM-DD HH:MM:SS.ffffff'),
  timezone_type: Int,
  timezone: z.string(),
});
export type PhpDate = z.infer<typeof PhpDate>;

/**
 * The kinds of job the service starts, with the label the Jobs panel shows: a new kind is a
 * row here, so none appears raw. Jobs clients create through POST /job keep their own type.
 */
export const JOB_KIND_LABELS = {
  import: 'Import',
  import_csv: 'CSV import',
  export: 'Export',
  rebuild_thumbnails: 'Thumbnails',
  sample: 'Sample data',
  sync: 'Sync',
  sync_files: 'File download',
} as const;
export type JobKind = keyof typeof JOB_KIND_LABELS;
export const jobLabel = (type: string): string => (JOB_KIND_LABELS as Record<string, string>)[type] ?? type;

export const JOB_STATES = ['running', 'complete', 'cancelled', 'failed'] as const;
export type JobState = (typeof JOB_STATES)[number];
/** A job's state as the Jobs panel says it (the states themselves are API values). */
export const JOB_STATE_LABELS = {
  running: 'Running',
  complete: 'Finished',
  cancelled: 'Cancelled',
  failed: 'Failed',
} as const satisfies Record<JobState, string>;

export const TrackedJob = z.object({
  id: Int,
  job_type: z.string(),
  total: Int,
  current: Int,
  completed: PhpDate.nullable(),
  started: PhpDate,
  viewed: PhpDate.nullable(),
  additional_data: z.unknown(),
  target_entity: z.string(),
  /**
   * Local extension: target_entity as a person reads it — a dataset's current name where the
   * target is its uuid (thumbnails, file downloads); otherwise target_entity itself.
   */
  target_name: z.string(),
  /** Local extension: the job's state (the real server only implies it from `completed`). */
  state: z.enum(JOB_STATES),
  /** Local extension: why a service-run job failed. */
  error: z.string().nullable(),
});
export type TrackedJob = z.infer<typeof TrackedJob>;

/**
 * Job responses. The seed calls them "Record-shaped objects with `_updated_date`" while real
 * servers answer the TrackedJob object; ours carries both sets of keys (they do not collide).
 */
export const JobResponse = TrackedJob.extend({
  database_uuid: z.string(),
  internal_id: Int,
  record_name: Int,
  record_uuid: z.string(),
  template_uuid: z.string(),
  metadata_for_uuid: z.string(),
  _record_metadata: z.object({
    _create_date: z.string(),
    _updated_date: z.string(),
    _create_auth: z.string(),
    _public_date: z.string(),
  }),
  fields: z.array(z.unknown()),
  records: z.array(z.unknown()),
});
export type JobResponse = z.infer<typeof JobResponse>;

const Short = (field: string) => z.string({ error: `${field} must be a string` }).max(64, `${field} is longer than 64 characters`);
const Count = (field: string) =>
  z
    .number({ error: `${field} must be an integer` })
    .int(`${field} must be an integer`)
    .min(0, `${field} must not be negative`);

export const JobCreateBody = z.object({
  user_email: z.string().optional(),
  job: z.object({
    job_type: Short('job.job_type').min(1, 'job.job_type must not be empty'),
    target_entity: Short('job.target_entity'),
    total: Count('job.total'),
    additional_data: z.unknown(),
    id: z.unknown().optional(),
  }),
});

export const JobUpdateBody = z.object({
  user_email: z.string({ error: 'user_email is required' }),
  job: z.object({
    id: z.number({ error: 'job.id must be an integer' }).int('job.id must be an integer'),
    job_type: Short('job.job_type'),
    total: Count('job.total'),
    current: Count('job.current'),
    started: PhpDate,
    additional_data: z.string({ error: 'job.additional_data must be a string' }),
    target_entity: Short('job.target_entity'),
    completed: z.unknown().optional(),
    viewed: z.unknown().optional(),
  }),
});

export const WorkerJobBody = z.object({
  user_email: z.string({ error: 'user_email is required' }),
  job: z.object({
    tracked_job_id: z.number({ error: 'job.tracked_job_id must be an integer' }).int('job.tracked_job_id must be an integer'),
    random_key: z.string({ error: 'job.random_key must be a string' }).min(1, 'job.random_key must not be empty'),
    job_order: z.number({ error: 'job.job_order must be an integer' }).int('job.job_order must be an integer'),
    line_count: z.number({ error: 'job.line_count must be an integer' }).int('job.line_count must be an integer'),
  }),
});

export const WorkerUnit = z.object({ id: Int, job_order: Int, random_key: z.string(), line_count: Int });
/** GET /jobs/{types} and GET /local/jobs. */
export const JobList = z.object({ jobs: z.array(TrackedJob) });
export type JobList = z.infer<typeof JobList>;

/**
 * What a finished job that makes datasets leaves in `additional_data`, as far as the first-run
 * screen reads it to open what was made: the sample's `dataset`, an ODR import's `datasets`
 * (a template's top-level dataset first, then its child datasets).
 */
export const MadeDatasets = z.union([
  z.object({ dataset: z.string() }).transform((r) => [r.dataset]),
  z.object({ datasets: z.array(z.object({ uuid: z.string() })) }).transform((r) => r.datasets.map((x) => x.uuid)),
]);

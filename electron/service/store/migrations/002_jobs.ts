// Tracked jobs (docs/odr-server.md §5.18, §6) and their worker units. A cancelled job is soft-deleted as
// on the real server: it stays for the record but no lookup finds it.
export default `
CREATE TABLE jobs (
  id INTEGER PRIMARY KEY,
  user_id INTEGER NOT NULL REFERENCES users(id),
  job_type TEXT NOT NULL,
  target_entity TEXT NOT NULL,
  total INTEGER NOT NULL,
  current INTEGER NOT NULL DEFAULT 0,
  additional_data TEXT NOT NULL DEFAULT 'null',
  started TEXT NOT NULL,
  completed TEXT,
  viewed TEXT,
  failed TEXT,
  error TEXT,
  cancelled TEXT,
  updated TEXT NOT NULL
);
CREATE INDEX jobs_running ON jobs(user_id, job_type) WHERE completed IS NULL AND cancelled IS NULL;

CREATE TABLE job_units (
  id INTEGER PRIMARY KEY,
  job_id INTEGER NOT NULL REFERENCES jobs(id),
  random_key TEXT NOT NULL,
  job_order INTEGER NOT NULL,
  line_count INTEGER NOT NULL
);
CREATE INDEX job_units_by_job ON job_units(job_id);
`;

import type { TrackedJob } from '../../../shared/schemas/job';
import { ExportResult } from '../../../shared/schemas/view';
import { downloadUrl } from './api';

/** The download link of a finished export job, or null. */
export function exportDownload(j: TrackedJob): { href: string; name: string } | null {
  if (j.job_type !== 'export' || j.state !== 'complete') return null;
  const r = ExportResult.safeParse(j.additional_data);
  return r.success ? { href: downloadUrl(r.data.download), name: r.data.file } : null;
}

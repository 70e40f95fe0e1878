import { useRef, type ReactNode } from 'react';
import type { TrackedJob } from '../../../shared/schemas/job';
import { errorText, startImport } from '../lib/api';
import { toast } from '../ui/toasts';

/**
 * A button that picks an ODR export (.json) and starts its import as a job; a refusal shows as a
 * toast. `onStarted` runs once the service has accepted the job, with the job.
 */
export function ImportOdrButton({
  className,
  onStarted,
  children,
}: {
  className?: string;
  onStarted?: (job: TrackedJob) => void;
  children: ReactNode;
}) {
  const file = useRef<HTMLInputElement>(null);
  return (
    <>
      <button type="button" className={className} onClick={() => file.current?.click()}>
        {children}
      </button>
      <input
        ref={file}
        type="file"
        accept=".json,application/json"
        hidden
        aria-label="ODR export to import"
        onChange={(e) => {
          const f = e.target.files?.[0];
          e.target.value = '';
          if (f)
            startImport(f).then(
              (job) => onStarted?.(job),
              (err: unknown) => toast({ kind: 'error', text: `Import not started: ${errorText(err)}` }),
            );
        }}
      />
    </>
  );
}

import { useSaveState } from '../lib/edits';

const LABEL = { saving: 'Saving…', saved: 'Saved', error: 'Not saved', draft: 'Not saved' } as const;

/** "Saving…", "Saved" or "Not saved" (typed but not sent, or refused), next to its field. */
export function SaveBadge({ record, field }: { record: string; field: string }) {
  const s = useSaveState(record, field);
  if (!s) return null;
  return (
    <span
      className={`save save-${s.state}`}
      role="status"
      aria-label={`Save state: ${s.state === 'draft' ? 'not saved' : s.state}`}
      data-state={s.state}
    >
      {LABEL[s.state]}
    </span>
  );
}

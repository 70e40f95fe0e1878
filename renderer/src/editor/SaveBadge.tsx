import { useSaveState } from '../lib/edits';

/** "Saving…", "Saved" or the refusal, next to the field it belongs to. */
export function SaveBadge({ record, field }: { record: string; field: string }) {
  const s = useSaveState(record, field);
  if (!s) return null;
  return (
    <span className={`save save-${s.state}`} role="status" aria-label={`Save state: ${s.state}`} data-state={s.state}>
      {s.state === 'saving' ? 'Saving…' : s.state === 'saved' ? 'Saved' : 'Not saved'}
    </span>
  );
}

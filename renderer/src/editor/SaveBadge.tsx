import { useSaveState, type SaveState } from '../lib/edits';

const LABEL = { saving: 'Saving…', saved: 'Saved', error: 'Not saved', draft: 'Not saved' } as const;

/** What a screen reader (and a hover) hears: which field, what failed, what to do about it. */
export function saveStateText(field: string, s: SaveState): string {
  switch (s.state) {
    case 'saving':
      return `${field}: saving…`;
    case 'saved':
      return `${field}: saved`;
    case 'error':
      // Refused by the service (the saved value is back) or not valid as typed (the text stays).
      return `${field} not saved${s.message ? `: ${s.message}` : ''}. Change the value and try again; Escape puts back the saved one.`;
    case 'draft':
      return `${field} not saved yet${s.message ? `: ${s.message}` : ''}. Enter saves it, Escape goes back to the saved value.`;
  }
}

/** "Saving…", "Saved" or "Not saved" (typed but not sent, or refused), next to its field. */
export function SaveBadge({ record, field, name }: { record: string; field: string; name: string }) {
  const s = useSaveState(record, field);
  if (!s) return null;
  const text = saveStateText(name, s);
  return (
    <span className={`save save-${s.state}`} role="status" aria-label={text} title={text} data-state={s.state}>
      {LABEL[s.state]}
    </span>
  );
}

import { useRef, useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import type { RecordTrashEntry } from '../../../shared/schemas/local';
import { errorText, recordTrash, restoreRecord } from '../lib/api';
import { restoredElsewhere } from '../lib/edits';
import { keys } from '../lib/queries';
import { SteadyButton } from '../ui/SteadyButton';
import { Time } from '../ui/Time';
import { toast } from '../ui/toasts';

/** Its dataset; a child record's also names the parent it goes back under. */
const where = (e: RecordTrashEntry) => {
  const dataset = e.dataset_name ?? 'deleted dataset';
  return e.parent_uuid === null ? dataset : `${dataset} record in “${e.parent_name ?? e.parent_uuid}”`;
};

/**
 * The Trash panel's "Records" part: deleted records the caller may restore (a child record named
 * with its parent, under which it comes back). The undo
 * history dies with the page; this is how a delete is taken back after a reload. Read afresh each
 * time the panel opens (staleTime 0): records are deleted elsewhere, without telling this list.
 */
export function RecordTrashSection() {
  const entries = useQuery({ queryKey: keys.recordTrash, queryFn: recordTrash, staleTime: 0 });
  const qc = useQueryClient();
  const [busy, setBusy] = useState<string | null>(null);
  const [failed, setFailed] = useState<{ uuid: string; text: string } | null>(null);
  // A restored entry's button goes with it: the focus stays in the panel, on its Records heading.
  const heading = useRef<HTMLHeadingElement>(null);
  const restore = async (e: RecordTrashEntry) => {
    setBusy(e.record_uuid);
    setFailed(null);
    try {
      await restoreRecord(e.record_uuid);
      // Its delete's undo step has nothing left to put back: Ctrl+Z must not try.
      restoredElsewhere([e.record_uuid]);
      toast({ kind: 'info', text: `Restored ${e.name}` });
      // Before the list loses the entry (and with it the focused button), not after every refresh:
      // in between the focus would be on the page body, out of reach of the panel's Escape.
      heading.current?.focus();
      // A child shows in its top-level record and that record's dataset, which the entry does not name.
      const child = e.parent_uuid !== null;
      await Promise.all([
        qc.invalidateQueries({ queryKey: keys.recordTrash }),
        qc.invalidateQueries({ queryKey: child ? ['table'] : keys.table(e.dataset_uuid) }),
        qc.invalidateQueries({ queryKey: child ? ['record'] : keys.record(e.record_uuid) }),
        qc.invalidateQueries({ queryKey: keys.datasets }),
      ]);
    } catch (err) {
      setFailed({ uuid: e.record_uuid, text: `Could not restore ${e.name}: ${errorText(err)}` });
    }
    setBusy(null);
  };
  const list = entries.data?.records ?? [];
  return (
    <>
      <h3 ref={heading} tabIndex={-1}>
        Records
      </h3>
      {entries.isError && <p role="alert">Could not read the deleted records: {errorText(entries.error)}</p>}
      {entries.data && list.length === 0 && <p className="muted">No record deleted in the last 30 days.</p>}
      <ul className="trash-list" aria-label="Deleted records">
        {list.map((e) => (
          <li key={e.record_uuid}>
            <div>
              <strong>{e.name}</strong>
              <p className="muted">
                {where(e)} · deleted <Time ts={e.deleted_at} /> by {e.deleted_by} · kept until <Time ts={e.expires_at} />
              </p>
              {failed?.uuid === e.record_uuid && <p role="alert">{failed.text}</p>}
            </div>
            <SteadyButton disabled={busy !== null} onClick={() => void restore(e)}>
              Restore<span className="sr-only"> {e.name}</span>
            </SteadyButton>
          </li>
        ))}
      </ul>
      {entries.data && entries.data.total > list.length && (
        <p className="muted">
          Showing the newest {list.length} of {entries.data.total}.
        </p>
      )}
    </>
  );
}

import { useQueryClient } from '@tanstack/react-query';
import { useLayoutEffect, useRef, useState } from 'react';
import type { SyncConflict } from '../../../shared/schemas/sync';
import { errorText, resolveConflict } from '../lib/api';
import { keys } from '../lib/queries';
import { recordNameIn } from '../lib/namedRecords';
import { confirmDialog } from '../ui/Dialog';
import { toast } from '../ui/toasts';
import { SteadyButton } from '../ui/SteadyButton';
import { useFocusOnLeave } from '../ui/useFocusOnLeave';
import { syncNowButton } from './syncNowButton';
import { conflictChoices, type ConflictChoice } from './conflictChoices';

const shown = (v: string | null) => (v === null || v === '' ? <em className="muted">empty</em> : v);

/** One field changed here and on the server: the three values side by side and the choices that fit it. */
function ConflictCard({ c }: { c: SyncConflict }) {
  const qc = useQueryClient();
  const choices = conflictChoices(c);
  const [merging, setMerging] = useState(false);
  const [merged, setMerged] = useState(c.mine ?? '');
  const [busy, setBusy] = useState(false);
  // The card goes once resolved: the focus moves to the next card's same button.
  const { entry, leaving } = useFocusOnLeave<HTMLLIElement>(syncNowButton);
  // Back from the merge form: the focus returns to Merge…, which the form replaced.
  const backToMerge = useRef(false);
  useLayoutEffect(() => {
    if (merging || !backToMerge.current) return;
    backToMerge.current = false;
    entry.current?.querySelector<HTMLElement>('[data-action="merged"]')?.focus();
  }, [merging, entry]);
  const resolve = async (choice: ConflictChoice) => {
    const ask = choices.ask?.[choice];
    // Busy from the first await: the record's name can take two reads, and another choice made
    // meanwhile would leave the dialog asking about a conflict already resolved.
    setBusy(true);
    try {
      if (ask && !(await confirmDialog(ask(await recordNameIn(qc, c.dataset_uuid, c.record_uuid))))) return;
      await resolveConflict(c.id, choice === 'merged' ? { choice, value: merged } : { choice });
      toast({ kind: 'info', text: `${c.field_name}: ${choices.done(choice)}` });
      leaving(choice);
      await qc.invalidateQueries({ queryKey: keys.sync });
      void qc.invalidateQueries({ queryKey: keys.record(c.record_uuid) });
    } catch (e) {
      toast({ kind: 'error', text: `Not resolved: ${errorText(e)}` });
    } finally {
      setBusy(false);
    }
  };
  return (
    <li className="conflict" data-conflict={c.id} ref={entry}>
      <div className="conflict-head">
        <strong>{c.field_name}</strong>
        <a className="muted mono" href={`#/d/${c.dataset_uuid}/r/${c.record_uuid}`} title={c.record_uuid}>
          record {c.record_uuid.slice(0, 8)}…
        </a>
      </div>
      <dl className="conflict-values">
        <div>
          <dt>Last synced</dt>
          <dd>{shown(c.base)}</dd>
        </div>
        <div className="mine">
          <dt>Mine (this computer)</dt>
          <dd>{shown(c.mine)}</dd>
        </div>
        <div className="theirs">
          <dt>Theirs (server)</dt>
          <dd>{shown(c.theirs)}</dd>
        </div>
      </dl>
      {merging ? (
        <form
          className="conflict-merge"
          onSubmit={(e) => {
            e.preventDefault();
            void resolve('merged');
          }}
        >
          <textarea
            aria-label={`Merged value for ${c.field_name}`}
            value={merged}
            onChange={(e) => setMerged(e.target.value)}
            rows={2}
            // Opened by Merge…, which it replaces: the focus would otherwise fall to the page body.
            autoFocus
          />
          <div className="conflict-actions">
            <SteadyButton type="submit" className="primary" disabled={busy} data-action="merged">
              Save merged value
            </SteadyButton>
            <button
              type="button"
              className="link"
              onClick={() => {
                backToMerge.current = true;
                setMerging(false);
              }}
            >
              Back
            </button>
          </div>
        </form>
      ) : (
        <div className="conflict-actions">
          <SteadyButton type="button" disabled={busy} data-action="mine" title={choices.mine.title} onClick={() => void resolve('mine')}>
            {choices.mine.label}
          </SteadyButton>
          <SteadyButton
            type="button"
            disabled={busy}
            data-action="theirs"
            title={choices.theirs.title}
            onClick={() => void resolve('theirs')}
          >
            {choices.theirs.label}
          </SteadyButton>
          {choices.merge && (
            <SteadyButton type="button" className="link" disabled={busy} data-action="merged" onClick={() => setMerging(true)}>
              Merge…
            </SteadyButton>
          )}
        </div>
      )}
    </li>
  );
}

export function Conflicts({ conflicts }: { conflicts: SyncConflict[] }) {
  return (
    <section aria-label="Conflicts">
      <h3>
        Conflicts <span className="badge badge-scheduled">{conflicts.length}</span>
      </h3>
      <p className="muted small">Changed here and on the server since the last sync. Nothing else waits for these.</p>
      <ul className="conflicts">
        {conflicts.map((c) => (
          <ConflictCard key={c.id} c={c} />
        ))}
      </ul>
    </section>
  );
}

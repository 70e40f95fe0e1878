import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import type { SyncConflict } from '../../../shared/schemas/sync';
import { errorText, resolveConflict } from '../lib/api';
import { keys } from '../lib/queries';
import { toast } from '../ui/toasts';
import { SteadyButton } from '../ui/SteadyButton';
import { conflictChoices, type ConflictChoice } from './conflictChoices';

const shown = (v: string | null) => (v === null || v === '' ? <em className="muted">empty</em> : v);

/** One field changed here and on the server: the three values side by side and the choices that fit it. */
function ConflictCard({ c }: { c: SyncConflict }) {
  const qc = useQueryClient();
  const choices = conflictChoices(c);
  const [merging, setMerging] = useState(false);
  const [merged, setMerged] = useState(c.mine ?? '');
  const [busy, setBusy] = useState(false);
  const resolve = async (choice: ConflictChoice) => {
    setBusy(true);
    try {
      await resolveConflict(c.id, choice === 'merged' ? { choice, value: merged } : { choice });
      toast({ kind: 'info', text: `${c.field_name}: ${choices.done(choice)}` });
      await qc.invalidateQueries({ queryKey: keys.sync });
      void qc.invalidateQueries({ queryKey: keys.record(c.record_uuid) });
    } catch (e) {
      toast({ kind: 'error', text: `Not resolved: ${errorText(e)}` });
    } finally {
      setBusy(false);
    }
  };
  return (
    <li className="conflict" data-conflict={c.id}>
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
          <textarea aria-label={`Merged value for ${c.field_name}`} value={merged} onChange={(e) => setMerged(e.target.value)} rows={2} />
          <div className="conflict-actions">
            <SteadyButton type="submit" className="primary" disabled={busy}>
              Save merged value
            </SteadyButton>
            <button type="button" className="link" onClick={() => setMerging(false)}>
              Back
            </button>
          </div>
        </form>
      ) : (
        <div className="conflict-actions">
          <SteadyButton type="button" disabled={busy} title={choices.mine.title} onClick={() => void resolve('mine')}>
            {choices.mine.label}
          </SteadyButton>
          <SteadyButton type="button" disabled={busy} title={choices.theirs.title} onClick={() => void resolve('theirs')}>
            {choices.theirs.label}
          </SteadyButton>
          {choices.merge && (
            <SteadyButton type="button" className="link" disabled={busy} onClick={() => setMerging(true)}>
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

import { useUndoLabels } from '../lib/edits';
import { SteadyButton } from './SteadyButton';

/** Undo and Redo for the mouse, naming what they would take back or do again. */
export function UndoRedo({ undo, redo }: { undo: () => void; redo: () => void }) {
  const [u, r] = useUndoLabels().split('\u0000');
  return (
    <div className="undo-redo" role="group" aria-label="Undo and redo">
      <SteadyButton type="button" disabled={!u} onClick={undo} title={u ? `Undo ${u} (Ctrl+Z)` : 'Nothing to undo'}>
        Undo
      </SteadyButton>
      <SteadyButton type="button" disabled={!r} onClick={redo} title={r ? `Redo ${r} (Ctrl+Shift+Z)` : 'Nothing to redo'}>
        Redo
      </SteadyButton>
    </div>
  );
}

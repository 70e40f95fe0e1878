import { useRef } from 'react';
import type { ColumnLayout } from '../../../shared/schemas/view';
import { DialogActions, Modal } from '../ui/Dialog';
import type { Template } from '../../../shared/schemas/template';
import { availableColumns } from './columns';
import { SteadyButton } from '../ui/SteadyButton';

/**
 * Which columns the list shows after the pinned name, and in what order: a check box shows or
 * hides one, ↑/↓ buttons (or Alt+↑/Alt+↓ on its check box) move it. Applies at once; kept per
 * dataset by the service.
 */
export function ColumnChooser({
  tpl,
  layout,
  onChange,
  onReset,
  onClose,
}: {
  tpl: Template;
  layout: ColumnLayout;
  /** Gets the change as a function of the current layout, so quick changes build on each other. */
  onChange: (change: (current: ColumnLayout) => ColumnLayout) => void;
  onReset: () => void;
  onClose: () => void;
}) {
  const list = useRef<HTMLOListElement>(null);
  const all = availableColumns(tpl);
  const shownOf = (l: ColumnLayout) => l.columns.filter((c) => all.some((a) => a.key === c.key));
  const shown = shownOf(layout);
  const shownKeys = new Set(shown.map((c) => c.key));
  // Shown columns first in their order, then the hidden ones in template order.
  const rows = [...shown.map((c) => all.find((a) => a.key === c.key)!), ...all.filter((a) => !shownKeys.has(a.key))];

  const toggle = (key: string, on: boolean) =>
    onChange((current) => {
      const now = shownOf(current);
      return { columns: on ? (now.some((c) => c.key === key) ? now : [...now, { key }]) : now.filter((c) => c.key !== key) };
    });
  const move = (key: string, by: -1 | 1) => {
    onChange((current) => {
      const next = shownOf(current);
      const i = next.findIndex((c) => c.key === key);
      const j = i + by;
      if (i < 0 || j < 0 || j >= next.length) return current;
      [next[i], next[j]] = [next[j]!, next[i]!];
      return { columns: next };
    });
    // Focus follows the moved column's check box.
    requestAnimationFrame(() => list.current?.querySelector<HTMLInputElement>(`input[data-key="${key}"]`)?.focus());
  };

  return (
    <Modal className="confirm column-chooser" labelledBy="columns-title" onClose={onClose}>
      <h2 id="columns-title">Columns</h2>
      <p className="muted small">The name stays first. Alt+↑ / Alt+↓ on a column moves it.</p>
      <ol ref={list} className="column-list">
        {rows.map((c) => {
          const i = shown.findIndex((s) => s.key === c.key);
          const on = i >= 0;
          return (
            <li key={c.key} className={on ? '' : 'muted'}>
              <label className="choice">
                <input
                  type="checkbox"
                  data-key={c.key}
                  checked={on}
                  onChange={(e) => toggle(c.key, e.target.checked)}
                  onKeyDown={(e) => {
                    if (on && e.altKey && (e.key === 'ArrowUp' || e.key === 'ArrowDown')) {
                      e.preventDefault();
                      move(c.key, e.key === 'ArrowUp' ? -1 : 1);
                    }
                  }}
                />
                {c.label}
              </label>
              {on && (
                <span className="column-moves">
                  <SteadyButton
                    type="button"
                    className="link"
                    aria-label={`Move ${c.label} up`}
                    disabled={i === 0}
                    onClick={() => move(c.key, -1)}
                  >
                    ↑
                  </SteadyButton>
                  <SteadyButton
                    type="button"
                    className="link"
                    aria-label={`Move ${c.label} down`}
                    disabled={i === shown.length - 1}
                    onClick={() => move(c.key, 1)}
                  >
                    ↓
                  </SteadyButton>
                </span>
              )}
            </li>
          );
        })}
      </ol>
      <DialogActions secondary={{ label: 'Reset', onClick: onReset }} primary={{ label: 'Done', onClick: onClose }} />
    </Modal>
  );
}

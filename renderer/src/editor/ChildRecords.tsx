import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState, type ReactNode } from 'react';
import { fieldType } from '../../../shared/fieldTypes';
import { PLUGIN, pluginNamed } from '../../../shared/plugins/renderPlugins';
import type { OdrRecord } from '../../../shared/schemas/record';
import type { Template } from '../../../shared/schemas/template';
import { api, errorText } from '../lib/api';
import { offerUndo, useEdits } from '../lib/edits';
import { deleteRecords, UNDO_TOAST_MS } from '../lib/recordDeletes';
import { cellText } from '../lib/cellText';
import { keys } from '../lib/queries';
import { focusInPlace } from '../lib/focusInPlace';
import { recordName } from '../../../shared/recordName';
import { ChildRecordPlugin, DatasetPlugin, PluginNote } from '../plugins';
import { confirmDialog } from '../ui/Dialog';
import { toast } from '../ui/toasts';
import { withArticle } from '../../../shared/article';
import { SteadyButton } from '../ui/SteadyButton';

/** Where typing lands in a new child record: its first field that takes text, else any. */
const FIRST_FIELD = [
  'input:not([type=hidden], [type=file], [type=checkbox], [type=radio]), textarea',
  'input:not([type=hidden]), select, textarea',
];

/** Columns of the compact table: the child dataset's first few fields that read as one line. */
const COLUMNS = 4;
/** A column's share of the table follows its longest text (title or value), within these (characters). */
const COL_MIN_CH = 6;
const COL_MAX_CH = 30;

/**
 * Each column's width in % of the table, by its longest text: a short number does not get as much
 * room as a sentence of notes. (A cell's min-width keeps a column readable in a narrow pane.)
 */
function columnShares(longest: number[]): number[] {
  const w = longest.map((n) => Math.min(COL_MAX_CH, Math.max(COL_MIN_CH, n)));
  const sum = w.reduce((a, b) => a + b, 0);
  return w.map((x) => Math.round((x / sum) * 1000) / 10);
}

/**
 * A child dataset inside its parent record: a compact table (one row per child record, its
 * first fields as columns) with Add, Open (the record's fields under its row) and Remove (after
 * an in-app confirmation; a step of the undo history like a record delete: the service keeps it
 * in its record trash). A single child record is open from the start. Child datasets drawn
 * by a record plugin (References: one citation each) keep that view instead of a table.
 */
export function ChildRecords({
  top,
  parent,
  child,
  body,
}: {
  top: string;
  parent: OdrRecord;
  child: Template;
  /** The full editor of one child record (RecordEditor's RecordBody). */
  body: (rec: OdrRecord) => ReactNode;
}) {
  const qc = useQueryClient();
  const { undo } = useEdits();
  const children = (parent.records ?? []).filter((c) => c.database_uuid === child.template_uuid);
  const [open, setOpen] = useState<Set<string>>(() => new Set(children.length === 1 ? [children[0]!.record_uuid] : []));
  const [adding, setAdding] = useState(false);
  // A child just added: once its row and fields are drawn the focus goes there, off "+ Add".
  const [focusNew, setFocusNew] = useState<string | null>(null);
  const cols = child.fields
    .filter((f) => fieldType(f.fieldtype).editor !== 'none' && fieldType(f.fieldtype).storage !== 'files')
    .slice(0, COLUMNS);
  const label = (c: OdrRecord) => recordName(c, child);
  const shares = columnShares(cols.map((f) => Math.max(f.name.length, ...children.map((c) => cellText(c, f).length))));
  const recordPlugin = !!pluginNamed(child.render_plugins, PLUGIN.references);
  const refresh = () => void qc.invalidateQueries({ queryKey: keys.record(top) });
  const section = useRef<HTMLElement>(null);
  const addButton = useRef<HTMLButtonElement>(null);
  /**
   * A removed row takes its Remove button with it, and the focus would drop to the page: it goes
   * to the row that takes its place (the next, else the one before), or to Add when none is left.
   * Both stay when Ctrl+Z brings the row back.
   */
  const focusInstead = (gone: OdrRecord) => {
    const i = children.findIndex((c) => c.record_uuid === gone.record_uuid);
    const next = children[i + 1] ?? children[i - 1];
    const el = next && section.current?.querySelector<HTMLElement>(`[data-row-focus="${next.record_uuid}"]`);
    focusInPlace(el || addButton.current);
  };

  useEffect(() => {
    if (!focusNew) return;
    const body = section.current?.querySelector(`[data-child-body="${focusNew}"]`);
    if (!body) return; // not drawn yet: the parent's refresh brings it
    const el =
      FIRST_FIELD.map((sel) => body.querySelector<HTMLElement>(sel)).find(Boolean) ??
      section.current?.querySelector<HTMLElement>(`[data-row-focus="${focusNew}"]`);
    focusInPlace(el);
    setFocusNew(null);
    // `parent`: its refresh draws the new child's row.
  }, [focusNew, parent]);

  const add = async () => {
    setAdding(true);
    try {
      const before = new Set(children.map((c) => c.record_uuid));
      const saved = await api.save({
        record_uuid: parent.record_uuid,
        records: [{ record_uuid: '', database_uuid: child.template_uuid, fields: [] }],
      });
      // The new child opens so its fields can be typed at once.
      const made = (saved.records ?? []).find((c) => c.database_uuid === child.template_uuid && !before.has(c.record_uuid));
      if (made) {
        setOpen((o) => new Set([...o, made.record_uuid]));
        setFocusNew(made.record_uuid);
      }
    } catch (e) {
      toast({ kind: 'error', text: `Could not add ${withArticle(child.name)} record: ${errorText(e)}` });
    }
    setAdding(false);
    refresh();
  };
  const remove = async (c: OdrRecord) => {
    if (
      !(await confirmDialog({
        title: `Remove ${child.name} record “${label(c)}”?`,
        body: 'Its values, child records and files go with it. Undo (Ctrl+Z) brings it back under this record; the Trash keeps it for 30 days.',
        confirm: 'Remove',
        danger: true,
      }))
    )
      return;
    const what = `${child.name} record “${label(c)}”`;
    const { op, error } = await deleteRecords([c.record_uuid], what);
    if (op) focusInstead(c);
    if (error) toast({ kind: 'error', text: `Could not remove the ${child.name} record: ${errorText(error)}` });
    else if (op) offerUndo(op, `Removed ${what}`, UNDO_TOAST_MS, undo);
    refresh();
  };
  const toggle = (uuid: string) =>
    setOpen((o) => {
      const n = new Set(o);
      if (n.has(uuid)) n.delete(uuid);
      else n.add(uuid);
      return n;
    });
  const removeButton = (c: OdrRecord) => (
    <button
      type="button"
      className="link danger"
      onClick={() => void remove(c)}
      aria-label={`Remove ${child.name} record ${label(c)}`}
      data-row-focus={recordPlugin ? c.record_uuid : undefined}
    >
      Remove
    </button>
  );

  return (
    <section ref={section} className="children" aria-label={`${child.name} records`}>
      <h3>
        {child.name} <span className="muted">({children.length})</span>
        <PluginNote plugins={child.render_plugins} />
        <SteadyButton
          ref={addButton}
          type="button"
          className="link"
          disabled={adding}
          onClick={() => void add()}
          aria-label={`Add ${child.name} record`}
        >
          + Add
        </SteadyButton>
      </h3>
      <DatasetPlugin tpl={child} records={children} />
      {recordPlugin ? (
        children.map((c) => (
          <article key={c.record_uuid} className="child" aria-label={`${child.name} ${label(c)}`} data-child-body={c.record_uuid}>
            <header>
              <span className="muted">#{c.internal_id}</span>
              {removeButton(c)}
            </header>
            <ChildRecordPlugin tpl={child} rec={c}>
              {body(c)}
            </ChildRecordPlugin>
          </article>
        ))
      ) : children.length === 0 ? (
        <p className="muted small">No {child.name} records yet.</p>
      ) : (
        <div className="child-table-wrap">
          <table className="child-table" aria-label={`${child.name} records`}>
            <colgroup>
              <col className="child-id" />
              {cols.map((f, i) => (
                <col key={f.field_uuid} style={{ width: `${shares[i]}%` }} />
              ))}
              <col className="child-actions" />
            </colgroup>
            <thead>
              <tr>
                <th scope="col" className="child-id">
                  #
                </th>
                {cols.map((f) => (
                  <th key={f.field_uuid} scope="col" title={f.name}>
                    <span className="child-col-name">{f.name}</span>
                  </th>
                ))}
                <th scope="col" className="child-actions">
                  <span className="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {children.map((c) => {
                const isOpen = open.has(c.record_uuid);
                return (
                  <ChildRow
                    key={c.record_uuid}
                    open={isOpen}
                    span={cols.length + 2}
                    body={isOpen ? body(c) : null}
                    name={label(c)}
                    uuid={c.record_uuid}
                    dataset={child.name}
                  >
                    <td className="muted child-id">{c.internal_id}</td>
                    {cols.map((f) => (
                      // A value cut short by a narrow pane reads whole on hover.
                      <td key={f.field_uuid} title={cellText(c, f)}>
                        {cellText(c, f)}
                      </td>
                    ))}
                    <td className="child-actions">
                      <button
                        type="button"
                        className="link"
                        aria-expanded={isOpen}
                        data-row-focus={c.record_uuid}
                        aria-label={`${isOpen ? 'Close' : 'Open'} ${child.name} record ${label(c)}`}
                        onClick={() => toggle(c.record_uuid)}
                      >
                        {isOpen ? 'Close' : 'Open'}
                      </button>
                      {removeButton(c)}
                    </td>
                  </ChildRow>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

function ChildRow({
  open,
  span,
  body,
  name,
  uuid,
  dataset,
  children,
}: {
  open: boolean;
  span: number;
  body: ReactNode;
  name: string;
  uuid: string;
  dataset: string;
  children: ReactNode;
}) {
  return (
    <>
      <tr className={open ? 'open' : undefined}>{children}</tr>
      {open && (
        <tr className="child-body">
          <td colSpan={span}>
            <div role="group" aria-label={`${dataset} record ${name}`} className="child" data-child-body={uuid}>
              {body}
            </div>
          </td>
        </tr>
      )}
    </>
  );
}

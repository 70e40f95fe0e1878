import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useMemo, useRef } from 'react';
import { fieldType } from '../../../shared/fieldTypes';
import { MAX_COLUMN_WIDTH, MIN_COLUMN_WIDTH, type ColumnLayout } from '../../../shared/schemas/view';
import type { Template, TemplateField } from '../../../shared/schemas/template';
import { columnLayout, errorText, putColumnLayout, resetColumnLayout } from '../lib/api';
import { toast } from '../ui/toasts';
import { headerWidth } from './headerWidth';

/** The internal id column; every other key is a field uuid. */
export const ID_KEY = '_id';
/** Columns shown before the user chooses: the id and the template's first fields. */
const DEFAULT_FIELDS = 9;
const SAVE_AFTER_MS = 400;
/** A long name does not widen its column past this by default: it is cut, whole in its title. */
const DEFAULT_MAX = 240;

export interface Column {
  key: string;
  label: string;
  field?: TemplateField;
  width: number;
  sortable: boolean;
}

export const clampWidth = (w: number) => Math.round(Math.max(MIN_COLUMN_WIDTH, Math.min(MAX_COLUMN_WIDTH, w)));

/** A column's width until the person sets one: its type's, or wider where its header needs it. */
const defaultWidth = (c: Omit<Column, 'width'>) =>
  clampWidth(Math.max(!c.field ? 84 : c.field.fieldtype === 'Image' ? 90 : 160, Math.min(DEFAULT_MAX, headerWidth(c.label, c.sortable))));

/** Every column the list can show: the id and each field that has a value to show, in template order. */
export function availableColumns(tpl: Template): Omit<Column, 'width'>[] {
  return [
    { key: ID_KEY, label: 'ID', sortable: true },
    ...tpl.fields
      .filter((f) => fieldType(f.fieldtype).editor !== 'none')
      .map((f) => ({ key: f.field_uuid, label: f.name, field: f, sortable: fieldType(f.fieldtype).sortable })),
  ];
}

export function defaultLayout(tpl: Template): ColumnLayout {
  return {
    columns: availableColumns(tpl)
      .slice(0, DEFAULT_FIELDS + 1)
      .map((c) => ({ key: c.key })),
  };
}

/** The layout's columns that still exist in the template, in the layout's order, with widths. */
export function resolveColumns(tpl: Template, layout: ColumnLayout): Column[] {
  const byKey = new Map(availableColumns(tpl).map((c) => [c.key, c]));
  return layout.columns.flatMap((c) => {
    const col = byKey.get(c.key);
    return col ? [{ ...col, width: c.width ?? defaultWidth(col) }] : [];
  });
}

/**
 * The user's columns of a dataset, kept by the service (GET/PUT /local/datasets/{uuid}/columns)
 * so they survive restarts. Changes show at once; a resize is saved once the drag pauses.
 */
export function useColumns(dataset: string, tpl: Template | undefined) {
  const qc = useQueryClient();
  const key = useMemo(() => ['columns', dataset] as const, [dataset]);
  const { data: saved, isPending } = useQuery({ queryKey: key, queryFn: () => columnLayout(dataset), staleTime: Infinity });
  const layout = useMemo(() => saved ?? (tpl ? defaultLayout(tpl) : { columns: [] }), [saved, tpl]);
  const columns = useMemo(() => (tpl ? resolveColumns(tpl, layout) : []), [tpl, layout]);
  const timer = useRef<ReturnType<typeof setTimeout>>(undefined);
  useEffect(() => () => clearTimeout(timer.current), []);

  // Changes are computed from the cache, not from the last render: two quick changes (keys
  // pressed before React re-renders, which TanStack notifies a task later) must both count.
  const setLayout = useCallback(
    (change: ColumnLayout | ((current: ColumnLayout) => ColumnLayout), delay = 0) => {
      const current = qc.getQueryData<ColumnLayout | null>(key) ?? layout;
      const next = typeof change === 'function' ? change(current) : change;
      if (next === current) return;
      qc.setQueryData(key, next);
      clearTimeout(timer.current);
      timer.current = setTimeout(() => {
        putColumnLayout(dataset, next).catch((e: unknown) => toast({ kind: 'error', text: `Columns not saved: ${errorText(e)}` }));
      }, delay);
    },
    [qc, key, dataset, layout],
  );

  const resize = useCallback(
    (colKey: string, width: number) =>
      setLayout(
        (current) => ({ columns: current.columns.map((c) => (c.key === colKey ? { ...c, width: clampWidth(width) } : c)) }),
        SAVE_AFTER_MS,
      ),
    [setLayout],
  );

  const reset = useCallback(() => {
    clearTimeout(timer.current);
    qc.setQueryData(key, null);
    resetColumnLayout(dataset).catch((e: unknown) => toast({ kind: 'error', text: `Columns not reset: ${errorText(e)}` }));
  }, [qc, key, dataset]);

  return { columns, layout, ready: !isPending, setLayout, resize, reset };
}

import { useCallback, useMemo, useRef, useState } from 'react';
import { errorText, viewUuids } from '../../lib/api';
import type { ViewQuery } from '../../../../shared/schemas/selection';
import { toast } from '../../ui/toasts';
import * as model from './selectionModel';

/**
 * The dataset screen's selection (`selectionModel.ts`) with the reads it needs from the service.
 * Each step starts from the latest state, not the last render's: a Shift-click right after a
 * click, before React renders, ranges from the row just clicked. The actions keep their identity
 * across renders (per dataset).
 */
export function useSelection(dataset: string, view: ViewQuery) {
  const [state, setState] = useState(model.emptySelection);
  const now = useRef(state);
  const apply = useCallback((step: (s: model.Selection) => model.Selection) => {
    const next = step(now.current);
    if (next === now.current) return;
    now.current = next;
    setState(next);
  }, []);
  // The range and Select all read the view as shown when they are asked.
  const shownView = useRef(view);
  shownView.current = view;

  const actions = useMemo(
    () => ({
      replace: (uuids: Iterable<string>, anchor?: number) => apply((s) => model.replace(s, uuids, anchor)),
      setAnchor: (i: number) => apply((s) => model.setAnchor(s, i)),
      toggle: (uuid: string) => apply((s) => model.toggle(s, uuid)),
      forget: (uuid: string) => apply((s) => model.forget(s, uuid)),
      /** Shift-click or Shift+arrow on row `i` (`uuid` when its record is loaded). */
      range: async (i: number, uuid?: string) => {
        const { state: started, read } = model.startRange(now.current, i, uuid);
        apply(() => started);
        try {
          const { uuids } = await viewUuids(dataset, { ...shownView.current, offset: read.offset, limit: read.limit });
          apply((s) => model.rangeRead(s, read.id, uuids));
        } catch (e) {
          if (!model.awaiting(now.current, read.id)) return;
          apply((s) => model.rangeFailed(s, read.id));
          toast({ kind: 'error', text: `Could not select the range: ${errorText(e)}` });
        }
      },
      /** Select all reads every uuid of the view; clearing needs no read. */
      all: async (on: boolean) => {
        if (!on) return apply((s) => model.replace(s, []));
        const { state: started, id } = model.startAll(now.current);
        apply(() => started);
        try {
          const { uuids } = await viewUuids(dataset, shownView.current);
          apply((s) => model.rangeRead(s, id, uuids));
        } catch (e) {
          if (!model.awaiting(now.current, id)) return;
          apply((s) => model.rangeFailed(s, id));
          toast({ kind: 'error', text: `Could not select all: ${errorText(e)}` });
        }
      },
    }),
    [apply, dataset],
  );
  return [state.selected, actions, model.allPending(state)] as const;
}

import { useEffect, useState } from 'react';

/** The list never gets narrower than this; the record pane never narrower than PANE_MIN. */
const LIST_MIN = 360;
export const PANE_MIN = 340;
const PANE_KEY = 'odr.paneWidth';

/** Width of an element (a callback ref: it mounts after the template loads), followed as the window or panels change it. */
function useWidth(): [number, (el: HTMLElement | null) => void] {
  const [el, setEl] = useState<HTMLElement | null>(null);
  const [w, setW] = useState(0);
  useEffect(() => {
    if (!el) return;
    const ro = new ResizeObserver(([e]) => setW(e!.contentRect.width));
    ro.observe(el);
    return () => ro.disconnect();
  }, [el]);
  return [w, setEl];
}

/**
 * The record pane's width beside the list: as the splitter last left it (kept across restarts),
 * within what the workspace allows.
 */
export function usePaneWidth() {
  const [pane, setPane] = useState(() => Number(localStorage.getItem(PANE_KEY)) || 480);
  const [width, workspace] = useWidth();
  const max = Math.max(PANE_MIN, width - LIST_MIN - 12);
  return {
    /** A callback ref for the element holding the list and the pane. */
    workspace,
    width: Math.max(PANE_MIN, Math.min(pane, max)),
    max,
    set: (px: number) => {
      setPane(px);
      localStorage.setItem(PANE_KEY, String(px));
    },
  };
}

/**
 * A ref for the record pane's sticky header: keeps the pane's `--head-clearance` at the header's
 * height, which the pane's scroll-padding-top reads. Every scroll the browser makes in the pane
 * (Tab and Shift+Tab, a label click, scrollIntoView, focusInPlace) then stops below the header
 * rather than under it. Watched, not measured once: the header wraps in a narrow pane.
 */
export function keepHeadClearance(head: HTMLElement | null): (() => void) | undefined {
  const pane = head?.parentElement;
  if (!head || !pane) return;
  const set = () => pane.style.setProperty('--head-clearance', `${head.offsetHeight}px`);
  // Set at once too: a focus move in the same commit (the layout effect that opens a record) must see it.
  set();
  const watch = new ResizeObserver(set);
  watch.observe(head);
  return () => watch.disconnect();
}

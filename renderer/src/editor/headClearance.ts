/**
 * A ref for the record pane's sticky header: keeps the pane's `--head-clearance` at the header's
 * height, which the pane's scroll-padding-top reads. Every scroll the browser makes in the pane
 * (Tab and Shift+Tab, a label click, scrollIntoView, focusInPlace) then stops below the header
 * rather than under it. Watched, not measured once: the header wraps in a narrow pane.
 * A focused field's label is brought out from under the header too (labelInView).
 */
export function keepHeadClearance(head: HTMLElement | null): (() => void) | undefined {
  const pane = head?.parentElement;
  if (!head || !pane) return;
  const set = () => pane.style.setProperty('--head-clearance', `${head.offsetHeight}px`);
  // Set at once too: a focus move in the same commit (the layout effect that opens a record) must see it.
  set();
  const watch = new ResizeObserver(set);
  watch.observe(head);
  // A focus the pointer gave is left to the browser: what is under the pointer must not move.
  let byPointer = false;
  const onPointer = () => (byPointer = true);
  const onKey = () => (byPointer = false);
  const onFocus = (e: FocusEvent) => {
    if (!byPointer) labelInView(pane, head, e.target);
  };
  window.addEventListener('pointerdown', onPointer, true);
  window.addEventListener('keydown', onKey, true);
  pane.addEventListener('focusin', onFocus);
  return () => {
    watch.disconnect();
    window.removeEventListener('pointerdown', onPointer, true);
    window.removeEventListener('keydown', onKey, true);
    pane.removeEventListener('focusin', onFocus);
  };
}

/**
 * The browser's focus scroll stops the control itself below the header (scroll-padding), and
 * the field's label above the control stayed under it: Shift+Tab up the pane showed fields with
 * their names cut, the control in view and its label not. When a field fits from its label to
 * the focused control, the pane scrolls here, as little as it can, to show both; the browser's
 * own scroll, which runs after the focus event, then finds the control in view and leaves it.
 * A field taller than the pane is left to the browser (the control shows, its label cannot).
 */
function labelInView(pane: HTMLElement, head: HTMLElement, target: EventTarget | null) {
  if (!(target instanceof HTMLElement) || head.contains(target)) return;
  const label = target.closest('.field')?.querySelector(':scope > .field-head');
  if (!label || !pane.contains(label)) return;
  const style = getComputedStyle(pane);
  // The band the browser's own scrolls keep to: the pane's scrollport less its scroll-padding.
  const edge = pane.getBoundingClientRect().top + pane.clientTop;
  const top = edge + (parseFloat(style.scrollPaddingTop) || 0);
  const bottom = edge + pane.clientHeight - (parseFloat(style.scrollPaddingBottom) || 0);
  const from = label.getBoundingClientRect().top;
  const to = target.getBoundingClientRect().bottom;
  if (to - from > bottom - top) return;
  if (from < top) pane.scrollTop -= top - from;
  else if (to > bottom) pane.scrollTop += to - bottom;
}

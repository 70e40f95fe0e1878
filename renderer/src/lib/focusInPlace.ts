/**
 * Moves the focus without the browser's own jump: Chromium scrolls a focused element to the
 * middle of its scroller, which in the record pane took the header (which record is open, ‹ ›,
 * Close) out of view. Here the scrollers move only as far as the element needs: one already in
 * view moves nothing, one below the fold comes up to the bottom edge. The record pane's header
 * is sticky (it stays when the fields scroll); an element that would end up under it is brought
 * down to just below it.
 */
export function focusInPlace(el: HTMLElement | null | undefined): void {
  if (!el) return;
  el.focus({ preventScroll: true });
  el.scrollIntoView({ block: 'nearest', inline: 'nearest' });
  const pane = el.closest<HTMLElement>('aside.editor');
  const head = pane?.querySelector<HTMLElement>(':scope > .editor-head');
  if (!pane || !head || head.contains(el)) return;
  const hidden = head.getBoundingClientRect().bottom - el.getBoundingClientRect().top;
  if (hidden > 0) pane.scrollTop -= hidden + 8;
}

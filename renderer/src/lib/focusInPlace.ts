/**
 * Moves the focus without the browser's own jump: Chromium scrolls a focused element to the
 * middle of its scroller, which in the record pane took the header (which record is open, ‹ ›,
 * Close) out of view. Here the scrollers move only as far as the element needs: one already in
 * view moves nothing, one below the fold comes up to the bottom edge. The record pane's sticky
 * header is cleared by the pane's scroll-padding-top (editor/headClearance.ts).
 */
export function focusInPlace(el: HTMLElement | null | undefined): void {
  if (!el) return;
  el.focus({ preventScroll: true });
  el.scrollIntoView({ block: 'nearest', inline: 'nearest' });
}

/**
 * What had the focus in a record's pane, as a selector that finds the same control in the next
 * record's pane: a named button (‹ ›, History, Delete record) by its name, a field's input by the
 * field it belongs to. Null for anything else.
 */
export function paneFocusKey(el: HTMLElement): string | null {
  const label = el.getAttribute('aria-label');
  if (el instanceof HTMLButtonElement && label) return `button[aria-label="${CSS.escape(label)}"]`;
  const field = el.closest<HTMLElement>('[data-field]')?.dataset.field;
  if (field && el.matches('input, textarea, select')) return `[data-field="${CSS.escape(field)}"] :is(input, textarea, select)`;
  return null;
}

import type { ComponentProps, MouseEvent } from 'react';

/**
 * A button that can turn unavailable while it has the focus: busy after being pressed (Restore,
 * + Add, Save), or with nothing left to do (Undo after the last step, Previous at the first
 * record, ↑ at the top). A `disabled` button drops the focus to the page body there, where
 * Escape no longer reaches its panel and the next Tab starts over at the top; this one says
 * "unavailable" with aria-disabled instead, keeps the focus and ignores presses until it is
 * available again.
 */
export function SteadyButton({ disabled = false, onClick, type = 'button', ...rest }: ComponentProps<'button'>) {
  const press = (e: MouseEvent<HTMLButtonElement>) => {
    // preventDefault: an unavailable submit button must not submit its form either.
    if (disabled) e.preventDefault();
    else onClick?.(e);
  };
  return <button {...rest} type={type} aria-disabled={disabled || undefined} onClick={press} />;
}

import { useRef, type KeyboardEvent, type PointerEvent } from 'react';

/**
 * A vertical divider: between the list and the record pane, or at a column's right edge. Drag
 * it, or focus it and use the arrow keys (Shift for bigger steps, Home/End for the limits).
 * `value` is the width in px of what it sizes, which lies on its `grows` side's opposite: the
 * pane right of the splitter grows when it moves left, a column left of its edge when it moves right.
 */
export function Splitter({
  value,
  min,
  max,
  onChange,
  label,
  grows = 'left',
  className = 'splitter',
  step: small = 16,
  tabIndex = 0,
}: {
  value: number;
  min: number;
  max: number;
  onChange: (px: number) => void;
  label: string;
  grows?: 'left' | 'right';
  className?: string;
  step?: number;
  /** -1 where its keys are reached another way (a grid's column header: Shift+←/→). */
  tabIndex?: number;
}) {
  const sign = grows === 'left' ? 1 : -1;
  const drag = useRef<{ x: number; start: number } | null>(null);
  const clamp = (v: number) => Math.round(Math.max(min, Math.min(max, v)));
  // Key steps build on the last width asked for, not on `value`: two presses before the parent
  // re-renders (its store notifies a task later) must both count. A new `value` resets it.
  const asked = useRef({ value, width: value });
  if (asked.current.value !== value) asked.current = { value, width: value };
  const onKey = (e: KeyboardEvent) => {
    const from = asked.current.width;
    const step = (e.shiftKey ? 5 * small : small) * sign;
    const to =
      e.key === 'ArrowLeft' ? from + step : e.key === 'ArrowRight' ? from - step : e.key === 'Home' ? max : e.key === 'End' ? min : null;
    if (to === null) return;
    e.preventDefault();
    asked.current.width = clamp(to);
    onChange(asked.current.width);
  };
  return (
    <div
      className={className}
      role="separator"
      aria-orientation="vertical"
      aria-label={label}
      aria-valuenow={value}
      aria-valuemin={min}
      aria-valuemax={max}
      tabIndex={tabIndex}
      onKeyDown={onKey}
      onClick={(e) => e.stopPropagation()}
      onPointerDown={(e: PointerEvent<HTMLDivElement>) => {
        e.stopPropagation();
        e.currentTarget.setPointerCapture(e.pointerId);
        drag.current = { x: e.clientX, start: value };
      }}
      onPointerMove={(e) => {
        if (drag.current) onChange(clamp(drag.current.start + sign * (drag.current.x - e.clientX)));
      }}
      onPointerUp={() => {
        drag.current = null;
      }}
      onPointerCancel={() => {
        drag.current = null;
      }}
    />
  );
}

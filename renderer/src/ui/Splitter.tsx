import { useRef, type KeyboardEvent, type PointerEvent } from 'react';

/**
 * A vertical divider between the list and the record pane: drag it, or focus it and use the
 * arrow keys (Home/End for the limits). `value` is the pane's width in px.
 */
export function Splitter({
  value,
  min,
  max,
  onChange,
  label,
}: {
  value: number;
  min: number;
  max: number;
  onChange: (px: number) => void;
  label: string;
}) {
  const drag = useRef<{ x: number; start: number } | null>(null);
  const clamp = (v: number) => Math.round(Math.max(min, Math.min(max, v)));
  const onKey = (e: KeyboardEvent) => {
    const step = e.shiftKey ? 80 : 16;
    const to =
      e.key === 'ArrowLeft' ? value + step : e.key === 'ArrowRight' ? value - step : e.key === 'Home' ? max : e.key === 'End' ? min : null;
    if (to === null) return;
    e.preventDefault();
    onChange(clamp(to));
  };
  return (
    <div
      className="splitter"
      role="separator"
      aria-orientation="vertical"
      aria-label={label}
      aria-valuenow={value}
      aria-valuemin={min}
      aria-valuemax={max}
      tabIndex={0}
      onKeyDown={onKey}
      onPointerDown={(e: PointerEvent<HTMLDivElement>) => {
        e.currentTarget.setPointerCapture(e.pointerId);
        drag.current = { x: e.clientX, start: value };
      }}
      onPointerMove={(e) => {
        if (drag.current) onChange(clamp(drag.current.start + drag.current.x - e.clientX));
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

import { readFileSync, writeFileSync } from 'node:fs';

export interface Bounds {
  x?: number;
  y?: number;
  width: number;
  height: number;
  maximized?: boolean;
}

export const DEFAULT_BOUNDS: Bounds = { width: 1360, height: 860 };

interface Area {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** The saved window bounds if they still fit a connected display, else the default size. */
export function loadBounds(file: string, displays: Area[]): Bounds {
  let saved: Bounds;
  try {
    saved = JSON.parse(readFileSync(file, 'utf8')) as Bounds;
  } catch {
    return DEFAULT_BOUNDS;
  }
  if (!Number.isFinite(saved.width) || !Number.isFinite(saved.height) || saved.width < 400 || saved.height < 300) return DEFAULT_BOUNDS;
  const { x, y } = saved;
  if (x === undefined || y === undefined) return { width: saved.width, height: saved.height, maximized: !!saved.maximized };
  // At least a corner of the title bar must be on some display, or the window is unreachable.
  const visible = displays.some((d) => x + 100 > d.x && x < d.x + d.width - 50 && y >= d.y && y < d.y + d.height - 50);
  return visible
    ? { x, y, width: saved.width, height: saved.height, maximized: !!saved.maximized }
    : { width: saved.width, height: saved.height };
}

export function saveBounds(file: string, b: Bounds): void {
  try {
    writeFileSync(file, JSON.stringify(b));
  } catch {
    /* a read-only profile only loses the window position */
  }
}

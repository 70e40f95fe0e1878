import { useMemo, useSyncExternalStore } from 'react';

/** Ten colours that stay apart on light and dark backgrounds (Tableau 10). */
export const SERIES_COLORS = ['#4e79a7', '#f28e2b', '#e15759', '#76b7b2', '#59a14f', '#edc948', '#b07aa1', '#ff9da7', '#9c755f', '#bab0ac'];

export const colorOf = (i: number) => SERIES_COLORS[i % SERIES_COLORS.length]!;

const dark = window.matchMedia('(prefers-color-scheme: dark)');
const subscribe = (cb: () => void) => {
  dark.addEventListener('change', cb);
  return () => dark.removeEventListener('change', cb);
};

export interface ChartTheme {
  dark: boolean;
  text: string;
  muted: string;
  grid: string;
  background: string;
}

/** Axis and grid colours from the app's CSS variables, re-read when the system scheme flips. */
export function useChartTheme(): ChartTheme {
  const isDark = useSyncExternalStore(subscribe, () => dark.matches);
  return useMemo(() => themeFor(isDark), [isDark]);
}

function themeFor(isDark: boolean): ChartTheme {
  const css = getComputedStyle(document.documentElement);
  const v = (name: string, dflt: string) => css.getPropertyValue(name).trim() || dflt;
  return {
    dark: isDark,
    text: v('--text', isDark ? '#e6e9ef' : '#1c2330'),
    muted: v('--muted', '#64708a'),
    grid: v('--line', isDark ? '#2c323c' : '#e1e5ec'),
    background: v('--panel', isDark ? '#1c2027' : '#ffffff'),
  };
}

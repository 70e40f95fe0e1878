import { observeElementRect, type Virtualizer } from '@tanstack/react-virtual';

/**
 * Chromium lays out no box taller than 33,554,428 px: at 36 px a row, a list past ~930k rows
 * would end there and its last rows could not be scrolled to. Past this height the scroller's
 * content stays this tall and every scroll position stands for a proportionally larger offset
 * in the full list (a bit more than a pixel per pixel at a million rows); below it, nothing is
 * scaled.
 */
export const MAX_SCROLL_PX = 30_000_000;

/**
 * The scroll height past which the table scales: MAX_SCROLL_PX, or lower when the page's address
 * has `?maxScrollPx=N` (N from 2,000 up): the browser tests scale a list of a few thousand rows
 * that way instead of needing a million records. Read from the address, not a setting: nothing
 * a user does changes it.
 */
export function scrollLimit(search: string): number {
  const n = Number(new URLSearchParams(search).get('maxScrollPx'));
  return Number.isInteger(n) && n >= 2_000 && n < MAX_SCROLL_PX ? n : MAX_SCROLL_PX;
}

/** What the adapter uses of the scroller element (kept structural: shared with the Node tests). */
export interface ScrollerElement {
  scrollTop: number;
  readonly scrollLeft: number;
  readonly scrollHeight: number;
  readonly scrollWidth: number;
  readonly clientHeight: number;
  readonly clientWidth: number;
  readonly ownerDocument: unknown;
  scrollTo(to: ScrollToOptions): void;
  addEventListener(type: string, listener: () => void, options?: unknown): void;
  removeEventListener(type: string, listener: () => void): void;
}
type ScrollToOptions = { top?: number; left?: number; behavior?: 'auto' | 'instant' | 'smooth' };

/**
 * What the virtualizer reads as its scroll element: the real scroller seen in the list's full
 * (unscaled) coordinates. `heights()` gives the list's full height, the height the scroller's
 * content is actually laid out at (both including anything above the rows) and the scroller's
 * visible height.
 */
export interface ScaledScroller {
  readonly el: ScrollerElement;
  /** Full-list pixels per scroller pixel (1 below MAX_SCROLL_PX). */
  factor(): number;
  readonly ownerDocument: unknown;
  readonly scrollTop: number;
  readonly scrollLeft: number;
  readonly scrollHeight: number;
  readonly scrollWidth: number;
  readonly clientHeight: number;
  readonly clientWidth: number;
  scrollTo(to: ScrollToOptions): void;
  addEventListener: ScrollerElement['addEventListener'];
  removeEventListener: ScrollerElement['removeEventListener'];
}

export function scaledScroller(el: ScrollerElement, heights: () => { full: number; laidOut: number; view: number }): ScaledScroller {
  /** Full-list pixels per scroller pixel. */
  // From numbers the table already holds: reading the element's size here would force a layout
  // in every render and scroll event (it showed in the profile at 1M).
  const factor = () => {
    const { full, laidOut, view } = heights();
    return full > laidOut && laidOut > view ? (full - view) / (laidOut - view) : 1;
  };
  // The scroller rounds what it is given: the offset last asked for is read back as such, so the
  // virtualizer sees its own write land exactly where it aimed.
  let written: { real: number; full: number } | null = null;
  return {
    el,
    factor,
    ownerDocument: el.ownerDocument,
    get scrollTop() {
      const real = el.scrollTop;
      if (written && written.real === real) return written.full;
      written = null;
      return real * factor();
    },
    get scrollLeft() {
      return el.scrollLeft;
    },
    get scrollHeight() {
      const f = factor();
      return f === 1 ? el.scrollHeight : (el.scrollHeight - el.clientHeight) * f + el.clientHeight;
    },
    get scrollWidth() {
      return el.scrollWidth;
    },
    get clientHeight() {
      return el.clientHeight;
    },
    get clientWidth() {
      return el.clientWidth;
    },
    scrollTo(to: ScrollToOptions) {
      if (to.top === undefined) return el.scrollTo(to);
      const f = factor();
      el.scrollTo({ ...to, top: to.top / f });
      written = f === 1 || to.behavior === 'smooth' ? null : { real: el.scrollTop, full: to.top };
    },
    addEventListener: el.addEventListener.bind(el),
    removeEventListener: el.removeEventListener.bind(el),
  };
}

/**
 * The virtualizer's size observer, pointed at the real element (a ResizeObserver needs one).
 * The virtualizer is typed for an element; at run time its scroll element is a ScaledScroller.
 */
export const observeScaledRect = (instance: Virtualizer<HTMLElement, Element>, cb: (r: { width: number; height: number }) => void) =>
  observeElementRect(
    Object.assign(Object.create(instance) as Virtualizer<HTMLElement, Element>, {
      scrollElement: (instance.scrollElement as unknown as ScaledScroller | null)?.el ?? null,
    }),
    cb,
  );

/** How far the laid-out content sits from the full list's coordinates at scroll offset `fullOffset`. */
export function laidOutShift(fullOffset: number, scroller: ScaledScroller | null): number {
  const f = scroller?.factor() ?? 1;
  return f === 1 ? 0 : fullOffset / f - fullOffset;
}

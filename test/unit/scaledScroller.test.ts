import { describe, expect, it } from 'vitest';
import { laidOutShift, MAX_SCROLL_PX, scaledScroller } from '../../renderer/src/lib/scaledScroller.js';

/**
 * The adapter's arithmetic against an element-shaped object holding what Chromium would report
 * (the real scroller is driven at 1M rows in the ui bench): a list taller than Chromium's layout
 * limit must reach its last row, and a list below MAX_SCROLL_PX must read exactly as before.
 */
function element(contentHeight: number, view = 600) {
  let top = 0;
  const max = () => contentHeight - view;
  return {
    ownerDocument: {},
    clientHeight: view,
    clientWidth: 800,
    scrollWidth: 800,
    scrollLeft: 0,
    scrollHeight: contentHeight,
    get scrollTop() {
      return top;
    },
    set scrollTop(v: number) {
      top = Math.round(Math.max(0, Math.min(max(), v)));
    },
    scrollTo(o: { top?: number }) {
      if (o.top !== undefined) this.scrollTop = o.top;
    },
    addEventListener() {},
    removeEventListener() {},
  };
}
/** The scroller the adapter wraps (an element in the renderer; its DOM type is not in this project). */
const wrap = (el: ReturnType<typeof element>, h: () => { full: number; laidOut: number; view: number }) =>
  scaledScroller(el as unknown as Parameters<typeof scaledScroller>[0], h);

describe('scaledScroller', () => {
  const view = 600;
  const full = 34 + 1_000_000 * 36;
  const laidOut = 34 + MAX_SCROLL_PX;

  it('maps the scroller’s whole range onto the whole list past the limit', () => {
    const el = element(laidOut, view);
    const s = wrap(el, () => ({ full, laidOut, view }));
    expect(s.scrollHeight - s.clientHeight).toBeCloseTo(full - view, 3);
    el.scrollTop = laidOut - view; // dragged to the bottom
    expect(s.scrollTop).toBeCloseTo(full - view, 3);
    el.scrollTop = 0;
    expect(s.scrollTop).toBe(0);
  });

  it('reads back exactly the offset it was asked to scroll to', () => {
    const el = element(laidOut, view);
    const s = wrap(el, () => ({ full, laidOut, view }));
    for (const target of [36 * 999_999 + 34 - view + 36, 36 * 500_001, 12_345]) {
      s.scrollTo({ top: target });
      expect(s.scrollTop).toBe(target);
      expect(el.scrollTop).toBeLessThanOrEqual(laidOut - view);
    }
    // A scroll the person makes afterwards is read through the scale again.
    el.scrollTop = 1000;
    expect(s.scrollTop).toBeCloseTo((1000 * (full - view)) / (laidOut - view), 6);
  });

  it('places rows so the one at the scroll offset is at the top of the view', () => {
    const el = element(laidOut, view);
    const s = wrap(el, () => ({ full, laidOut, view }));
    const offset = 36 * 987_654;
    s.scrollTo({ top: offset });
    // A row starting at `offset` in the list sits at the scroller's top edge in the content.
    expect(offset + laidOutShift(offset, s)).toBeCloseTo(el.scrollTop, 0);
  });

  it('changes nothing below the limit', () => {
    const small = 34 + 100_000 * 36;
    const el = element(small, view);
    const s = wrap(el, () => ({ full: small, laidOut: small, view }));
    el.scrollTop = 12_345;
    expect(s.scrollTop).toBe(12_345);
    expect(s.scrollHeight).toBe(small);
    s.scrollTo({ top: 777 });
    expect(el.scrollTop).toBe(777);
    expect(laidOutShift(777, s)).toBe(0);
  });
});

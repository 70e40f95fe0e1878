/**
 * What a column header's name needs, so a column's default width shows it whole ("Image field"
 * read "Image fi…" at the image column's 90 px). Measured in the header's own font, taken from
 * styles.css (`.row.head`) through a probe rather than written out again here.
 */

/** The cell's padding (8 px a side); the sort arrow (" ▲") beside a sortable one's name. */
const PADDING = 16;
const ARROW = 14;

let measure: ((text: string) => number) | null = null;

function measurer(): (text: string) => number {
  if (measure) return measure;
  const probe = document.createElement('div');
  probe.className = 'row head';
  probe.style.position = 'absolute';
  probe.style.visibility = 'hidden';
  document.body.append(probe);
  const { fontWeight, fontSize, fontFamily } = getComputedStyle(probe);
  probe.remove();
  const ctx = document.createElement('canvas').getContext('2d');
  if (!ctx) return (text) => text.length * 7;
  ctx.font = `${fontWeight} ${fontSize} ${fontFamily}`;
  measure = (text) => ctx.measureText(text).width;
  return measure;
}

/** The width a header of `label` takes whole, padding and sort arrow included. */
export const headerWidth = (label: string, sortable: boolean) => Math.ceil(measurer()(label)) + PADDING + (sortable ? ARROW : 0);

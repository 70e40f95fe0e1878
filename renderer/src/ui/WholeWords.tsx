import type { ReactNode } from 'react';

/** A word the browser would break at its hyphen or slash ("-S-000010", "a/b"). */
const BREAKS_INSIDE = /[-‐/]/;

function words(text: string, key: string): ReactNode[] {
  return text.split(/(\s+)/).map((w, i) =>
    BREAKS_INSIDE.test(w) ? (
      <span key={`${key}${i}`} className="nowrap">
        {w}
      </span>
    ) : (
      w
    ),
  );
}

/**
 * A message that names search terms, e.g. the service's refusal of a search that only excludes:
 * a quoted example reads as code, and no term is split across lines at its hyphen ("-S-" /
 * "000010"); lines still wrap between words. The text itself is unchanged.
 */
export function WholeWords({ text }: { text: string }) {
  return (
    <>
      {text
        .split(/("[^"]*")/)
        .map((part, i) => (/^"[^"]*"$/.test(part) ? <code key={i}>{words(part, `${i}-`)}</code> : words(part, `${i}-`)))}
    </>
  );
}

import './childDatasets.css';
import type { DatasetSummary } from '../lib/api';

/**
 * A dataset's child datasets under it in the sidebar. A child dataset's records live inside its
 * parent's records, so its link opens the parent's template at that child dataset.
 */
export function ChildDatasets({ parent, onOpen }: { parent: DatasetSummary; onOpen: (child: string) => void }) {
  if (!parent.children.length) return null;
  return (
    <ul className="child-datasets" aria-label={`Child datasets of ${parent.name}`}>
      {parent.children.map((c) => (
        <li key={c.uuid} style={{ paddingLeft: `${(c.depth - 1) * 12}px` }}>
          <a
            href={`#/d/${parent.uuid}?view=template`}
            title={`${c.name}: a child dataset of ${parent.name}; its records are inside ${parent.name}'s records`}
            onClick={(e) => {
              e.preventDefault();
              onOpen(c.uuid);
            }}
          >
            <span aria-hidden="true">↳ </span>
            {c.name}
          </a>
        </li>
      ))}
    </ul>
  );
}

/**
 * Once the template view shows it (within about a second), opens the child dataset's section,
 * scrolls to it and puts the focus on it.
 */
export function revealTemplatePart(uuid: string, frames = 60) {
  const el = document.getElementById(`tpl-${uuid}`);
  if (!el) {
    if (frames > 0) requestAnimationFrame(() => revealTemplatePart(uuid, frames - 1));
    return;
  }
  for (let d = el.closest('details'); d; d = d.parentElement?.closest('details') ?? null) d.open = true;
  el.scrollIntoView({ block: 'center' });
  el.focus();
}

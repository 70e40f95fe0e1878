import type { ReactNode } from 'react';
import { citationOf, isEmptyCitation, type Citation } from '../../../shared/plugins/citation';
import type { OdrRecord } from '../../../shared/schemas/record';
import type { Template } from '../../../shared/schemas/template';

const valueOf = (rec: OdrRecord, uuid: string): string => {
  const v = rec.fields.find((f) => f.field_uuid === uuid)?.value;
  return v === undefined || v === null ? '' : String(v);
};

function CitationText({ c }: { c: Citation }) {
  const journal = [c.journal, c.volume && `${c.volume}${c.issue ? `(${c.issue})` : ''}`, c.pages].filter(Boolean).join(', ');
  return (
    <p className="citation" data-testid="citation">
      {c.authors && <span className="cite-authors">{c.authors}</span>}
      {c.year && <> ({c.year})</>}
      {(c.authors || c.year) && ' '}
      {c.title && <span className="cite-title">{c.title.replace(/\.$/, '')}.</span>}
      {journal && (
        <>
          {' '}
          <em className="cite-journal">{journal}</em>.
        </>
      )}
      {c.doi && (
        <>
          {' '}
          {c.doiHref ? (
            <a href={c.doiHref} target="_blank" rel="noopener noreferrer">
              doi:{c.doiHref.replace('https://doi.org/', '')}
            </a>
          ) : (
            c.doi
          )}
        </>
      )}
      {!c.doi && c.url && (
        <>
          {' '}
          <a href={c.url} target="_blank" rel="noopener noreferrer">
            {c.url}
          </a>
        </>
      )}
    </p>
  );
}

/** References Plugin: a reference record reads as one citation; its fields stay editable behind it. */
export function ReferenceRecord({ tpl, rec, children }: { tpl: Template; rec: OdrRecord; children: ReactNode }) {
  const c = citationOf(tpl.fields.map((f) => ({ name: f.name, value: valueOf(rec, f.field_uuid) })));
  return (
    <>
      {isEmptyCitation(c) ? <p className="muted">An empty reference: fill in its fields below.</p> : <CitationText c={c} />}
      <details className="plugin-fields">
        <summary>Edit reference fields</summary>
        {children}
      </details>
    </>
  );
}

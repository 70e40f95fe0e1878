import { useEffect, useRef, useState } from 'react';
import { fieldType } from '../../../shared/fieldTypes';
import type { Template, TemplateField } from '../../../shared/schemas/template';
import type { ViewFilter } from '../../../shared/schemas/view';
import { choicesOf } from '../lib/choices';
import { normaliseTypedDecimal } from '../lib/numbers';

const PUBLIC = '__public__';
const APPLY_AFTER_MS = 300;

/** A filter being typed: the shape of a ViewFilter with every value optional (blank ones are not sent). */
interface Draft {
  id: number;
  kind: ViewFilter['kind'];
  field?: string;
  contains?: string;
  min?: string;
  max?: string;
  options?: string[];
  not?: boolean;
  has?: boolean;
  public?: boolean;
}

type Filterable = 'text' | 'range' | 'option' | 'file';

/** Which filter a field takes, by how it stores its value; undefined: none (booleans, markdown…). */
function kindOf(f: TemplateField): Filterable | undefined {
  switch (fieldType(f.fieldtype).storage) {
    case 'text':
      return 'text';
    case 'integer':
    case 'decimal':
    case 'datetime':
      return 'range';
    case 'options':
    case 'tags':
      return 'option';
    case 'files':
      return 'file';
    default:
      return undefined;
  }
}

let nextId = 1;
/** A saved filter as a draft; bounds and words a script sent as JSON numbers become their text. */
const draftOf = (f: ViewFilter): Draft => {
  const { contains, min, max, ...rest } = f as Partial<Record<'contains' | 'min' | 'max', string | number>> & ViewFilter;
  return {
    ...rest,
    id: nextId++,
    ...(contains !== undefined && { contains: String(contains) }),
    ...(min !== undefined && { min: String(min) }),
    ...(max !== undefined && { max: String(max) }),
  };
};

/** The drafts complete enough to send. */
export function completeFilters(drafts: Draft[]): ViewFilter[] {
  const out: ViewFilter[] = [];
  for (const d of drafts) {
    if (d.kind === 'public') out.push({ kind: 'public', public: d.public ?? true });
    else if (!d.field) continue;
    else if (d.kind === 'text' && d.contains?.trim()) out.push({ kind: 'text', field: d.field, contains: d.contains.trim() });
    else if (d.kind === 'range' && (d.min?.trim() || d.max?.trim()))
      out.push({
        kind: 'range',
        field: d.field,
        ...(d.min?.trim() ? { min: normaliseTypedDecimal(d.min.trim()) } : {}),
        ...(d.max?.trim() ? { max: normaliseTypedDecimal(d.max.trim()) } : {}),
      });
    else if (d.kind === 'option' && d.options?.length)
      out.push({ kind: 'option', field: d.field, options: d.options, not: d.not || undefined });
    else if (d.kind === 'file') out.push({ kind: 'file', field: d.field, has: d.has ?? true });
  }
  return out;
}

function FilterRow({ d, f, onChange, onRemove }: { d: Draft; f?: TemplateField; onChange: (d: Draft) => void; onRemove: () => void }) {
  const name = f?.name ?? 'Public status';
  const storage = f ? fieldType(f.fieldtype).storage : undefined;
  const set = (patch: Partial<Draft>) => onChange({ ...d, ...patch });
  return (
    <li className="filter" data-filter={d.kind}>
      <span className="filter-name" title={name}>
        {name}
      </span>
      {d.kind === 'text' && (
        <input
          type="search"
          aria-label={`${name} contains`}
          placeholder="contains…"
          value={d.contains ?? ''}
          onChange={(e) => set({ contains: e.target.value })}
        />
      )}
      {d.kind === 'range' && (
        <>
          <input
            type={storage === 'datetime' ? 'date' : 'text'}
            inputMode={storage === 'datetime' ? undefined : 'decimal'}
            aria-label={`${name} from`}
            placeholder="from"
            value={d.min ?? ''}
            onChange={(e) => set({ min: e.target.value })}
          />
          <span aria-hidden="true">–</span>
          <input
            type={storage === 'datetime' ? 'date' : 'text'}
            inputMode={storage === 'datetime' ? undefined : 'decimal'}
            aria-label={`${name} to`}
            placeholder="to"
            value={d.max ?? ''}
            onChange={(e) => set({ max: e.target.value })}
          />
        </>
      )}
      {d.kind === 'option' && f && (
        <>
          <select
            aria-label={`${name}: is or is not`}
            value={d.not ? 'not' : 'is'}
            onChange={(e) => set({ not: e.target.value === 'not' })}
          >
            <option value="is">is any of</option>
            <option value="not">is none of</option>
          </select>
          <div className="filter-options" role="group" aria-label={`${name} options`}>
            {choicesOf(f).map((c) => (
              <label key={c.uuid} className="choice">
                <input
                  type="checkbox"
                  checked={d.options?.includes(c.uuid) ?? false}
                  onChange={(e) =>
                    set({ options: e.target.checked ? [...(d.options ?? []), c.uuid] : (d.options ?? []).filter((u) => u !== c.uuid) })
                  }
                />
                {c.name}
              </label>
            ))}
          </div>
        </>
      )}
      {d.kind === 'file' && (
        <select
          aria-label={`${name}: has a file`}
          value={d.has === false ? 'no' : 'yes'}
          onChange={(e) => set({ has: e.target.value === 'yes' })}
        >
          <option value="yes">has a file</option>
          <option value="no">has no file</option>
        </select>
      )}
      {d.kind === 'public' && (
        <select
          aria-label="Public or private"
          value={d.public === false ? 'private' : 'public'}
          onChange={(e) => set({ public: e.target.value === 'public' })}
        >
          <option value="public">is public</option>
          <option value="private">is private</option>
        </select>
      )}
      <button type="button" className="link" aria-label={`Remove filter ${name}`} title="Remove this filter" onClick={onRemove}>
        ✕
      </button>
    </li>
  );
}

/**
 * Per-field filters of the record list, all of which must hold, on top of the search box. A
 * field is added from the menu and gets the filter its type takes; what is typed applies after a
 * short pause. Remounted (key) when a saved search replaces the filters.
 */
export function FilterBar({ tpl, filters, onChange }: { tpl: Template; filters: ViewFilter[]; onChange: (f: ViewFilter[]) => void }) {
  const [drafts, setDrafts] = useState<Draft[]>(() => filters.map(draftOf));
  const sent = useRef(JSON.stringify(filters));
  const add = useRef<HTMLSelectElement>(null);
  const list = useRef<HTMLUListElement>(null);
  const fields = tpl.fields.filter((f) => kindOf(f) !== undefined);
  const byUuid = new Map(tpl.fields.map((f) => [f.field_uuid, f]));

  useEffect(() => {
    const next = completeFilters(drafts);
    const text = JSON.stringify(next);
    if (text === sent.current) return;
    const t = setTimeout(() => {
      sent.current = text;
      onChange(next);
    }, APPLY_AFTER_MS);
    return () => clearTimeout(t);
  }, [drafts, onChange]);

  const addFilter = (value: string) => {
    if (!value) return;
    const f = byUuid.get(value);
    const d: Draft = f ? { id: nextId++, kind: kindOf(f)!, field: f.field_uuid } : { id: nextId++, kind: 'public', public: true };
    setDrafts((ds) => [...ds, d]);
    // The new filter's first control takes the focus, ready to type.
    requestAnimationFrame(() => list.current?.querySelector<HTMLElement>('li:last-child input, li:last-child select')?.focus());
  };

  return (
    <section className="filter-bar" aria-label="Filters">
      <ul ref={list}>
        {drafts.map((d) => (
          <FilterRow
            key={d.id}
            d={d}
            f={d.field ? byUuid.get(d.field) : undefined}
            onChange={(n) => setDrafts((ds) => ds.map((x) => (x.id === n.id ? n : x)))}
            onRemove={() => {
              setDrafts((ds) => ds.filter((x) => x.id !== d.id));
              add.current?.focus();
            }}
          />
        ))}
      </ul>
      <div className="filter-actions">
        <select
          ref={add}
          aria-label="Add a filter"
          value=""
          onChange={(e) => {
            addFilter(e.target.value);
            e.target.value = '';
          }}
        >
          <option value="">+ Add a filter…</option>
          {fields.map((f) => (
            <option key={f.field_uuid} value={f.field_uuid}>
              {f.name}
            </option>
          ))}
          <option value={PUBLIC}>Public status</option>
        </select>
        {drafts.length > 0 && (
          <button type="button" className="link" onClick={() => setDrafts([])}>
            Clear filters
          </button>
        )}
      </div>
    </section>
  );
}

import type { Template, TemplateTag } from '../../../shared/schemas/template';
import { errorText, rebuildThumbnails } from '../lib/api';
import { useQuota } from '../lib/queries';
import { formatBytes } from '../lib/bytes';
import { toast } from '../ui/toasts';

function Tags({ tags }: { tags: TemplateTag[] }) {
  return (
    <ul className="tag-list">
      {tags.map((t) => (
        <li key={t.template_tag_uuid}>
          {t.name}
          {t.tags?.length ? <Tags tags={t.tags} /> : null}
        </li>
      ))}
    </ul>
  );
}

function Fields({ tpl }: { tpl: Template }) {
  return (
    <table className="fields-table">
      <thead>
        <tr>
          <th scope="col">Field</th>
          <th scope="col">Type</th>
          <th scope="col">Options / tags</th>
        </tr>
      </thead>
      <tbody>
        {tpl.fields.map((f) => (
          <tr key={f.field_uuid}>
            <th scope="row">
              {f.name}
              {f.is_unique ? <span className="badge">unique</span> : null}
              <div className="muted small">{f.description}</div>
            </th>
            <td>{f.fieldtype}</td>
            <td>
              {f.radio_options?.length ? <span>{f.radio_options.map((o) => o.name).join(' · ')}</span> : null}
              {f.tags?.length ? <Tags tags={f.tags} /> : null}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function Tree({ tpl, depth }: { tpl: Template; depth: number }) {
  return (
    <li>
      <details open={depth < 1}>
        <summary id={`tpl-${tpl.template_uuid}`}>
          <strong>{tpl.name}</strong> <span className="muted">{tpl.fields.length} fields</span>
        </summary>
        <Fields tpl={tpl} />
        {tpl.related_databases.length > 0 && (
          <ul className="tree">
            {tpl.related_databases.map((c) => (
              <Tree key={c.template_uuid} tpl={c} depth={depth + 1} />
            ))}
          </ul>
        )}
      </details>
    </li>
  );
}

/** "0 bytes", "512 bytes", "4.0 MB (4,194,304 bytes)": the exact figure only beside a rounded one. */
const quotaText = (bytes: number) => (bytes < 1024 ? formatBytes(bytes) : `${formatBytes(bytes)} (${bytes.toLocaleString()} bytes)`);

/** The dataset's template: fields and their types, options, tag trees, related datasets, quota. */
export function TemplateView({ tpl, dataset }: { tpl: Template; dataset: string }) {
  const quota = useQuota(dataset);
  const bytes = Number(quota.data?.total_bytes ?? 0);
  return (
    <section className="template" aria-label="Template">
      <p>
        Files and images stored for this dataset: <strong data-testid="quota">{quota.data ? quotaText(bytes) : '…'}</strong>{' '}
        <button
          type="button"
          className="link"
          onClick={() =>
            rebuildThumbnails(dataset).then(
              () => toast({ kind: 'info', text: 'Rebuilding thumbnails — see Jobs' }, 3000),
              (e: unknown) => toast({ kind: 'error', text: errorText(e) }),
            )
          }
        >
          Rebuild thumbnails
        </button>
      </p>
      <ul className="tree">
        <Tree tpl={tpl} depth={0} />
      </ul>
    </section>
  );
}

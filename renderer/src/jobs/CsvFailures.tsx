import type { CsvRowFailure } from '../../../shared/schemas/csvImport';

/** Failures listed; the rest are counted (the job result keeps them all). */
const SHOWN_FAILURES = 200;

/** The rows a CSV import refuses (its preview, its result dialog and its entry in Jobs). */
export function CsvFailures({ list, total, truncated }: { list: CsvRowFailure[]; total: number; truncated: boolean }) {
  if (list.length === 0) return null;
  const more = list.length - Math.min(list.length, SHOWN_FAILURES);
  return (
    <div className="csv-failures" role="region" aria-label="Rows that fail" tabIndex={0}>
      <table>
        <thead>
          <tr>
            <th scope="col">Row</th>
            <th scope="col">Column</th>
            <th scope="col">Problem</th>
          </tr>
        </thead>
        <tbody>
          {list.slice(0, SHOWN_FAILURES).map((f, i) => (
            <tr key={i}>
              <td>{f.row}</td>
              <td>{f.column ?? '(whole row)'}</td>
              <td>{f.message}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {(more > 0 || truncated) && (
        <p className="muted">
          {truncated
            ? `…and more problems in ${total.toLocaleString()} failing rows.`
            : `…and ${more.toLocaleString()} more problem${more === 1 ? '' : 's'} in ${total.toLocaleString()} failing rows.`}
        </p>
      )}
    </div>
  );
}

import { dateTitle, fromWire, localStamp, zoneName } from '../lib/dates';

/**
 * A stored (UTC) timestamp in the one format the app uses: local `YYYY-MM-DD HH:MM`, the zone
 * named beside it when `zone` is set and always on hover.
 */
export function Time({ ts, zone = false }: { ts: string; zone?: boolean }) {
  const d = fromWire(ts);
  if (!d) return <>{ts}</>;
  return (
    <time dateTime={d.toISOString()} title={dateTitle(ts)}>
      {localStamp(d)}
      {zone ? ` ${zoneName(d)}` : ''}
    </time>
  );
}
